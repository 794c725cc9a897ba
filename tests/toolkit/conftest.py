"""Builders of synthetic toolkit trees for the discovery tests.

Library files get just enough of a header (ELF for Linux with the right CPU,
``MZ`` for Windows) to pass discovery's header check; everything else is an
empty file with the real name.  Package metadata is written the way conda
(``conda-meta/*.json``), pip (``*.dist-info/RECORD``) and the toolkit
installer (``version.json``) write it.
"""

import json
import os
import sys

import pytest

from numba_cuda.toolkit.discovery import Environment

ELF_MACHINE = {"linux-64": 62, "linux-aarch64": 183}


def lib_bytes(platform):
    if platform.startswith("win"):
        return b"MZ" + b"\0" * 62
    head = bytearray(64)
    head[:4] = b"\x7fELF"
    head[4] = 2  # 64-bit
    head[5] = 1  # little endian
    head[16:18] = (3).to_bytes(2, "little")  # ET_DYN: a shared library (no segments, no sections)
    head[18:20] = ELF_MACHINE[platform].to_bytes(2, "little")
    return bytes(head)


class Tree:
    """Creates files under ``root`` and remembers them (relative, with /)."""

    def __init__(self, root, platform):
        self.root = str(root)
        self.platform = platform
        self.files = []

    def path(self, rel):
        return os.path.join(self.root, *rel.split("/"))

    def lib(self, rel):
        return self._write(rel, lib_bytes(self.platform))

    def file(self, rel, data=b""):
        return self._write(rel, data)

    def headers(self, rel_dir, cudart_version=None):
        self.file(f"{rel_dir}/cuda_fp16.h")
        self.file(f"{rel_dir}/cuda_runtime.h")
        if cudart_version:
            self.file(f"{rel_dir}/cuda_runtime_api.h",
                      f"#define CUDART_VERSION {cudart_version}\n".encode())
        return self.path(rel_dir)

    def _write(self, rel, data):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)
        self.files.append(rel)
        return p


def conda_record(prefix, name, version, files, build="h0_0"):
    meta = os.path.join(str(prefix), "conda-meta")
    os.makedirs(meta, exist_ok=True)
    with open(os.path.join(meta, f"{name}-{version}-{build}.json"), "w") as fh:
        json.dump({"name": name, "version": version, "build": build, "files": list(files)}, fh)


def make_conda_env(prefix, major, platform="linux-64", skip=(), version=None):
    """A conda-forge style environment with CUDA ``major`` toolkit packages."""
    version = version or f"{major}.{0 if major == 13 else 9}.{86 if major == 12 else 88}"
    os.makedirs(os.path.join(str(prefix), "conda-meta"), exist_ok=True)
    conda_record(prefix, "cuda-version", f"{major}.{0 if major == 13 else 9}", [])
    pkgs = {}
    if platform.startswith("win"):
        nvvm_dir = "Library/nvvm/bin/x64" if major >= 13 else "Library/nvvm/bin"
        code = f"{major}0"
        layout = {
            "nvvm": ("cuda-nvvm-impl", [f"{nvvm_dir}/nvvm64_40_0.dll"]),
            "libdevice": ("cuda-nvvm-tools", ["Library/nvvm/libdevice/libdevice.10.bc"]),
            "nvrtc": ("cuda-nvrtc", [f"Library/bin/nvrtc64_{code}_0.dll",
                                     f"Library/bin/nvrtc-builtins64_{code}.dll"]),
            "cudart": ("cuda-cudart", [f"Library/bin/cudart64_{major}.dll"]),
            "nvjitlink": ("libnvjitlink", [f"Library/bin/nvJitLink_{code}_0.dll"]),
            "include": ("cuda-cudart-dev", ["Library/include/cuda_runtime.h",
                                            "Library/include/cuda_fp16.h"]),
            "ptxas": ("cuda-nvcc-tools", ["Library/bin/ptxas.exe"]),
            "nvdisasm": ("cuda-nvdisasm", ["Library/bin/nvdisasm.exe"]),
        }
    else:
        t = "sbsa-linux" if platform == "linux-aarch64" else "x86_64-linux"
        layout = {
            "nvvm": ("cuda-nvvm-impl", ["nvvm/lib64/libnvvm.so.4.0.0", "nvvm/lib64/libnvvm.so.4"]),
            "libdevice": ("cuda-nvvm-tools", ["nvvm/libdevice/libdevice.10.bc"]),
            "nvrtc": ("cuda-nvrtc", [f"lib/libnvrtc.so.{major}"]),
            "cudart": ("cuda-cudart", [f"lib/libcudart.so.{major}"]),
            "nvjitlink": ("libnvjitlink", [f"lib/libnvJitLink.so.{major}"]),
            "include": ("cuda-cudart-dev", [f"targets/{t}/include/cuda_runtime.h",
                                            f"targets/{t}/include/cuda_fp16.h"]),
            "ptxas": ("cuda-nvcc-tools", ["bin/ptxas"]),
            "nvdisasm": ("cuda-nvdisasm", ["bin/nvdisasm"]),
        }
    tree = Tree(prefix, platform)
    for comp, (pkg, files) in layout.items():
        if comp in skip:
            continue
        for rel in files:
            is_lib = rel.endswith(".dll") or ".so" in rel
            (tree.lib if is_lib and "include" not in rel else tree.file)(rel)
        pkgs.setdefault(pkg, []).extend(files)
    for pkg, files in pkgs.items():
        conda_record(prefix, pkg, version, files)
    return tree


def make_wheels(site, major, platform="linux-64", skip=()):
    """NVIDIA's pip wheels for CUDA ``major`` under the folder ``site``."""
    win = platform.startswith("win")
    tree = Tree(site, platform)
    if major == 13:
        b = "nvidia/cu13"
        if win:
            bx = f"{b}/bin/x86_64"
            layout = {
                "nvvm": ("nvidia_nvvm", [f"{bx}/nvvm64_40_0.dll"]),
                "libdevice": ("nvidia_nvvm", [f"{b}/nvvm/libdevice/libdevice.10.bc"]),
                "nvrtc": ("nvidia_cuda_nvrtc", [f"{bx}/nvrtc64_130_0.dll"]),
                "cudart": ("nvidia_cuda_runtime", [f"{bx}/cudart64_13.dll"]),
                "nvjitlink": ("nvidia_nvjitlink", [f"{bx}/nvJitLink_130_0.dll"]),
                "include": ("nvidia_cuda_runtime", [f"{b}/include/cuda_runtime.h",
                                                    f"{b}/include/cuda_fp16.h"]),
                "ptxas": ("nvidia_cuda_nvcc", [f"{b}/bin/ptxas.exe"]),
                "nvdisasm": ("nvidia_cuda_nvdisasm", [f"{b}/bin/nvdisasm.exe"]),
            }
        else:
            layout = {
                "nvvm": ("nvidia_nvvm", [f"{b}/lib/libnvvm.so.4"]),
                "libdevice": ("nvidia_nvvm", [f"{b}/nvvm/libdevice/libdevice.10.bc"]),
                "nvrtc": ("nvidia_cuda_nvrtc", [f"{b}/lib/libnvrtc.so.13"]),
                "cudart": ("nvidia_cuda_runtime", [f"{b}/lib/libcudart.so.13"]),
                "nvjitlink": ("nvidia_nvjitlink", [f"{b}/lib/libnvJitLink.so.13"]),
                "include": ("nvidia_cuda_runtime", [f"{b}/include/cuda_runtime.h",
                                                    f"{b}/include/cuda_fp16.h"]),
                "ptxas": ("nvidia_cuda_nvcc", [f"{b}/bin/ptxas"]),
                "nvdisasm": ("nvidia_cuda_nvdisasm", [f"{b}/bin/nvdisasm"]),
            }
        version = "13.0.88"
    else:
        lib = "bin" if win else "lib"
        layout = {
            "nvvm": ("nvidia_cuda_nvcc_cu12", [
                "nvidia/cuda_nvcc/nvvm/bin/nvvm64_40_0.dll" if win
                else "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so"]),
            "libdevice": ("nvidia_cuda_nvcc_cu12", ["nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc"]),
            "nvrtc": ("nvidia_cuda_nvrtc_cu12", [
                f"nvidia/cuda_nvrtc/{lib}/" + ("nvrtc64_120_0.dll" if win else "libnvrtc.so.12")]),
            "cudart": ("nvidia_cuda_runtime_cu12", [
                f"nvidia/cuda_runtime/{lib}/" + ("cudart64_12.dll" if win else "libcudart.so.12")]),
            "nvjitlink": ("nvidia_nvjitlink_cu12", [
                f"nvidia/nvjitlink/{lib}/" + ("nvJitLink_120_0.dll" if win else "libnvJitLink.so.12")]),
            "include": ("nvidia_cuda_runtime_cu12", ["nvidia/cuda_runtime/include/cuda_runtime.h",
                                                     "nvidia/cuda_runtime/include/cuda_fp16.h"]),
            "ptxas": ("nvidia_cuda_nvcc_cu12", [
                "nvidia/cuda_nvcc/bin/ptxas" + (".exe" if win else "")]),
        }
        version = "12.9.86"
    dists = {}
    for comp, (dist, files) in layout.items():
        if comp in skip:
            continue
        for rel in files:
            is_lib = rel.endswith(".dll") or ".so" in rel
            (tree.lib if is_lib else tree.file)(rel)
        dists.setdefault(dist, []).extend(files)
    for dist, files in dists.items():
        info = os.path.join(str(site), f"{dist}-{version}.dist-info")
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, "RECORD"), "w") as fh:
            for rel in files:
                fh.write(f"{rel},sha256=x,0\n")
            fh.write(f"{dist}-{version}.dist-info/RECORD,,\n")
    return tree


def make_toolkit_install(root, major, platform="linux-64", skip=(), version_json=True):
    """A CUDA toolkit installer layout (what CUDA_HOME / /usr/local/cuda hold)."""
    tree = Tree(root, platform)
    win = platform.startswith("win")
    if win:
        code = f"{major}0"
        libdir = "bin/x64" if major >= 13 else "bin"
        nvvmdir = "nvvm/bin/x64" if major >= 13 else "nvvm/bin"
        layout = {
            "nvvm": [f"{nvvmdir}/nvvm64_40_0.dll"],
            "libdevice": ["nvvm/libdevice/libdevice.10.bc"],
            "nvrtc": [f"{libdir}/nvrtc64_{code}_0.dll"],
            "cudart": [f"{libdir}/cudart64_{major}.dll"],
            "nvjitlink": [f"{libdir}/nvJitLink_{code}_0.dll"],
            "include": None,
            "ptxas": ["bin/ptxas.exe"],
            "nvdisasm": ["bin/nvdisasm.exe"],
        }
        inc = "include"
    else:
        t = "sbsa-linux" if platform == "linux-aarch64" else "x86_64-linux"
        layout = {
            "nvvm": ["nvvm/lib64/libnvvm.so.4"],
            "libdevice": ["nvvm/libdevice/libdevice.10.bc"],
            "nvrtc": [f"targets/{t}/lib/libnvrtc.so.{major}"],
            "cudart": [f"targets/{t}/lib/libcudart.so.{major}"],
            "nvjitlink": [f"targets/{t}/lib/libnvJitLink.so.{major}"],
            "include": None,
            "ptxas": ["bin/ptxas"],
            "nvdisasm": ["bin/nvdisasm"],
        }
        inc = f"targets/{t}/include"
    for comp, files in layout.items():
        if comp in skip:
            continue
        if comp == "include":
            tree.headers(inc, cudart_version=major * 1000)
            continue
        for rel in files:
            (tree.lib if rel.endswith(".dll") or ".so" in rel else tree.file)(rel)
    if version_json:
        tree.file("version.json", json.dumps({"cuda": {"version": f"{major}.0.1"}}).encode())
    return tree


@pytest.fixture
def fake_env(tmp_path):
    """Factory of discovery Environments over tmp_path (nothing real is seen)."""

    def build(**kw):
        prefix = tmp_path / "python-prefix"
        prefix.mkdir(exist_ok=True)
        defaults = dict(
            prefix=str(prefix), base_prefix=str(tmp_path / "base-python"), path=[],
            environ={}, platform="linux-64", system_roots=[], loader_dirs=lambda: [],
            bindings_major=None,
        )
        defaults.update(kw)
        return Environment(**defaults)

    return build


@pytest.fixture
def subprocess_env():
    """os.environ without any variable that would steer discovery."""
    env = dict(os.environ)
    for var in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "NUMBA_CUDA_DISABLE_SOURCES",
                "LD_LIBRARY_PATH", "NUMBA_ENABLE_CUDASIM", "NUMBA_CUDA_REDIRECT"):
        env.pop(var, None)
    env["PYTHONWARNINGS"] = "default"
    return env


def venv_major():
    """The CUDA major of the cuda-bindings installed in the running venv."""
    from importlib.metadata import version

    return int(version("cuda-bindings").split(".")[0])


def site_packages():
    import sysconfig

    return sysconfig.get_paths()["purelib"]


PYTHON = sys.executable


@pytest.fixture
def fakes():
    """The builders above, for test modules (which cannot import conftest)."""
    import types

    return types.SimpleNamespace(
        Tree=Tree, lib_bytes=lib_bytes, conda_record=conda_record, make_conda_env=make_conda_env,
        make_wheels=make_wheels, make_toolkit_install=make_toolkit_install,
        venv_major=venv_major, site_packages=site_packages, python=PYTHON,
    )

"""Build an unactivated conda-style prefix out of the NVIDIA pip wheels of this venv.

The prefix has what numba-cuda's discovery looks at in a real conda-forge
environment: ``conda-meta/`` with package records, ``nvvm/lib64/libnvvm.so*``,
``nvvm/libdevice/libdevice.10.bc``, ``lib/libnvrtc.so.N``,
``lib/libcudart.so.N``, ``lib/libnvJitLink.so.N``,
``targets/<arch>-linux/include/`` and ``bin/ptxas`` -- each a symlink to the
real file from the pip wheels, placed where conda-forge's packages put it.
``bin/python`` is a venv interpreter, so ``sys.prefix`` is the prefix; a
``.pth`` file makes this venv's site-packages (numba, numba-cuda ...)
importable there.  ``bin/numba-cuda`` is the console script pip would write.
"""

import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

WHEEL_LAYOUT = {
    # conda path (relative to the prefix) <- wheel folder (relative to site-packages/nvidia)
    12: {
        "nvvm/lib64": "cuda_nvcc/nvvm/lib64",
        "nvvm/libdevice": "cuda_nvcc/nvvm/libdevice",
        "lib": ["cuda_nvrtc/lib", "cuda_runtime/lib", "nvjitlink/lib"],
        "include": ["cuda_runtime/include", "cuda_nvrtc/include", "cuda_nvcc/include", "nvjitlink/include"],
        "bin/ptxas": "cuda_nvcc/bin/ptxas",
    },
    13: {
        "nvvm/lib64": "cu13/lib/libnvvm.so*",
        "nvvm/libdevice": "cu13/nvvm/libdevice",
        "lib": ["cu13/lib/libnvrtc*", "cu13/lib/libcudart.so*", "cu13/lib/libnvJitLink.so*"],
        "include": ["cu13/include"],
        "bin/ptxas": "cu13/bin/ptxas",
    },
}

def _owner(rel):
    """The conda-forge package that installs ``rel`` (a path relative to the prefix)."""
    name = rel.rsplit("/", 1)[-1]
    if rel.startswith("nvvm/lib64/"):
        return "cuda-nvvm-impl"
    if rel.startswith("nvvm/libdevice/"):
        return "cuda-nvvm-tools"
    if rel == "bin/ptxas":
        return "cuda-nvcc-tools"
    if rel.startswith("targets/"):
        return "cuda-cudart-dev_linux-64"
    if name.startswith("libnvrtc"):
        return "cuda-nvrtc"
    if name.startswith("libnvJitLink"):
        return "libnvjitlink"
    return "cuda-cudart"


def venv_cuda_major():
    """The CUDA major of the running venv (its cuda-bindings)."""
    forced = os.environ.get("NUMBA_CUDA_TEST_MAJOR")
    if forced:
        return int(forced)
    return int(importlib.metadata.version("cuda-bindings").split(".")[0])


def _nvidia_root():
    for entry in sys.path:
        candidate = Path(entry) / "nvidia"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no nvidia/ wheel folder on sys.path: install numba-cuda[cu12] or [cu13]")


def _expand(root, pattern):
    if "*" in pattern:
        folder, glob = pattern.rsplit("/", 1)
        return sorted((root / folder).glob(glob))
    path = root / pattern
    return sorted(path.iterdir()) if path.is_dir() else [path]


def _toolkit_version(major):
    dist = "nvidia-cuda-nvrtc-cu12" if major == 12 else "nvidia-cuda-nvrtc"
    return importlib.metadata.version(dist)


def build(prefix, major=None):
    """Create the fake prefix at ``prefix``; returns ``(prefix, major)``."""
    major = major or venv_cuda_major()
    prefix = Path(prefix)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(prefix)
    site_packages = Path(
        subprocess.check_output(
            [str(prefix / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    parent = sysconfig.get_paths()["purelib"]
    (site_packages / "_numba_cuda_test_parent.pth").write_text(f"import site; site.addsitedir({parent!r})\n")

    arch = "sbsa-linux" if platform.machine() == "aarch64" else "x86_64-linux"
    root = _nvidia_root()
    files_by_owner = {}
    for conda_dir, sources in WHEEL_LAYOUT[major].items():
        sources = [sources] if isinstance(sources, str) else sources
        dest_dir = f"targets/{arch}/include" if conda_dir == "include" else conda_dir
        for source in sources:
            for real in _expand(root, source):
                if conda_dir == "bin/ptxas":
                    rel = "bin/ptxas"
                else:
                    rel = f"{dest_dir}/{real.name}"
                dest = prefix / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                if not dest.exists():
                    dest.symlink_to(real)
                files_by_owner.setdefault(_owner(rel), []).append(rel)
    if major == 13 and not (prefix / "nvvm/lib64/libnvvm.so").exists():
        (prefix / "nvvm/lib64/libnvvm.so").symlink_to("libnvvm.so.4")
        files_by_owner["cuda-nvvm-impl"].append("nvvm/lib64/libnvvm.so")

    version = _toolkit_version(major)
    minor = ".".join(version.split(".")[:2])
    meta = prefix / "conda-meta"
    meta.mkdir()
    records = {"cuda-version": []}
    records.update(files_by_owner)
    for name, files in records.items():
        pkg_version = minor if name == "cuda-version" else version
        record = {"name": name, "version": pkg_version, "build": "h0_0", "build_number": 0,
                  "channel": "conda-forge", "files": sorted(files)}
        (meta / f"{name}-{pkg_version}-h0_0.json").write_text(json.dumps(record))
    (meta / "history").write_text("")

    # The console script, as pip writes it for [project.scripts].
    script = prefix / "bin" / "numba-cuda"
    script.write_text(
        f"#!{prefix / 'bin' / 'python'}\nimport sys\nfrom numba_cuda.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    return prefix, major


def clean_environ(extra_path=None):
    """os.environ without anything that activates or points at a toolkit."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SHLVL", "CONDA_EXE", "CUDA_HOME", "CUDA_PATH",
                        "LD_LIBRARY_PATH", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "NUMBA_CUDA_DISABLE_SOURCES",
                        "NUMBA_ENABLE_CUDASIM")
           and not k.startswith("CONDA_PREFIX_")}
    env["PATH"] = os.pathsep.join(p for p in ([extra_path] if extra_path else []) + ["/usr/bin", "/bin"])
    return env

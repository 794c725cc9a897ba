"""Every supported layout, as a synthetic tree: each component is found where
that layout puts it, with the right source and CUDA major."""

import os

import pytest

from numba_cuda.toolkit import COMPONENTS
from numba_cuda.toolkit.discovery import discover

PLATFORMS = ("linux-64", "linux-aarch64", "win-64")


#: CUDA 12 has no pip wheel of nvdisasm (NVIDIA ships it for CUDA 13 only).
NOT_IN_CUDA12_WHEELS = ("nvdisasm",)


def assert_complete(tk, source, major):
    bad = {n: c.error for n, c in tk.components.items() if not c.found}
    if source == "pip" and major == 12:
        assert set(bad) == set(NOT_IN_CUDA12_WHEELS), bad
        assert "conda" in tk.components["nvdisasm"].message  # the fix names where to get it
        assert "pip install" not in tk.components["nvdisasm"].message.split("Fix", 1)[1]
    else:
        assert not bad, bad
    assert tk.source == source
    assert tk.cuda_major == major
    for name in COMPONENTS:
        if name in bad:
            continue
        comp = tk.components[name]
        assert comp.source == source, (name, comp)
        assert comp.major == major, (name, comp)


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("major", (12, 13))
def test_interpreter_conda_env(fake_env, fakes, tmp_path, platform, major):
    env = fake_env(platform=platform)
    tree = fakes.make_conda_env(env.prefix, major, platform)
    tk = discover(env)
    assert_complete(tk, "conda", major)
    c = tk.components
    if platform.startswith("win"):
        nvvm_dir = "Library/nvvm/bin/x64" if major == 13 else "Library/nvvm/bin"
        assert c["nvvm"].path == tree.path(f"{nvvm_dir}/nvvm64_40_0.dll")
        assert c["nvrtc"].path == tree.path(f"Library/bin/nvrtc64_{major}0_0.dll")
        assert c["cudart"].path == tree.path(f"Library/bin/cudart64_{major}.dll")
        assert c["nvjitlink"].path == tree.path(f"Library/bin/nvJitLink_{major}0_0.dll")
        assert c["include"].path == tree.path("Library/include")
        assert c["ptxas"].path == tree.path("Library/bin/ptxas.exe")
    else:
        t = "sbsa-linux" if platform == "linux-aarch64" else "x86_64-linux"
        assert c["nvvm"].path == tree.path("nvvm/lib64/libnvvm.so.4")
        assert c["nvrtc"].path == tree.path(f"lib/libnvrtc.so.{major}")
        assert c["cudart"].path == tree.path(f"lib/libcudart.so.{major}")
        assert c["nvjitlink"].path == tree.path(f"lib/libnvJitLink.so.{major}")
        assert c["include"].path == tree.path(f"targets/{t}/include")
        assert c["ptxas"].path == tree.path("bin/ptxas")
    assert c["libdevice"].path == tree.path(
        ("Library/" if platform.startswith("win") else "") + "nvvm/libdevice/libdevice.10.bc")
    # versions come from the conda-meta records
    assert c["nvrtc"].version.startswith(f"{major}.")
    assert "cuda-nvrtc" in c["nvrtc"].version_from
    assert tk.environment == "conda"
    assert "conda install -c conda-forge" in tk.fix and f'"cuda-version={major}"' in tk.fix


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("major", (12, 13))
def test_pip_wheels(fake_env, fakes, tmp_path, platform, major):
    site = tmp_path / "site-packages"
    tree = fakes.make_wheels(site, major, platform)
    env = fake_env(platform=platform, path=[str(tmp_path / "missing"), str(site)])
    tk = discover(env)
    assert_complete(tk, "pip", major)
    c = tk.components
    win = platform.startswith("win")
    if major == 13:
        assert tk.root == str(site / "nvidia" / "cu13")
        sub = "bin/x86_64/nvvm64_40_0.dll" if win else "lib/libnvvm.so.4"
        assert c["nvvm"].path == tree.path(f"nvidia/cu13/{sub}")
        assert c["include"].path == tree.path("nvidia/cu13/include")
        assert c["libdevice"].path == tree.path("nvidia/cu13/nvvm/libdevice/libdevice.10.bc")
    else:
        sub = "nvvm/bin/nvvm64_40_0.dll" if win else "nvvm/lib64/libnvvm.so"
        assert c["nvvm"].path == tree.path(f"nvidia/cuda_nvcc/{sub}")
        assert c["nvrtc"].path == tree.path(
            "nvidia/cuda_nvrtc/" + ("bin/nvrtc64_120_0.dll" if win else "lib/libnvrtc.so.12"))
        assert c["include"].path == tree.path("nvidia/cuda_runtime/include")
    # the version is the owning wheel's, read from its dist-info RECORD
    assert c["nvvm"].version == ("13.0.88" if major == 13 else "12.9.86")
    assert tk.environment == "venv"
    assert tk.fix == f'pip install "numba-cuda[cu{major}]"'


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("major", (12, 13))
def test_cuda_home_toolkit_install(fake_env, fakes, tmp_path, platform, major):
    root = tmp_path / "cuda"
    tree = fakes.make_toolkit_install(root, major, platform)
    env = fake_env(platform=platform, environ={"CUDA_HOME": str(root)})
    tk = discover(env)
    assert_complete(tk, "CUDA_HOME", major)
    if platform.startswith("win"):
        sub = "bin/x64" if major == 13 else "bin"
        assert tk.components["nvrtc"].path == tree.path(f"{sub}/nvrtc64_{major}0_0.dll")
        assert tk.components["include"].path == tree.path("include")
    else:
        t = "sbsa-linux" if platform == "linux-aarch64" else "x86_64-linux"
        assert tk.components["nvvm"].path == tree.path("nvvm/lib64/libnvvm.so.4")
        assert tk.components["include"].path == tree.path(f"targets/{t}/include")


def test_cuda_path_windows_cuda13(fake_env, fakes, tmp_path):
    root = tmp_path / "CUDA" / "v13.0"
    tree = fakes.make_toolkit_install(root, 13, "win-64", version_json=False)
    tk = discover(fake_env(platform="win-64", environ={"CUDA_PATH": str(root)}))
    assert_complete(tk, "CUDA_PATH", 13)
    assert tk.components["nvvm"].path == tree.path("nvvm/bin/x64/nvvm64_40_0.dll")
    # without version.json the majors come from the DLL names, the headers and v13.0
    assert tk.components["cudart"].version_from == "the file name"


def test_system_odd_layout_without_nvrtc(fake_env, fakes, tmp_path):
    """This machine's /usr/local/cuda: lib/libnvvm.so, nvvm/libdevice, no NVRTC."""
    root = tmp_path / "usr-local-cuda-13.0"
    t = fakes.Tree(root, "linux-64")
    t.lib("lib/libnvvm.so.4")
    os.symlink("libnvvm.so.4", t.path("lib/libnvvm.so"))
    os.symlink("lib", t.path("lib64"))
    t.file("nvvm/libdevice/libdevice.10.bc")
    t.lib("lib/libcudart.so.13")
    t.headers("include", cudart_version=13000)
    t.file("bin/ptxas")
    # the wheels' records shipped inside the tree, with paths that do not match it
    info = root / "dist-info" / "nvidia_nvvm-13.0.88.dist-info"
    info.mkdir(parents=True)
    (info / "RECORD").write_text("nvidia/cu13/lib/libnvvm.so.4,sha256=x,1\n")
    tk = discover(fake_env(system_roots=[str(root)]))
    assert tk.source == "system"
    assert tk.cuda_major == 13
    assert tk.components["nvvm"].path == t.path("lib/libnvvm.so.4")  # not lib64/ (a link)
    assert tk.components["nvvm"].version == "13.0.88"
    assert tk.components["libdevice"].found
    assert tk.components["cudart"].found and tk.components["cudart"].major == 13
    nvrtc = tk.components["nvrtc"]
    assert not nvrtc.found
    assert nvrtc.error == "NVRTC not found for CUDA 13"
    assert any("libnvrtc.so.*" in reason for _place, reason in nvrtc.tried)


def test_system_root_from_loader_cache(fake_env, fakes, tmp_path):
    root = tmp_path / "opt" / "cuda-12.4"
    tree = fakes.make_toolkit_install(root, 12, version_json=False)
    libdir = tree.path("targets/x86_64-linux/lib")
    tk = discover(fake_env(loader_dirs=lambda: [libdir]))
    assert tk.source == "system"
    assert tk.root == str(root).replace("\\", "/")
    assert tk.cuda_major == 12  # from the folder name cuda-12.4 and the file names
    assert tk.components["nvrtc"].path == os.path.join(libdir, "libnvrtc.so.12")


def test_system_loader_folder_without_toolkit_root(fake_env, fakes, tmp_path):
    """Distribution packages put the libraries in a plain folder: only the
    libraries are taken from there, libdevice must come from elsewhere."""
    flat = fakes.Tree(tmp_path / "usr" / "lib" / "x86_64-linux-gnu", "linux-64")
    flat.lib("libnvvm.so.4")
    flat.lib("libnvrtc.so.12")
    tk = discover(fake_env(loader_dirs=lambda: [flat.root]))
    assert tk.source is None and tk.cuda_major is None  # no toolkit was chosen
    assert "libdevice" in tk.components["nvvm"].tried[-1][1] or any(
        "no libdevice" in r for _p, r in tk.components["nvvm"].tried)
    # NVRTC is still reported where it is
    assert tk.components["nvrtc"].path == flat.path("libnvrtc.so.12")


@pytest.mark.parametrize("platform", ("linux-64", "win-64"))
def test_cuda11_cudatoolkit_flat_layout_is_unsupported(fake_env, fakes, tmp_path, platform):
    env = fake_env(platform=platform)
    t = fakes.Tree(env.prefix, platform)
    d = "Library/bin" if platform == "win-64" else "lib"
    files = [t.lib(f"{d}/nvvm64_40_0.dll" if platform == "win-64" else f"{d}/libnvvm.so"),
             t.file(f"{d}/libdevice.10.bc"),
             t.lib(f"{d}/nvrtc64_112_0.dll" if platform == "win-64" else f"{d}/libnvrtc.so.11.2")]
    fakes.conda_record(env.prefix, "cudatoolkit", "11.8.0",
                       [os.path.relpath(f, env.prefix).replace("\\", "/") for f in files])
    tk = discover(env)
    assert tk.source is None and tk.cuda_major is None
    nvvm = tk.components["nvvm"]
    assert not nvvm.found
    reasons = " ".join(r for _p, r in nvvm.tried)
    assert "CUDA 11's cudatoolkit package layout" in reasons
    assert "supports CUDA 12 and 13 only" in reasons
    assert any("unsupported CUDA major" in w for w in tk.warnings)
    with pytest.raises(Exception) as info:
        tk.require("nvvm")
    assert "CUDA 11" in str(info.value)
    assert 'conda install -c conda-forge cuda-nvcc-impl cuda-nvrtc "cuda-version=' in str(info.value)


def test_wrong_cpu_library_is_rejected(fake_env, fakes, tmp_path):
    """An x86-64 libNVVM on an aarch64 machine does not count as working."""
    site = tmp_path / "site"
    fakes.make_wheels(site, 13, "linux-64")  # x86-64 headers
    tk = discover(fake_env(platform="linux-aarch64", path=[str(site)]))
    assert tk.source is None
    assert any("built for x86-64, not for this linux-aarch64 machine" in r
               for _p, r in tk.components["nvvm"].tried)


def test_not_a_library_is_rejected_and_next_source_used(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12)
    nvvm = os.path.join(env.prefix, "nvvm", "lib64", "libnvvm.so.4")
    with open(nvvm, "wb") as fh:
        fh.write(b"not a library")
    os.remove(os.path.join(env.prefix, "nvvm", "lib64", "libnvvm.so.4.0.0"))
    site = tmp_path / "site"
    fakes.make_wheels(site, 12)
    env.path = [str(site)]
    tk = discover(env)
    assert tk.source == "pip"
    assert any(f"{nvvm} is not a shared library (no ELF header)" in r
               for _p, r in tk.components["nvvm"].tried)

"""numba.cuda.cuda_paths (Numba's and NVIDIA's module): the parts toolkit discovery chose, in
those packages' shape."""

import os

import pytest


def test_the_paths_are_discoverys_choice():
    from numba.cuda import cuda_paths

    from numba_cuda.toolkit import get_toolkit

    tk = get_toolkit()
    paths = cuda_paths.get_cuda_paths()
    for part, component in (("nvvm", "nvvm"), ("libdevice", "libdevice"), ("nvrtc", "nvrtc"),
                            ("include_dir", "include")):
        comp = tk.components[component]
        if comp.found:
            assert paths[part].info == comp.path
            assert paths[part].by == cuda_paths.SOURCE_WORDS[comp.source]
        else:
            assert paths[part].info is None and paths[part].by
    by, path = cuda_paths._get_libdevice_path_decision()
    assert (by, path) == tuple(paths["libdevice"])
    if tk.components["cudart"].found:
        assert paths["cudalib_dir"].info == os.path.dirname(tk.components["cudart"].path)


def test_cuda_home_and_the_walk_up_from_a_library(tmp_path, monkeypatch):
    from numba.cuda.cuda_paths import _find_cuda_home_from_lib_path, get_cuda_home

    root = tmp_path / "cuda"
    (root / "lib64").mkdir(parents=True)
    (root / "nvvm" / "lib64").mkdir(parents=True)
    lib = root / "lib64" / "libnvrtc.so.12"
    lib.touch()
    assert _find_cuda_home_from_lib_path(str(lib)) == str(root.resolve())
    plain = tmp_path / "plain" / "lib"
    plain.mkdir(parents=True)
    assert _find_cuda_home_from_lib_path(str(plain / "libx.so")) is None
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("CUDA_HOME", str(root))
    assert get_cuda_home("nvvm") == str(root / "nvvm")
    monkeypatch.delenv("CUDA_HOME")
    assert get_cuda_home() is None


@pytest.mark.parametrize("present", [True, False])
def test_the_system_toolkit(tmp_path, monkeypatch, present):
    from numba.cuda import cuda_paths

    from numba_cuda.toolkit import discovery

    root = tmp_path / "usr-local-cuda"
    if present:
        (root / "lib64").mkdir(parents=True)
    real = discovery.current_environment

    def env(*a, **k):
        e = real(*a, **k)
        e.system_roots = [str(root)]
        return e

    monkeypatch.setattr(discovery, "current_environment", env)
    assert cuda_paths.get_system_ctk() == (str(root) if present else None)
    assert cuda_paths.get_system_ctk_libdir() == (str(root / "lib64") if present else None)

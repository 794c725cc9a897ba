"""nvdisasm: an optional component (inspect_sass).  Found where each layout puts it; missing, it
costs no search of the system sources (a loader-cache subprocess at start-up) and its error names
where to get it for this CUDA major."""

import pytest

from numba_cuda.toolkit.discovery import discover


@pytest.mark.parametrize("platform", ("linux-64", "win-64"))
def test_found_in_cuda13_wheels_and_conda_and_toolkit_installs(fake_env, fakes, tmp_path, platform):
    exe = ".exe" if platform.startswith("win") else ""
    site = tmp_path / "site-packages"
    tree = fakes.make_wheels(site, 13, platform)
    tk = discover(fake_env(platform=platform, path=[str(site)]))
    assert tk.components["nvdisasm"].path == tree.path(f"nvidia/cu13/bin/nvdisasm{exe}")
    assert tk.components["nvdisasm"].version == "13.0.88"  # from nvidia_cuda_nvdisasm's RECORD

    env = fake_env(platform=platform)
    tree = fakes.make_conda_env(env.prefix, 12, platform)
    tk = discover(env)
    sub = "Library/bin" if exe else "bin"
    assert tk.components["nvdisasm"].path == tree.path(f"{sub}/nvdisasm{exe}")

    root = tmp_path / "cuda"
    tree = fakes.make_toolkit_install(root, 12, platform)
    other = tmp_path / "another-python"
    other.mkdir()
    tk = discover(fake_env(platform=platform, prefix=str(other), environ={"CUDA_HOME": str(root)}))
    assert tk.components["nvdisasm"].path == tree.path(f"bin/nvdisasm{exe}")


@pytest.mark.parametrize("major", (12, 13))
def test_missing_nvdisasm_does_not_search_the_system(fake_env, fakes, tmp_path, major):
    site = tmp_path / "site-packages"
    fakes.make_wheels(site, major, skip=("nvdisasm",))
    calls = []

    def loader_dirs():
        calls.append(1)
        return []

    tk = discover(fake_env(path=[str(site)], loader_dirs=loader_dirs))
    assert calls == []
    comp = tk.components["nvdisasm"]
    assert not comp.found
    assert any(place.startswith("system") for place, _why in comp.tried)
    fix = comp.message.split("Fix", 1)[1]
    if major == 13:
        assert 'pip install "nvidia-cuda-nvdisasm>=13.0,<14"' in fix
    else:
        assert "conda" in fix and "CUDA_HOME" in fix and "pip install" not in fix
    # every required component is there: nothing else is reported missing
    assert [name for name, c in tk.components.items() if not c.found] == ["nvdisasm"]


def test_a_search_that_reaches_the_system_anyway_looks_there(fake_env, fakes, tmp_path):
    root = tmp_path / "usr-local-cuda"
    tree = fakes.make_toolkit_install(root, 13)
    tk = discover(fake_env(system_roots=[str(root)]))
    assert tk.source == "system"
    assert tk.components["nvdisasm"].path == tree.path("bin/nvdisasm")

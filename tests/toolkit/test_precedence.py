"""The search order, the env variables and the one-toolkit rule."""

import os

from numba_cuda.toolkit.discovery import discover


def test_interpreter_conda_env_beats_pip_wheels(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12)
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    env.path = [str(site)]
    tk = discover(env)
    assert tk.source == "conda" and tk.cuda_major == 12
    assert tk.root == env.prefix


def test_unactivated_conda_env_is_found_without_conda_prefix(fake_env, fakes):
    env = fake_env(environ={})  # CONDA_PREFIX unset: conda run, HPC modules, absolute python
    fakes.make_conda_env(env.prefix, 13)
    assert discover(env).source == "conda"


def test_pip_beats_activated_other_conda_prefix(fake_env, fakes, tmp_path):
    other = tmp_path / "other-env"
    fakes.make_conda_env(other, 12)
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    tk = discover(fake_env(path=[str(site)], environ={"CONDA_PREFIX": str(other)}))
    assert tk.source == "pip" and tk.cuda_major == 13


def test_conda_prefix_beats_cuda_home(fake_env, fakes, tmp_path):
    other = tmp_path / "other-env"
    fakes.make_conda_env(other, 12)
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 13)
    tk = discover(fake_env(environ={"CONDA_PREFIX": str(other), "CUDA_HOME": str(home)}))
    assert tk.source == "CONDA_PREFIX" and tk.cuda_major == 12
    assert tk.root == str(other)


def test_conda_prefix_equal_to_interpreter_env_is_not_searched_twice(fake_env, fakes):
    env = fake_env()
    env.environ = {"CONDA_PREFIX": env.prefix}
    fakes.make_conda_env(env.prefix, 13, skip=("nvrtc",))
    tk = discover(env)
    assert tk.source == "conda"
    tried = dict(tk.components["nvrtc"].tried)
    assert tried[f"CONDA_PREFIX={env.prefix}"] == "is this interpreter's environment (searched first)"


def test_cuda_home_beats_cuda_path_and_warns_when_they_differ(fake_env, fakes, tmp_path):
    home, path = tmp_path / "cuda-home", tmp_path / "cuda-path"
    fakes.make_toolkit_install(home, 12)
    fakes.make_toolkit_install(path, 13)
    tk = discover(fake_env(environ={"CUDA_HOME": str(home), "CUDA_PATH": str(path)}))
    assert tk.source == "CUDA_HOME" and tk.cuda_major == 12
    assert any("CUDA_HOME" in w and "CUDA_PATH" in w and "differ" in w for w in tk.warnings)


def test_no_warning_when_cuda_home_and_cuda_path_agree(fake_env, fakes, tmp_path):
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 13)
    tk = discover(fake_env(environ={"CUDA_HOME": str(home), "CUDA_PATH": str(home) + os.sep}))
    assert tk.source == "CUDA_HOME"
    assert not any("differ" in w for w in tk.warnings)


def test_nonexistent_cuda_home_is_reported_not_used_nor_silently_skipped(fake_env, fakes, tmp_path):
    path = tmp_path / "cuda-path"
    fakes.make_toolkit_install(path, 13)
    missing = str(tmp_path / "no-such-cuda")
    tk = discover(fake_env(environ={"CUDA_HOME": missing, "CUDA_PATH": str(path)}))
    assert tk.source == "CUDA_PATH"
    assert f"CUDA_HOME={missing} does not exist (it is not used)" in tk.warnings
    assert (f"CUDA_HOME={missing}", "does not exist") in tk.components["nvvm"].tried
    assert f"CUDA_HOME={missing}" in tk.explain()


def test_nonexistent_cuda_home_appears_in_the_error(fake_env, tmp_path):
    missing = str(tmp_path / "no-such-cuda")
    tk = discover(fake_env(environ={"CUDA_HOME": missing}))
    msg = tk.components["nvvm"].message
    assert f"CUDA_HOME={missing}: does not exist" in msg


def test_disable_sources_knob(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12)
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    env.path = [str(site)]
    env.environ = {"NUMBA_CUDA_DISABLE_SOURCES": "Conda, bogus"}
    tk = discover(env)
    assert tk.source == "pip"
    assert any("unknown source 'bogus'" in w for w in tk.warnings)
    tried = dict(tk.components["nvvm"].tried)
    assert tried[f"conda env {env.prefix} (this interpreter's)"] == \
        "disabled by NUMBA_CUDA_DISABLE_SOURCES"

    env.environ = {"NUMBA_CUDA_DISABLE_SOURCES": "all"}
    tk = discover(env)
    assert tk.source is None
    assert all(not c.found for c in tk.components.values())
    assert "disabled by NUMBA_CUDA_DISABLE_SOURCES" in tk.components["nvrtc"].message


def test_source_with_nvvm_but_no_libdevice_does_not_decide(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 13, skip=("libdevice",))  # cuda-nvvm-impl alone
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    env.path = [str(site)]
    tk = discover(env)
    assert tk.source == "pip"
    assert any("found, but this source has no libdevice" in r
               for _p, r in tk.components["nvvm"].tried)
    # the rest comes from the deciding source first, not from the conda env
    assert tk.components["nvrtc"].source == "pip"


def test_other_components_looked_up_in_deciding_source_first_then_same_major(
        fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12, skip=("nvjitlink",))
    site = tmp_path / "site"
    fakes.make_wheels(site, 12)
    env.path = [str(site)]
    tk = discover(env)
    assert tk.source == "conda"
    assert tk.components["nvrtc"].source == "conda"
    # missing from the deciding source: taken from the next source of the same major
    assert tk.components["nvjitlink"].source == "pip"
    assert tk.components["nvjitlink"].major == 12


def test_wheels_matching_cuda_bindings_are_preferred(fake_env, fakes, tmp_path):
    site = tmp_path / "site"
    fakes.make_wheels(site, 12)
    fakes.make_wheels(site, 13)
    tk12 = discover(fake_env(path=[str(site)], bindings_major=12))
    tk13 = discover(fake_env(path=[str(site)], bindings_major=13))
    assert (tk12.cuda_major, tk13.cuda_major) == (12, 13)
    assert any("several CUDA majors" in w for w in tk12.warnings)


def test_bindings_of_another_major_are_reported(fake_env, fakes, tmp_path):
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    tk = discover(fake_env(path=[str(site)], bindings_major=12))
    assert any("cuda-bindings is for CUDA 12" in w and "CUDA 13" in w for w in tk.warnings)


def test_system_source_comes_last(fake_env, fakes, tmp_path):
    root = tmp_path / "usr-local-cuda"
    fakes.make_toolkit_install(root, 13)
    home = tmp_path / "home"
    fakes.make_toolkit_install(home, 12)
    tk = discover(fake_env(system_roots=[str(root)], environ={"CUDA_HOME": str(home)}))
    assert tk.source == "CUDA_HOME"
    tk = discover(fake_env(system_roots=[str(root)]))
    assert tk.source == "system" and tk.root == str(root)


def test_discovery_touches_nothing_at_import():
    import subprocess
    import sys

    code = (
        "import sys, numba_cuda.toolkit as t, numba.cuda\n"
        "assert t._cached is None\n"
        "assert 'numba_cuda.toolkit.discovery' not in sys.modules\n"
        "maps = open('/proc/self/maps').read()\n"
        "assert 'libnvvm' not in maps and 'libnvrtc' not in maps, 'a toolkit library was loaded'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"

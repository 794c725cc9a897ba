"""ToolkitError: mixed majors are refused, and every message names the
component, each place tried with its reason, and the fix for this kind of
environment."""

import subprocess
import sys

import pytest

from numba_cuda.errors import ToolkitError
from numba_cuda.toolkit.discovery import discover


def test_mixed_majors_inside_one_conda_env_are_refused(fake_env, fakes):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12, skip=("nvrtc",))
    # a CUDA 13 NVRTC next to a CUDA 12 NVVM
    t = fakes.Tree(env.prefix, "linux-64")
    t.lib("lib/libnvrtc.so.13")
    fakes.conda_record(env.prefix, "cuda-nvrtc", "13.0.48", ["lib/libnvrtc.so.13"])
    tk = discover(env)
    assert tk.cuda_major == 12
    nvrtc = tk.components["nvrtc"]
    assert not nvrtc.found
    assert nvrtc.error.startswith("mixed CUDA majors")
    with pytest.raises(ToolkitError) as info:
        tk.require("nvrtc")
    msg = str(info.value)
    assert "'nvrtc'" in msg
    assert "CUDA 13" in msg and "libnvrtc.so.13" in msg
    # each found component's major is named
    assert "nvvm: CUDA 12" in msg and "libdevice: CUDA 12" in msg
    assert 'conda install -c conda-forge cuda-nvcc-impl cuda-nvrtc "cuda-version=12"' in msg
    assert info.value.component == "nvrtc"


def test_component_of_another_major_in_a_later_source_is_not_mixed_in(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12, skip=("nvrtc",))
    site = tmp_path / "site"
    fakes.make_wheels(site, 13)
    env.path = [str(site)]
    tk = discover(env)
    assert tk.source == "conda" and tk.cuda_major == 12
    nvrtc = tk.components["nvrtc"]
    assert not nvrtc.found
    assert "CUDA 13" in nvrtc.error and "libnvrtc.so.13" in nvrtc.error
    assert any("is CUDA 13" in r and "toolkit is CUDA 12" in r for _p, r in nvrtc.tried)


def test_mixed_nvvm_and_libdevice_do_not_decide(fake_env, fakes, tmp_path):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12, skip=("libdevice",))
    t = fakes.Tree(env.prefix, "linux-64")
    t.file("nvvm/libdevice/libdevice.10.bc")
    fakes.conda_record(env.prefix, "cuda-nvvm-tools", "13.0.1", ["nvvm/libdevice/libdevice.10.bc"])
    tk = discover(env)
    assert tk.source is None
    assert any("a mixture of CUDA majors" in r for _p, r in tk.components["nvvm"].tried)


def test_message_in_a_venv(fake_env, fakes, tmp_path):
    site = tmp_path / "site"
    fakes.make_wheels(site, 13, skip=("nvjitlink",))
    env = fake_env(path=[str(site)], environ={"CUDA_HOME": str(tmp_path / "nope")})
    tk = discover(env)
    with pytest.raises(ToolkitError) as info:
        tk.require("nvjitlink")
    msg = str(info.value)
    lines = msg.splitlines()
    assert lines[0].startswith("CUDA toolkit component 'nvjitlink' (nvJitLink) is not available")
    assert "The toolkit in use is CUDA 13 from pip" in msg
    assert "Places tried:" in msg
    # every source, with its reason, in the documented order
    places = [line for line in lines if line.startswith("  - ")]
    joined = "\n".join(places)
    assert "conda env of this interpreter" in places[0] and "no conda-meta" in places[0]
    assert f"pip wheels for CUDA 13 in {site}: no libnvJitLink.so.* in {{nvidia/cu13/lib}}" in joined
    assert "CONDA_PREFIX: not set" in joined
    assert f"CUDA_HOME={tmp_path / 'nope'}: does not exist" in joined
    assert "CUDA_PATH: not set" in joined
    assert "system" in places[-1]
    assert 'Fix (for this virtual environment): pip install "numba-cuda[cu13]"' in msg


def test_message_in_a_conda_env_uses_conda_and_the_detected_major(fake_env, fakes):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12, skip=("nvjitlink",))
    msg = discover(env).components["nvjitlink"].message
    assert ('Fix (for this conda environment): conda install -c conda-forge cuda-nvcc-impl '
            'cuda-nvrtc libnvjitlink "cuda-version=12"') in msg


def test_nothing_found_fix_uses_the_cuda_bindings_major(fake_env):
    tk = discover(fake_env(bindings_major=12))
    assert tk.fix == 'pip install "numba-cuda[cu12]"'
    assert 'pip install "numba-cuda[cu12]"' in tk.components["nvvm"].message
    tk = discover(fake_env())
    assert tk.fix == 'pip install "numba-cuda[cu13]"'


def test_require_rejects_unknown_names(fake_env):
    with pytest.raises(ValueError):
        discover(fake_env()).require("nvcc")


def _run(code, env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_unloadable_library_is_a_toolkit_error_not_an_oserror(fakes, tmp_path, subprocess_env):
    """A file that passes the header check but cannot be dlopen-ed."""
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 13)
    env = dict(subprocess_env, CUDA_HOME=str(home), NUMBA_CUDA_DISABLE_SOURCES="conda,pip,system")
    code = (
        "from numba_cuda import toolkit\n"
        "from numba_cuda.errors import ToolkitError\n"
        "try:\n"
        "    toolkit.load_library('nvvm')\n"
        "except ToolkitError as e:\n"
        "    print('TOOLKITERROR'); print(e)\n"
    )
    out = _run(code, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("TOOLKITERROR")
    assert f"{home}/nvvm/lib64/libnvvm.so.4 (from CUDA_HOME) could not be loaded" in out.stdout
    assert "Fix: pip install" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_load_library_of_missing_component_raises_toolkit_error(subprocess_env):
    env = dict(subprocess_env, NUMBA_CUDA_DISABLE_SOURCES="all")
    code = (
        "from numba_cuda import toolkit\n"
        "from numba_cuda.errors import ToolkitError\n"
        "for fn in (lambda: toolkit.load_library('nvrtc'), toolkit.libdevice_path):\n"
        "    try:\n"
        "        fn()\n"
        "    except ToolkitError as e:\n"
        "        print(str(e).splitlines()[0])\n"
        "print(toolkit.ptxas_path())\n"
    )
    out = _run(code, env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("CUDA toolkit component 'nvrtc' (NVRTC) is not available")
    assert lines[1].startswith("CUDA toolkit component 'libdevice'")
    assert lines[2] == "None"

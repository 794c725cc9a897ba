"""Numba's CUDA settings that numba-cuda reads (see docs/user/environment-variables.rst):
``NUMBA_CUDA_DEFAULT_PTX_CC``, ``NUMBA_FORCE_CUDA_CC``, ``NUMBA_CUDA_DEBUGINFO``,
``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS`` / ``NUMBA_DISABLE_PERFORMANCE_WARNINGS``,
``NUMBA_CUDA_INCLUDE_PATH`` / ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS`` and the driver call log
(``NUMBA_CUDA_LOG_LEVEL``, ``NUMBA_CUDA_LOG_API_ARGS``): from the environment (a fresh
interpreter) and from ``numba.config`` changed at run time, as Numba's test suite does."""

import re
import warnings

import pytest
from numba.core import config
from numba.core.errors import NumbaPerformanceWarning

TARGET = re.compile(r"^\s*\.target\s+(\w+)", re.M)

COMPILE_TARGETS = """
import re
from numba import cuda
def k(a):
    a[0] = 1
for cc in (None, (9, 0)):
    ptx, _ = cuda.compile_ptx(k, "void(int32[:])", cc=cc)
    print("TARGET", re.search(r"\\.target\\s+(\\w+)", ptx).group(1))
"""


def _targets(run_python, **env):
    proc = run_python(COMPILE_TARGETS, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return re.findall(r"^TARGET (\w+)", proc.stdout, re.M)


def test_default_ptx_cc_from_the_environment(run_python):
    from numba_cuda.compiler import capability

    lowest = capability.arch_name(capability.lowest_supported_cc(), "sm")
    assert _targets(run_python) == [lowest, "sm_90"]
    assert _targets(run_python, NUMBA_CUDA_DEFAULT_PTX_CC="8.6") == ["sm_86", "sm_90"]


def test_force_cuda_cc_from_the_environment_overrides_every_compile(run_python):
    assert _targets(run_python, NUMBA_FORCE_CUDA_CC="8.0") == ["sm_80", "sm_80"]


def test_a_default_libnvvm_refuses_is_an_error_naming_the_variable(run_python):
    from numba_cuda.compiler import capability

    if (5, 0) in capability.supported_ccs():
        pytest.skip("this libNVVM (CUDA 12) accepts 5.0; the error case needs CUDA 13")
    proc = run_python(COMPILE_TARGETS, env={"NUMBA_CUDA_DEFAULT_PTX_CC": "5.0"})
    assert proc.returncode != 0
    assert "UnsupportedCCError" in proc.stderr and "NUMBA_CUDA_DEFAULT_PTX_CC=5.0" in proc.stderr


def test_numba_config_changed_at_run_time(cuda, monkeypatch):
    def k(a):
        a[0] = 1

    monkeypatch.setattr(config, "CUDA_DEFAULT_PTX_CC", (8, 0))
    assert TARGET.search(cuda.compile_ptx(k, "void(int32[:])")[0]).group(1) == "sm_80"
    monkeypatch.setattr(config, "FORCE_CUDA_CC", (8, 6))
    assert TARGET.search(cuda.compile_ptx(k, "void(int32[:])", cc=(9, 0))[0]).group(1) == "sm_86"


def test_debuginfo_default_applies_to_jit_without_debug(cuda, monkeypatch):
    def k(a):
        a[0] = 1

    assert not cuda.jit(k).options.debug
    monkeypatch.setattr(config, "CUDA_DEBUGINFO_DEFAULT", 1)
    assert cuda.jit(k).options.debug
    assert not cuda.jit(debug=False)(k).options.debug


def _configure(cuda, griddim):
    @cuda.jit
    def k(a):
        a[0] = 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k[griddim, 32]
    return [w for w in caught if issubclass(w.category, NumbaPerformanceWarning)]


def test_low_occupancy_warning_as_numba(cuda, monkeypatch):
    monkeypatch.setattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 1)
    monkeypatch.setattr(config, "DISABLE_PERFORMANCE_WARNINGS", 0)
    (warning,) = _configure(cuda, (4, 2))
    assert "Grid size 8 will likely result in GPU under-utilization due to low occupancy" in str(
        warning.message)
    assert warning.filename == __file__  # points at the launch, not into numba-cuda
    assert _configure(cuda, 128) == []
    monkeypatch.setattr(config, "DISABLE_PERFORMANCE_WARNINGS", 1)
    assert _configure(cuda, 1) == []
    monkeypatch.setattr(config, "DISABLE_PERFORMANCE_WARNINGS", 0)
    monkeypatch.setattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 0)
    assert _configure(cuda, 1) == []


SOURCE = '#include "lc_settings.h"\nextern "C" __device__ int lc_value(int x) { return x + LC_VALUE; }\n'


def test_include_path_and_nvrtc_extra_search_paths(tmp_path, monkeypatch):
    from numba_cuda.errors import LinkerError
    from numba_cuda.linking import nvrtc

    first, second = tmp_path / "first", tmp_path / "second"
    for folder, value in ((first, 1), (second, 2)):
        folder.mkdir()
        (folder / "lc_settings.h").write_text(f"#define LC_VALUE {value}\n")
    monkeypatch.delenv("NUMBA_CUDA_INCLUDE_PATH", raising=False)
    monkeypatch.delenv("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", raising=False)
    with pytest.raises(LinkerError, match="lc_settings.h"):
        nvrtc.compile_source(SOURCE, (7, 5), name="a.cu")

    monkeypatch.setenv("NUMBA_CUDA_INCLUDE_PATH", str(second))
    monkeypatch.setattr(config, "CUDA_INCLUDE_PATH", str(second))
    assert nvrtc.user_include_path() == [str(second)]
    ptx = nvrtc.compile_source(SOURCE, (7, 5), name="b.cu").data
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert re.search(r"add\.s32\s+%r\d+, %r\d+, 2;", ptx), ptx

    monkeypatch.setenv("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(first))
    assert nvrtc.user_include_path() == [str(first), str(second)]  # the extra paths first
    ptx = nvrtc.compile_source(SOURCE, (7, 5), name="c.cu").data
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert re.search(r"add\.s32\s+%r\d+, %r\d+, 1;", ptx), ptx

    # numba.core.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS set by the program wins over the variable
    monkeypatch.setattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(second), raising=False)
    assert nvrtc.user_include_path() == [str(second), str(second)]
    ptx = nvrtc.compile_source(SOURCE, (7, 5), name="d.cu").data
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert re.search(r"add\.s32\s+%r\d+, %r\d+, 2;", ptx), ptx
    monkeypatch.delenv("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS")
    monkeypatch.setattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(first))
    assert nvrtc.user_include_path() == [str(first), str(second)]  # the config alone


DRIVER_LOG = """
from numba_cuda.runtime import cudriver
def cuFakeCall(*args):
    return (0, 42)
print("RESULT", cudriver.call(cuFakeCall, 1, "two"))
"""


@pytest.mark.parametrize("args", ["0", "1"])
def test_driver_call_log(run_python, args):
    proc = run_python(DRIVER_LOG, env={"NUMBA_CUDA_LOG_LEVEL": "debug",
                                       "NUMBA_CUDA_LOG_API_ARGS": args})
    assert proc.returncode == 0, proc.stderr
    assert "RESULT 42" in proc.stdout
    expected = "call driver api: cuFakeCall(1, two)" if args == "1" else "call driver api: cuFakeCall"
    line = next(line for line in proc.stderr.splitlines() if "cuFakeCall" in line)
    assert re.fullmatch(r"== CUDA \[\d+\] DEBUG -- " + re.escape(expected), line), line
    quiet = run_python(DRIVER_LOG, env={"NUMBA_CUDA_LOG_LEVEL": ""})
    assert "cuFakeCall" not in quiet.stderr

"""Our errors are raised ``from None``: the traceback a user sees ends with our message,
not with the lower layers' tracebacks (cuda-bindings, cuda-pathfinder, nvJitLink); the
original exception stays in the error's ``cause``."""

import os
import subprocess
import sys
import traceback

import pytest

from numba_cuda.errors import CudaSupportError, LinkerError, ToolkitError
from numba_cuda.runtime import cudriver
from numba_cuda.runtime.probe import probe_driver

NO_LIBCUDA = probe_driver()["version"] is None and "no NVIDIA driver found" in (
    probe_driver()["error"] or "")


def _deep_failure(depth=12):
    def dive(n):
        if n == 0:
            raise RuntimeError('"cuda" is an NVIDIA driver library and can only be found via '
                               "system search")
        return dive(n - 1)
    return dive(depth)


def _assert_ours_only(exc, cause_type):
    assert exc.__cause__ is None and exc.__suppress_context__
    assert isinstance(exc.cause, cause_type)
    text = "".join(traceback.format_exception(exc))
    assert "The above exception was the direct cause" not in text
    assert "During handling of the above exception" not in text
    assert "dive" not in text


def test_driver_failure_is_raised_without_the_bindings_traceback(monkeypatch):
    from cuda.bindings import driver as drv

    monkeypatch.setattr(drv, "cuInit", lambda flags: _deep_failure())
    monkeypatch.delenv("NUMBA_DISABLE_CUDA", raising=False)
    cudriver.reset_for_tests()
    try:
        for _ in range(2):  # the remembered failure, raised again, is just as clean
            with pytest.raises(CudaSupportError, match="no NVIDIA driver found") as info:
                cudriver.driver()
            _assert_ours_only(info.value, RuntimeError)
    finally:
        monkeypatch.undo()
        cudriver.reset_for_tests()


def test_a_library_that_fails_to_load_is_raised_from_none(monkeypatch, tmp_path):
    from numba_cuda.toolkit import loading

    with pytest.raises(ToolkitError) as info:
        try:
            _deep_failure(3)
        except RuntimeError as exc:
            monkeypatch.setattr(loading, "fix_command", lambda *a: "pip install x")
            loading._fail("nvvm", "libNVVM could not be loaded", exc)
    _assert_ours_only(info.value, RuntimeError)


def test_nvjitlink_missing_is_raised_from_none(monkeypatch):
    from numba_cuda.linking import nvjitlink
    from numba_cuda import toolkit

    def missing(name):
        raise ToolkitError("nvJitLink not found").with_cause(OSError("dlopen failed"))

    monkeypatch.setattr(toolkit, "load_library", missing)
    with pytest.raises(ToolkitError, match="needs nvJitLink") as info:
        nvjitlink._bindings(True)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert isinstance(info.value.cause, ToolkitError)


def test_reading_a_missing_link_file_is_raised_from_none(tmp_path):
    from numba_cuda.linking.linkable import from_file

    with pytest.raises(LinkerError, match="cannot read the file to link") as info:
        from_file(tmp_path / "missing.ptx")
    _assert_ours_only(info.value, FileNotFoundError)


@pytest.mark.skipif(not NO_LIBCUDA, reason="needs a machine without the NVIDIA driver library")
def test_no_driver_traceback_is_short_and_ours():
    code = "import numpy as np\nfrom numba import cuda\ncuda.to_device(np.zeros(3))\n"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM",
                                                           "NUMBA_DISABLE_CUDA")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 1
    err = proc.stderr
    assert err.rstrip().splitlines()[-1].startswith("numba_cuda.errors.CudaSupportError: no NVIDIA")
    assert "cuda/bindings" not in err and "pathfinder" not in err, err
    assert err.count("Traceback (most recent call last)") == 1, err

"""End to end on a GPU: exceptions of debug kernels raised on the host."""

import re
import warnings

import numpy as np
import pytest
from numba import cuda

pytestmark = pytest.mark.gpu


def test_out_of_bounds_write_names_thread_and_block(kernels):
    kernel = cuda.jit(kernels.out_of_bounds_at, debug=True, opt=False)
    a = cuda.to_device(np.zeros(64, dtype=np.float64))
    with pytest.raises(IndexError) as info:
        kernel[2, 32](a, 35)  # global index 35 = thread 3 of block 1
    message = str(info.value)
    assert message.startswith("index is out of bounds in kernel 'out_of_bounds_at' at thread "
                              "(3, 0, 0) of block (1, 0, 0)")
    assert "device_error_kernels.py" in message
    # the others ran; the record was cleared, so a clean launch raises nothing
    kernel[2, 32](a, 1000)
    assert (a.copy_to_host() == 2.0).all()


def test_boundscheck_option_without_debug(kernels):
    kernel = cuda.jit(kernels.out_of_bounds_at, boundscheck=True)
    a = cuda.to_device(np.zeros(16, dtype=np.float64))
    with pytest.raises(IndexError, match=r"at thread \(7, 0, 0\) of block \(0, 0, 0\)"):
        kernel[1, 32](a, 7)


def test_failing_assert_with_message(kernels):
    kernel = cuda.jit(kernels.assert_positive, debug=True, opt=False)
    host = np.ones(100, dtype=np.float32)
    host[70] = -1
    a = cuda.to_device(host)
    with pytest.raises(AssertionError) as info:
        kernel[4, 32](a)  # global index 70 = thread 6 of block 2
    assert str(info.value).startswith("found a value that is not positive in kernel "
                                      "'assert_positive' at thread (6, 0, 0) of block (2, 0, 0)")


def test_assert_in_a_device_function(kernels):
    kernel = cuda.jit(kernels.calls_checked_get, debug=True, opt=False)
    a = cuda.to_device(np.arange(8, dtype=np.float64))
    out = cuda.to_device(np.zeros(8, dtype=np.float64))
    with pytest.raises(AssertionError, match=r"index past the end in kernel 'calls_checked_get' at "
                                             r"thread \(7, 0, 0\) of block \(0, 0, 0\) \(raised "
                                             r"in checked_get"):
        kernel[1, 8](a, out)


def test_first_failure_wins_and_is_consistent(kernels):
    kernel = cuda.jit(kernels.two_failing_threads, debug=True, opt=False)
    a = cuda.to_device(np.zeros(64, dtype=np.int64))
    with pytest.raises(AssertionError) as info:
        kernel[2, 32](a)
    message = str(info.value)
    # one report, and its message and indices come from the same thread
    assert re.match(r"five in kernel 'two_failing_threads' at thread \(5, 0, 0\) of block \(0, 0, 0\)",
                    message) or re.match(r"thirty-seven in kernel 'two_failing_threads' at thread "
                                         r"\(5, 0, 0\) of block \(1, 0, 0\)", message), message


def test_every_thread_failing_reports_one_of_them(kernels):
    kernel = cuda.jit(kernels.every_thread_fails, debug=True, opt=False)
    a = cuda.to_device(np.zeros(4, dtype=np.float64))
    with pytest.raises(IndexError) as info:
        kernel[8, 128](a)
    tx, ty, tz, bx, by, bz = map(int, re.search(
        r"thread \((\d+), (\d+), (\d+)\) of block \((\d+), (\d+), (\d+)\)", str(info.value)).groups())
    assert tx < 128 and bx < 8 and ty == tz == by == bz == 0


def test_ordinary_kernels_do_not_report(kernels):
    kernel = cuda.jit(kernels.assert_positive)
    a = cuda.to_device(-np.ones(32, dtype=np.float32))
    kernel[1, 32](a)  # the failing threads return early; nothing is raised
    cuda.synchronize()


def test_report_on_a_stream_and_with_host_arrays(kernels):
    kernel = cuda.jit(kernels.assert_positive, debug=True, opt=False)
    stream = cuda.stream()
    host = np.ones(64, dtype=np.float32)
    host[33] = 0
    with pytest.raises(AssertionError, match=r"thread \(1, 0, 0\) of block \(1, 0, 0\)"):
        kernel[2, 32, stream](cuda.to_device(host, stream=stream))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the host-array performance warning
        with pytest.raises(AssertionError):
            kernel[2, 32](host)  # copied back first, then raised
    assert host[0] == 2.0 and host[33] == 0


def test_cached_debug_kernel_still_reports(kernels, tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kernel = cuda.jit(kernels.out_of_bounds_at, debug=True, opt=False, cache=True)
    a = cuda.to_device(np.zeros(32, dtype=np.float64))
    with pytest.raises(IndexError, match=r"at thread \(4, 0, 0\)"):
        kernel[1, 32](a, 4)

"""The simulator reports the same failures as debug kernels on the GPU -- out-of-bounds
indexing, assert (with and without a message), raise, in kernels and device functions -- naming
the thread and the block."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


@cuda.jit(device=True)
def checked_get(a, i):
    assert i < a.size, "index past the end"
    return a[i]


@cuda.jit
def calls_checked_get(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = checked_get(a, i + 1)


@cuda.jit
def assert_positive(a):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] > 0, "found a value that is not positive"
        a[i] = a[i] * 2


@cuda.jit
def bare_assert(a):
    assert cuda.grid(1) < 40


def test_assert_with_message_names_thread_and_block():
    a = np.ones(100, dtype=np.float32)
    a[70] = -1
    with pytest.raises(AssertionError) as info:
        assert_positive[4, 32](a)
    assert str(info.value) == "tid=[6, 0, 0] ctaid=[2, 0, 0]: found a value that is not positive"


def test_assert_without_message_names_thread_and_block():
    with pytest.raises(AssertionError) as info:
        bare_assert[2, 32](np.zeros(1))
    assert str(info.value) == "tid=[8, 0, 0] ctaid=[1, 0, 0]"


def test_assert_in_a_device_function_names_the_calling_thread():
    with pytest.raises(AssertionError,
                       match=r"^tid=\[7, 0, 0\] ctaid=\[0, 0, 0\]: index past the end$"):
        calls_checked_get[1, 8](np.arange(8.0), np.zeros(8))


def test_debug_and_boundscheck_options_are_accepted():
    kernel = cuda.jit(debug=True, opt=False, boundscheck=True)(assert_positive.py_func)
    with pytest.raises(AssertionError, match=r"^tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: "):
        kernel[1, 4](np.zeros(4, dtype=np.float32))

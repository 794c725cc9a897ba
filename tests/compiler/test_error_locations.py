"""Front-end errors name the line that caused them: an undefined global's use (Numba's
``NameError`` drops the location from its message), arrays too large for any GPU (they once
overflowed into malformed NVVM IR with no source line)."""

import pytest
from numba import cuda, float32, float64, int64
from numba.core.errors import TypingError

from tests.support.typing_errors import expect_typing_error, line_of


def uses_undefined(a):
    x = 1
    y = x + 1
    a[0] = undefined_name_for_the_test + y  # noqa: F821  MARK-UNDEFINED


def test_undefined_global_names_the_line_using_it():
    message = expect_typing_error(uses_undefined, (int64[::1],), "MARK-UNDEFINED",
                                  "NameError", "undefined_name_for_the_test")
    import inspect

    first = inspect.getsourcelines(uses_undefined)[1]
    assert f"line {first}:" not in message  # not (only) the definition line


@cuda.jit(device=True)
def _device_uses_undefined(x):
    return x + another_undefined_name  # noqa: F821  MARK-DEVICE-UNDEFINED


def calls_device(a):
    a[0] = _device_uses_undefined(a[0])


def test_undefined_global_in_a_device_function_names_its_line():
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(calls_device, (int64[::1],))
    message = str(info.value)
    assert "another_undefined_name" in message
    assert f"line {line_of(_device_uses_undefined.py_func, 'MARK-DEVICE-UNDEFINED')}" in message


def huge_shared_2d(a):
    s = cuda.shared.array((2**40, 2**30), float32)  # MARK-HUGE-SHARED
    a[0] = s[0, 0]


def huge_shared_1d(a):
    s = cuda.shared.array(2**40, float64)  # MARK-HUGE-SHARED-1D
    a[0] = s[0]


def huge_local(a):
    s = cuda.local.array((2**33, 2**33), float32)  # MARK-HUGE-LOCAL
    a[0] = s[0, 0]


def too_large_literal(a):
    s = cuda.shared.array(2**66, float32)  # MARK-2-66
    a[0] = s[0]


@pytest.mark.parametrize("fn, marker, words", [
    (huge_shared_2d, "MARK-HUGE-SHARED", ("cuda.shared.array", "bytes", "more than any GPU")),
    (huge_shared_1d, "MARK-HUGE-SHARED-1D", ("cuda.shared.array", "bytes")),
    (huge_local, "MARK-HUGE-LOCAL", ("cuda.local.array", "bytes")),
    (too_large_literal, "MARK-2-66", ("cuda.shared.array", "shape")),
])
def test_arrays_larger_than_any_gpu_are_typing_errors_naming_the_line(fn, marker, words):
    expect_typing_error(fn, (float32[::1],), marker, *words)


def test_large_but_possible_arrays_still_compile():
    def k(a):
        s = cuda.shared.array(12 * 1024, float32)  # 48 KiB, the static limit
        i = cuda.threadIdx.x
        s[i] = a[i]
        cuda.syncthreads()
        a[i] = s[12 * 1024 - 1 - i]

    ptx, _ = cuda.compile_ptx(k, (float32[::1],))
    assert "[49152]" in ptx

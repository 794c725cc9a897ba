"""Fixed-width integer semantics of the simulator."""

import numba
import numpy as np
from numba import int32, uint8

from numba_cuda.simulator import api as cuda


def test_store_of_overflowing_python_int_truncates():
    @cuda.jit
    def k(a, b):
        i = cuda.grid(1)
        a[i] = 2**31 + i          # wraps to int32 like the GPU's truncating store
        b[i] = -1 - i             # into uint16
        a[i] += 2**32             # augmented store on a Python int that does not fit

    a = np.zeros(3, np.int32)
    b = np.zeros(3, np.uint16)
    k[1, 3](a, b)
    assert list(a) == [-(2**31), -(2**31) + 1, -(2**31) + 2]
    assert list(b) == [65535, 65534, 65533]


def test_int32_arithmetic_widens_as_compiled():
    @cuda.jit
    def k(a, out):
        x = a[0]
        # int32 + int32 is int64 in the compiled kernel (Numba's typing), not NumPy's int32
        out[0] = x + x
        out[1] = np.int32(x) * 4
        out[2] = np.int32(2**31 + 5)   # the constructor wraps instead of raising
        out[3] = int32(2**32 + 7)      # the Numba type constructor as well
        out[4] = np.uint8(300)

    a = np.array([2**31 - 1], np.int32)
    out = np.zeros(5, np.int64)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[1, 1](a, out)
    assert list(out) == [2**32 - 2, 4 * (2**31 - 1), -(2**31) + 5, 7, 44]


def test_values_loaded_from_arrays_keep_their_numpy_type():
    seen = []

    @cuda.jit
    def k(a, b, c):
        seen.append(type(a[0]))
        seen.append(type(b[0]))
        seen.append(type(cuda.atomic.add(c, 0, 1)))
        seen.append(type(cuda.ballot_sync(0xFFFFFFFF, True)))

    k[1, 1](np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.uint64))
    assert seen == [np.int32, np.float32, np.uint64, np.uint32]


def test_uint8_arithmetic_wraps():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = a[i] + uint8(200)

    a = np.array([100, 10], np.uint8)
    k[1, 2](a)
    assert list(a) == [44, 210]


def test_eager_signature_converts_scalar_arguments():
    seen = []

    @cuda.jit("void(int32, float32, int64[:])")
    def k(n, x, out):
        seen.append((type(n), type(x)))
        out[0] = n + n

    out = np.zeros(1, np.int64)
    k[1, 1](2**31 - 1, 0.5, out)
    assert seen == [(np.int32, np.float32)]
    assert out[0] == 2**32 - 2  # int32 + int32 is int64, as compiled

    @cuda.jit(numba.void(numba.uint8[:]))
    def k2(a):
        a[0] = 1

    a = np.zeros(1, np.uint8)
    k2[1, 1](a)
    assert a[0] == 1

"""Atomics in the simulator: every operation, old values, wrap-around, NaN rules."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


def test_atomic_add_sums_and_returns_distinct_old_values():
    @cuda.jit
    def k(counter, olds):
        i = cuda.grid(1)
        olds[i] = cuda.atomic.add(counter, 0, 1)

    counter = np.zeros(1, np.int32)
    olds = np.zeros(100, np.int32)
    k[4, 25](counter, olds)
    assert counter[0] == 100
    assert sorted(olds) == list(range(100))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64])
def test_add_sub_max_min_exch(dtype):
    @cuda.jit
    def k(a, olds):
        olds[0] = cuda.atomic.add(a, 0, 5)
        olds[1] = cuda.atomic.sub(a, 1, 3)
        olds[2] = cuda.atomic.max(a, 2, 9)
        olds[3] = cuda.atomic.min(a, 3, 2)
        olds[4] = cuda.atomic.exch(a, 4, 7)

    a = np.array([1, 10, 4, 6, 1], dtype=dtype)
    olds = np.zeros(5, dtype=dtype)
    k[1, 1](a, olds)
    assert list(a) == [6, 7, 9, 2, 7]
    assert list(olds) == [1, 10, 4, 6, 1]


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_bitwise(dtype):
    @cuda.jit
    def k(a, olds):
        olds[0] = cuda.atomic.and_(a, 0, 0b1100)
        olds[1] = cuda.atomic.or_(a, 1, 0b0011)
        olds[2] = cuda.atomic.xor(a, 2, 0b0110)

    a = np.array([0b1010, 0b1000, 0b1010], dtype=dtype)
    olds = np.zeros(3, dtype=dtype)
    k[1, 1](a, olds)
    assert list(a) == [0b1000, 0b1011, 0b1100]
    assert list(olds) == [0b1010, 0b1000, 0b1010]


def test_inc_and_dec_wrap_like_cuda():
    @cuda.jit
    def k(a, olds):
        for j in range(5):
            olds[j] = cuda.atomic.inc(a, 0, 2)
        for j in range(5):
            olds[5 + j] = cuda.atomic.dec(a, 1, 2)

    a = np.array([0, 1], dtype=np.uint32)
    olds = np.zeros(10, np.uint32)
    k[1, 1](a, olds)
    assert list(olds[:5]) == [0, 1, 2, 0, 1]
    assert list(olds[5:]) == [1, 0, 2, 1, 0]
    assert list(a) == [2, 2]


@pytest.mark.parametrize("mode", ["python", "compiled"])
def test_inc_and_dec_convert_a_float_operand_as_cvt_rzi(mode, monkeypatch):
    """The operand is converted to the array's type first, as for the other atomics: a negative
    float saturates to 0 (the GPU's ``cvt.rzi.u32``), not 2**32 - 3 (found by the compiled mode's
    differential test)."""
    monkeypatch.setenv("NUMBA_CUDASIM_COMPILE_THRESHOLD", "0")

    @cuda.jit(sim_mode=mode)
    def k(a, olds, v):
        olds[0] = cuda.atomic.inc(a, 0, v)
        olds[1] = cuda.atomic.dec(a, 1, v)
        olds[2] = cuda.atomic.inc(a, 2, -v)

    a = np.array([5, 5, 1], dtype=np.uint32)
    olds = np.zeros(3, np.uint32)
    k[1, 1](a, olds, -3.5)
    assert list(olds) == [5, 5, 1]
    assert list(a) == [0, 0, 2]     # inc: 5 >= 0 -> 0; dec: 5 > 0 -> 0; inc: 1 < 3 -> 2


def test_cas_and_compare_and_swap():
    @cuda.jit
    def k(a, b, olds):
        olds[0] = cuda.atomic.cas(a, (1, 1), 4, 40)   # matches
        olds[1] = cuda.atomic.cas(a, (0, 0), 9, 90)   # does not
        olds[2] = cuda.atomic.compare_and_swap(b, 3, 30)

    a = np.arange(4, dtype=np.int32).reshape(2, 2) + 1
    b = np.array([3, 0], np.int64)
    olds = np.zeros(3, np.int64)
    k[1, 1](a, b, olds)
    assert a[1, 1] == 40 and a[0, 0] == 1
    assert b[0] == 30
    assert list(olds) == [4, 1, 3]


def test_integer_add_wraps():
    @cuda.jit
    def k(a):
        cuda.atomic.add(a, 0, 2**31 - 1)
        cuda.atomic.add(a, 1, -1)

    a = np.array([5, 0], np.int32)
    k[1, 1](a)
    assert a[0] == np.int32(5 + 2**31 - 1 - 2**32)
    u = np.array([0, 0], np.uint32)
    k[1, 1](u)
    assert u[1] == 2**32 - 1


def test_float_max_min_nan_rules():
    @cuda.jit
    def k(a, olds):
        olds[0] = cuda.atomic.max(a, 0, np.nan)     # max ignores a NaN operand
        olds[1] = cuda.atomic.nanmax(a, 1, 3.0)     # nanmax replaces a NaN element
        olds[2] = cuda.atomic.min(a, 2, np.nan)
        olds[3] = cuda.atomic.nanmin(a, 3, -1.0)

    a = np.array([1.0, np.nan, 2.0, np.nan])
    olds = np.zeros(4)
    k[1, 1](a, olds)
    assert list(a) == [1.0, 3.0, 2.0, -1.0]
    assert olds[0] == 1.0 and np.isnan(olds[1])


def test_atomic_needs_a_full_index():
    @cuda.jit
    def k(a):
        cuda.atomic.add(a, 0, 1)

    with pytest.raises(IndexError, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: .*needs an index for every dimension"):
        k[1, 1](np.zeros((2, 2)))


def test_atomic_on_shared_memory():
    @cuda.jit
    def k(out):
        s = cuda.shared.array(1, np.int32)
        cuda.atomic.add(s, 0, cuda.threadIdx.x)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = s[0]

    out = np.zeros(2, np.int32)
    k[2, 64](out)
    assert list(out) == [sum(range(64))] * 2

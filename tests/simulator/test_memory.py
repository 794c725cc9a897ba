"""Shared, dynamic shared, local and constant memory in the simulator."""

import numpy as np
import pytest
from numba import float32, int32

from numba_cuda.simulator import api as cuda

N = 64


def test_static_shared_reverse_per_block():
    @cuda.jit
    def reverse(a):
        s = cuda.shared.array(N, dtype=int32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = a[i]
        cuda.syncthreads()
        a[i] = s[N - 1 - t]

    a = np.arange(3 * N, dtype=np.int32)
    reverse[3, N](a)
    expect = np.concatenate([np.arange(N)[::-1] + b * N for b in range(3)])
    assert np.array_equal(a, expect)


def test_two_shared_arrays_on_one_line_do_not_alias():
    @cuda.jit
    def k(out):
        a = cuda.shared.array(4, int32); b = cuda.shared.array(4, int32)  # noqa: E702
        t = cuda.threadIdx.x
        a[t] = t
        b[t] = 10 * t
        cuda.syncthreads()
        out[t] = a[3 - t] + b[t]

    out = np.zeros(4, np.int32)
    k[1, 4](out)
    assert list(out) == [3, 12, 21, 30]


def test_2d_shared_array_with_numpy_dtype():
    @cuda.jit
    def transpose(a, out):
        tile = cuda.shared.array((8, 8), np.float64)
        x = cuda.threadIdx.x
        y = cuda.threadIdx.y
        tile[y, x] = a[y, x]
        cuda.syncthreads()
        out[y, x] = tile[x, y]

    a = np.arange(64, dtype=np.float64).reshape(8, 8)
    out = np.zeros_like(a)
    transpose[1, (8, 8)](a, out)
    assert np.array_equal(out, a.T)


def test_shared_memory_is_fresh_for_each_block():
    @cuda.jit
    def k(out):
        s = cuda.shared.array(1, int32)
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = s[0]
            s[0] = 99
        cuda.syncthreads()

    out = np.full(4, -1, np.int32)
    k[4, 2](out)
    assert list(out) == [0, 0, 0, 0]


def test_dynamic_shared_sized_by_launch_and_aliased():
    @cuda.jit
    def k(out_len, out_alias):
        f = cuda.shared.array(0, dtype=float32)
        i = cuda.shared.array(0, dtype=int32)
        t = cuda.threadIdx.x
        if t == 0:
            out_len[0] = f.size
            out_len[1] = i.size
            f[0] = 1.0
        cuda.syncthreads()
        if t == 1:
            out_alias[0] = i[0]

    out_len = np.zeros(2, np.int64)
    out_alias = np.zeros(1, np.int32)
    k[1, 2, 0, 40](out_len, out_alias)
    assert list(out_len) == [10, 10]
    assert out_alias[0] == np.float32(1.0).view(np.int32)


def test_dynamic_shared_array_in_a_sum():
    @cuda.jit
    def k(a, out):
        buf = cuda.shared.array(0, dtype=np.float64)
        t = cuda.threadIdx.x
        buf[t] = a[t]
        cuda.syncthreads()
        if t == 0:
            s = 0.0
            for j in range(buf.size):
                s += buf[j]
            out[0] = s

    a = np.arange(16, dtype=np.float64)
    out = np.zeros(1)
    k[1, 16, 0, 16 * 8](a, out)
    assert out[0] == a.sum()


def test_local_array_is_per_thread():
    @cuda.jit
    def k(out):
        loc = cuda.local.array(3, dtype=int32)
        t = cuda.threadIdx.x
        for j in range(3):
            loc[j] = t + j
        cuda.syncthreads()
        out[t] = loc[0] + loc[1] + loc[2]

    out = np.zeros(8, np.int32)
    k[1, 8](out)
    assert list(out) == [3 * t + 3 for t in range(8)]


def test_local_array_2d_numba_dtype():
    @cuda.jit
    def k(out):
        m = cuda.local.array((2, 2), float32)
        m[1, 1] = 2.5
        out[cuda.grid(1)] = m[1, 1] + m[0, 0]

    out = np.zeros(4, np.float32)
    k[1, 4](out)
    assert (out == 2.5).all()


COEFFS = np.array([1.0, 2.0, 3.0])


def test_const_array_like_reads_and_is_read_only():
    @cuda.jit
    def k(out):
        c = cuda.const.array_like(COEFFS)
        i = cuda.grid(1)
        out[i] = c[i % 3]

    out = np.zeros(6)
    k[1, 6](out)
    assert list(out) == [1, 2, 3, 1, 2, 3]

    @cuda.jit
    def writes(out):
        c = cuda.const.array_like(COEFFS)
        c[0] = 5

    with pytest.raises(ValueError, match="read-only"):
        writes[1, 1](out)
    assert COEFFS[0] == 1.0

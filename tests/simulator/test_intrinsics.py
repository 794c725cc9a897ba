"""Bit and math intrinsics in the simulator."""

import math

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


def _run1(fn, value, out_dtype):
    @cuda.jit
    def k(a, out):
        out[0] = fn(a[0])

    out = np.zeros(1, out_dtype)
    k[1, 1](np.array([value], dtype=type(value)), out)
    return out[0]


@pytest.mark.parametrize(
    "value, popc, clz, ffs",
    [
        (np.int32(0), 0, 32, 0),
        (np.int32(1), 1, 31, 1),
        (np.int32(-1), 32, 0, 1),
        (np.uint32(0x80000000), 1, 0, 32),
        (np.int64(0x10), 1, 59, 5),
        (np.uint64(2**63), 1, 0, 64),
        (np.int64(-1), 64, 0, 1),
    ],
)
def test_popc_clz_ffs(value, popc, clz, ffs):
    assert cuda.popc(value) == popc
    assert cuda.clz(value) == clz
    assert cuda.ffs(value) == ffs
    assert type(cuda.popc(value)) is type(value)


def test_brev():
    assert cuda.brev(np.uint32(1)) == np.uint32(0x80000000)
    assert cuda.brev(np.int32(1)) == np.int32(-(2**31))
    assert cuda.brev(np.uint64(1)) == np.uint64(2**63)
    assert cuda.brev(np.uint32(0xF0)) == np.uint32(0x0F000000)


def test_bit_intrinsics_in_a_kernel():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        out[i, 0] = cuda.popc(a[i])
        out[i, 1] = cuda.clz(a[i])
        out[i, 2] = cuda.ffs(a[i])
        out[i, 3] = cuda.brev(a[i])

    a = np.array([0, 1, 6, 0x7FFFFFFF], np.uint32)
    out = np.zeros((4, 4), np.uint32)
    k[1, 4](a, out)
    assert list(out[:, 0]) == [0, 1, 2, 31]
    assert list(out[:, 1]) == [32, 31, 29, 1]
    assert list(out[:, 2]) == [0, 1, 2, 1]
    assert list(out[:, 3]) == [0, 0x80000000, 0x60000000, 0xFFFFFFFE]


def test_fma_is_rounded_once():
    a, b, c = 1.0 + 2.0**-30, 1.0 - 2.0**-30, -1.0
    assert cuda.fma(a, b, c) == -(2.0**-60)   # a*b+c separately rounds to 0.0
    assert a * b + c == 0.0
    r = cuda.fma(np.float32(1.5), np.float32(2.0), np.float32(0.25))
    assert r == np.float32(3.25) and isinstance(r, np.float32)


def test_cbrt_and_selp():
    assert cuda.cbrt(27.0) == pytest.approx(3.0)
    assert cuda.cbrt(-8.0) == pytest.approx(-2.0)
    assert isinstance(cuda.cbrt(np.float32(8)), np.float32)
    assert cuda.selp(True, 1, 2) == 1 and cuda.selp(0, 1, 2) == 2


def test_math_keeps_float32_and_gives_nan_not_exceptions():
    @cuda.jit
    def k(x32, x64, out32, out64):
        out32[0] = math.sin(x32[0])
        out64[0] = math.sqrt(x64[0])          # sqrt(-1): NaN on the GPU
        out64[1] = math.log(x64[1])           # log(0): -inf
        out64[2] = math.exp(x64[2])           # overflow: inf
        out64[3] = math.acos(x64[3])          # domain error: NaN
        out64[4] = math.pow(x64[1], -1.0)     # 0 ** -1: inf
        out64[5] = math.hypot(x64[4], x64[5])
        out64[6] = math.erf(x64[5])
        out64[7] = math.floor(x64[6])
        out64[8] = math.isnan(math.sqrt(x64[0]))
        out64[9] = math.atan2(x64[5], x64[4])

    types_seen = []

    @cuda.jit
    def typ(x32):
        types_seen.append(type(math.exp(x32[0])))
        types_seen.append(type(math.exp(x32[0] * 2.0)))

    x32 = np.array([0.5], np.float32)
    x64 = np.array([-1.0, 0.0, 1000.0, 2.0, 3.0, 4.0, 2.7])
    out32 = np.zeros(1, np.float32)
    out64 = np.zeros(10)
    k[1, 1](x32, x64, out32, out64)
    assert out32[0] == np.float32(math.sin(0.5))
    assert np.isnan(out64[0]) and out64[1] == -np.inf and out64[2] == np.inf
    assert np.isnan(out64[3]) and out64[4] == np.inf
    assert out64[5] == 5.0 and out64[6] == pytest.approx(math.erf(4.0))
    assert out64[7] == 2.0 and out64[8] == 1.0
    assert out64[9] == pytest.approx(math.atan2(4.0, 3.0))
    typ[1, 1](x32)
    assert types_seen[0] is np.float32
    # float32 * Python float stays float32 under NumPy's rules, as Numba types it float64:
    # only the math call itself is specified here.
    assert types_seen[1] in (np.float32, float)


def test_fp16_namespace():
    a, b = np.float16(1.5), np.float16(2.25)
    assert cuda.fp16.hadd(a, b) == np.float16(3.75)
    assert cuda.fp16.hmul(a, b) == np.float16(1.5 * 2.25)
    assert cuda.fp16.hmax(a, b) == b and cuda.fp16.hmin(a, b) == a
    assert isinstance(cuda.fp16.hsqrt(a), np.float16)
    assert cuda.fp16.hlt(a, b) is True


def test_vector_types():
    @cuda.jit
    def k(out):
        v = cuda.float32x4(1.0, 2.0, 3.0, 4.5)
        w = cuda.int2(7)
        u = cuda.float32x3(cuda.float32x2(1, 2), 3)
        v.y = 10
        out[0] = v.x + v.y + v.z + v.w
        out[1] = w.x + w.y
        out[2] = u.z
        out[3] = isinstance(v.w, np.float32)

    out = np.zeros(4)
    k[1, 1](out)
    assert list(out) == [18.5, 14.0, 3.0, 1.0]
    assert cuda.float4 is cuda.float32x4 and cuda.ulonglong2 is cuda.uint64x2
    with pytest.raises(TypeError, match="takes 3 values"):
        cuda.int3(1, 2)

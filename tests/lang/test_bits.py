"""cuda.popc / clz / ffs / brev / fma / cbrt / selp."""

from fractions import Fraction

import numpy as np
import pytest
from numba import cuda, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64

from tests.support.typing_errors import expect_typing_error

INTEGERS = [int8, int16, int32, int64, uint8, uint16, uint32, uint64]


def bit_kernel(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.ffs(x[i])
        out[i, 3] = cuda.brev(x[i])


def float_kernel(out, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cuda.fma(a[i], b[i], c[i])
        out[i, 1] = cuda.cbrt(a[i])
        out[i, 2] = cuda.selp(a[i] > b[i], a[i], b[i])


@pytest.mark.parametrize("t", INTEGERS, ids=str)
def test_integer_intrinsics(t, ptx_one, code):
    body = code(ptx_one(bit_kernel, (uint64[:, :], t[:])))
    assert "popc.b" in body and "clz.b" in body and "brev.b" in body


def test_integer_intrinsics_every_cc(ptx_for, code):
    for cc, ptx in ptx_for(bit_kernel, (uint64[:, :], int64[:])).items():
        body = code(ptx)
        assert "popc.b64" in body and "clz.b64" in body and "brev.b64" in body, cc


@pytest.mark.parametrize("t", [float32, float64], ids=str)
def test_float_intrinsics_every_cc(t, ptx_for, code):
    suffix = "f32" if t == float32 else "f64"
    for cc, ptx in ptx_for(float_kernel, (t[:, :], t[:], t[:], t[:])).items():
        body = code(ptx)
        assert f"fma.rn.{suffix}" in body, cc
        assert f"selp.{suffix}" in body or f"selp.b{suffix[1:]}" in body or "max." in body, cc


def test_result_types():
    def k(a, b, c, d):
        return cuda.popc(a), cuda.clz(b), cuda.ffs(c), cuda.brev(d), cuda.brev(a), cuda.cbrt(a)

    _, resty = cuda.compile_ptx(k, (int16, uint8, int64, uint64), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(int16, uint8, uint32, uint64, uint32, float64)"

    def f(x, y):
        return cuda.fma(x, x, x), cuda.fma(x, y, x), cuda.selp(x > 0, y, y)

    _, resty = cuda.compile_ptx(f, (float32, float64), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float32, float64, float64)"


def popc_of_float(out, x):
    out[0] = cuda.popc(x[0])  # MARK-POPC


def selp_mixed(out, x):
    out[0] = cuda.selp(True, x[0], 1)  # MARK-SELP


def fma_arity(out, x):
    out[0] = cuda.fma(x[0], x[0])  # MARK-FMA


@pytest.mark.parametrize(
    "fn, marker, words",
    [
        (popc_of_float, "MARK-POPC", "x must be an integer"),
        (selp_mixed, "MARK-SELP", "must have the same type"),
        (fma_arity, "MARK-FMA", "takes exactly three positional arguments"),
    ],
)
def test_typing_errors_name_the_line(fn, marker, words):
    expect_typing_error(fn, (float64[:], float64[:]), marker, words)


# ---- GPU ----------------------------------------------------------------------------------


def _reference_bits(v, width):
    mask = (1 << width) - 1
    u = int(v) & mask
    popc = bin(u).count("1")
    clz = width - u.bit_length()
    ffs = (u & -u).bit_length()
    # brev works on the value converted to uint32 (uint64 for 64-bit types): a negative
    # narrow integer is sign-extended first, as any C-style integer conversion does.
    brev_width = 64 if width == 64 else 32
    brev = int(format(int(v) & ((1 << brev_width) - 1), f"0{brev_width}b")[::-1], 2)
    return popc, clz, ffs, brev


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_gpu_integer_intrinsics(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    x = np.concatenate([
        np.array([0, 1, info.max, info.min, 2, 3], dtype=dtype),
        rng.integers(info.min, info.max, size=58, dtype=dtype, endpoint=True),
    ])
    kernel = cuda.jit(bit_kernel)
    out = cuda.device_array((len(x), 4), dtype=np.uint64)
    kernel[1, 64](out, cuda.to_device(x))
    got = out.copy_to_host()
    width = info.bits
    for row, v in zip(got, x):
        assert tuple(int(c) for c in row) == _reference_bits(v, width), (v, row)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpu_float_intrinsics(dtype):
    rng = np.random.default_rng(2)
    a, b, c = (rng.uniform(-10, 10, 100).astype(dtype) for _ in range(3))
    kernel = cuda.jit(float_kernel)
    out = cuda.device_array((100, 3), dtype=dtype)
    kernel[1, 128](out, cuda.to_device(a), cuda.to_device(b), cuda.to_device(c))
    got = out.copy_to_host()
    # fma rounds once: compare with the exactly computed a * b + c, correctly rounded
    exact = np.array([float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                      for x, y, z in zip(a, b, c)]).astype(dtype)
    np.testing.assert_array_max_ulp(got[:, 0], exact, maxulp=0 if dtype == "float64" else 1)
    np.testing.assert_array_max_ulp(got[:, 1], np.cbrt(a), maxulp=2)
    np.testing.assert_array_equal(got[:, 2], np.where(a > b, a, b))

"""float16 in kernels and cuda.fp16.*: typing, PTX per compute capability (accepted by ptxas),
fallbacks below sm_53/sm_70 (CUDA 12), float16 atomics, errors, the simulator, GPU numerics."""

import math
import re

import numpy as np
import pytest
from numba import cuda
from numba.core import types
from numba.core.errors import TypingError

from numba_cuda.lang import fp16 as fp16_family
from numba_cuda.lang import half_family
from numba_cuda.simulator import api as sim

from tests.support.typing_errors import expect_typing_error

f16, f32, f64 = types.float16, types.float32, types.float64


def half_native(cc):
    return tuple(cc) >= (5, 3)


# ---- typing ------------------------------------------------------------------------------


def _resty(fn, sig):
    _, resty = cuda.compile_ptx(fn, sig, device=True, cc=(7, 5))
    return resty


@pytest.mark.parametrize("fn, sig, expected", [
    (lambda a, b: a + b, (f16, f16), f16),
    (lambda a, b: a - b, (f16, f16), f16),
    (lambda a, b: a * b, (f16, f16), f16),
    (lambda a, b: a / b, (f16, f16), f16),
    (lambda a: a * 2, (f16,), f16),            # integer literal: stays half (NumPy 2 rule)
    (lambda a: 3 - a, (f16,), f16),
    (lambda a: -a, (f16,), f16),
    (lambda a: +a, (f16,), f16),
    (lambda a: abs(a), (f16,), f16),
    (lambda a, b: a < b, (f16, f16), types.boolean),
    (lambda a, b: a != b, (f16, f16), types.boolean),
    (lambda a, b: a + b, (f16, f32), f32),     # promotion as in NumPy
    (lambda a, b: a * b, (f16, f64), f64),
    (lambda a, b: a + b, (f16, types.int64), f64),
    # int8 and bool are exact in half and stay half, as both peers type them
    (lambda a, b: a * b, (f16, types.int8), f16),
    (lambda a, b: a - b, (types.int8, f16), f16),
    (lambda a, b: a / b, (f16, types.int8), f16),
    (lambda a, b: a + b, (f16, types.boolean), f16),
    (lambda a, b: a > b, (f16, types.int8), types.boolean),
    (lambda a, b: a + b, (f16, types.uint8), f32),    # as both peers: uint8 promotes
    (lambda a, b: a + b, (f16, types.int16), f32),
    (lambda a, b: a // b, (f16, types.int8), f32),    # floor division and % promote
    (lambda a: a * 2.0, (f16,), f64),           # float literals are float64
    (lambda a: np.float16(a), (f32,), f16),
    (lambda a: types.float16(a), (types.int32,), f16),
    (lambda a: np.float32(a), (f16,), f32),
    (lambda a: int(a), (f16,), types.intp),
    (lambda a: float(a), (f16,), f16),          # as float(float32) is float32 (both peers)
    (lambda a: float(a), (f32,), f32),
    (lambda a: float(a), (types.int32,), f64),
    (lambda a, b: cuda.fp16.hadd(a, b), (f16, f16), f16),
    (lambda a, b: cuda.fp16.hadd(a, b), (f32, types.int32), f16),   # converted to half
    (lambda a, b: cuda.fp16.hge(a, b), (f16, f16), types.boolean),
])
def test_result_types(fn, sig, expected):
    assert _resty(fn, sig) == expected


# ---- PTX ---------------------------------------------------------------------------------


def arithmetic(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        r = x + y
        r = r * y
        r = r - x
        r += 1
        out[i, 0] = r
        out[i, 1] = x / y
        out[i, 2] = -x
        out[i, 3] = x if x < y else y
        out[i, 4] = np.float16(np.float32(x) * np.float32(3))


def test_operators_use_half_instructions(ptx_for, code):
    for cc, ptx in ptx_for(arithmetic, (f16[:], f16[:], f16[:, :])).items():
        body = code(ptx)
        for instruction in ("add.f16", "mul.f16", "sub.f16", "setp.lt.f16", "ld.global.b16",
                            "st.global.b16", "cvt.rn.f16.f32", "cvt.f32.f16", "neg.f16"):
            assert instruction in body, (cc, instruction)
        # half division: float32 division, one rounding back
        assert re.search(r"div\.(rn|full|approx)\.f32", body), cc
        assert "ld.global.f32" not in body and "st.global.f32" not in body


def mixed_with_int8(h, i8, out, flags):
    out[0] = h[0] * i8[0]
    out[1] = -h[0]
    flags[0] = h[0] > i8[0]
    flags[1] = h[0] == i8[0]


def test_int8_operands_compute_in_half(ptx_for, code):
    """float16 with int8 converts the int8 to half (exact) and computes there, as both peers do."""
    for cc, ptx in ptx_for(mixed_with_int8, (f16[:], types.int8[:], f16[:], types.boolean[:])).items():
        body = code(ptx)
        for instruction in ("cvt.rn.f16.s16", "mul.f16", "neg.f16", "setp.gt.f16", "setp.eq.f16"):
            assert instruction in body, (cc, instruction)
        assert ".f32" not in body, cc


def conversions(h, f, d, i, u, out_h, out_f, out_d, out_i):
    out_h[0] = np.float16(f[0])
    out_h[1] = np.float16(d[0])
    out_h[2] = np.float16(i[0])
    out_h[3] = np.float16(u[0])
    out_f[0] = np.float32(h[0])
    out_d[0] = np.float64(h[0])
    out_i[0] = np.int32(h[0])


def test_conversions(ptx_for, code):
    sig = (f16[:], f32[:], f64[:], types.int32[:], types.uint64[:], f16[:], f32[:], f64[:],
           types.int32[:])
    for cc, ptx in ptx_for(conversions, sig).items():
        body = code(ptx)
        for instruction in ("cvt.rn.f16.f32", "cvt.rn.f16.f64", "cvt.rn.f16.s32", "cvt.rn.f16.u64",
                            "cvt.f32.f16", "cvt.f64.f16", "cvt.rzi.s32.f16"):
            assert instruction in body, (cc, instruction)


#: cuda.fp16 function -> an instruction that must appear in its PTX (sm_53 and newer)
EXPECTED = {
    "hadd": "add.f16", "hsub": "sub.f16", "hmul": "mul.f16", "hdiv": "cvt.rn.f16.f32",
    "hfma": "fma.rn.f16", "hneg": "neg.f16", "habs": "abs.f16", "hmax": "setp.gt.f16",
    "hmin": "setp.lt.f16", "heq": "setp.eq.f16", "hne": "setp.ne.f16", "hneu": "setp.neu.f16", "hgt": "setp.gt.f16",
    "hge": "setp.ge.f16", "hlt": "setp.lt.f16", "hle": "setp.le.f16",
    "hsqrt": "sqrt.rn.f32", "hrsqrt": "rsqrt.approx", "hrcp": "rcp.rn.f32", "hceil": "cvt.rpi.f32.f32",
    "hfloor": "cvt.rmi.f32.f32", "htrunc": "cvt.rzi.f32.f32", "hrint": "cvt.rni.f32.f32",
}


def _arity(name):
    if name in half_family.TERNARY_FUNCTIONS:
        return 3
    two = (*half_family.EXTREMA, *fp16_family._FP16_BINARY, *fp16_family._FP16_COMPARISONS)
    return 2 if name in two else 1


def _out_type(name):
    """The element type of the array a cuda.fp16 function's result is stored in."""
    if name in fp16_family._FP16_COMPARISONS or name == "hisnan":
        return types.boolean
    return types.int32 if name == "hisinf" else f16


def _fp16_kernel(name):
    fn = getattr(cuda.fp16, name)
    arity = _arity(name)
    if arity == 1:
        def k(a, out):
            out[0] = fn(a[0])
    elif arity == 2:
        def k(a, out):
            out[0] = fn(a[0], a[1])
    else:
        def k(a, out):
            out[0] = fn(a[0], a[1], a[2])
    return k


@pytest.mark.parametrize("name", fp16_family.FP16_FUNCTIONS)
def test_every_fp16_function_compiles_and_assembles(name, ptx_for, code):
    for cc, ptx in ptx_for(_fp16_kernel(name), (f16[:], _out_type(name)[:])).items():
        body = code(ptx)
        if name in ("hceil", "hfloor", "htrunc", "hrint"):
            # libNVVM may fold the float32 round trip into the half rounding instruction
            mode = {"hceil": "rpi", "hfloor": "rmi", "htrunc": "rzi", "hrint": "rni"}[name]
            assert f"cvt.{mode}.f32.f32" in body or f"cvt.{mode}.f16.f16" in body, (cc, name)
        elif name in fp16_family._FP16_VIA_FLOAT32 or name == "hrcp":
            assert "cvt.f32.f16" in body and re.search(r"cvt\.rn(\.ftz)?\.f16\.f32", body), (cc, name)
            assert EXPECTED.get(name, "cvt.f32.f16") in body, (cc, name)
        elif name in EXPECTED:
            assert EXPECTED[name] in body, (cc, name, EXPECTED[name])


def test_fp16_namespace_matches_the_simulator():
    names = set(fp16_family.FP16_FUNCTIONS) | set(fp16_family.FP16_ATOMICS)
    assert names == {n for n in vars(sim.fp16) if not n.startswith("_")}
    assert names == {n for n in vars(cuda.fp16) if not n.startswith("_")}
    assert cuda.fp16.__name__ == "numba.cuda.fp16"


def test_fastmath_picks_fast_float32_functions(ptx_one, code):
    def k(a, out):
        out[0] = cuda.fp16.hsin(a[0])

    assert "sin.approx" in code(ptx_one(k, (f16[:], f16[:]), fastmath=True))
    assert "sin.approx" not in code(ptx_one(k, (f16[:], f16[:])))


def device_half(a, b):
    return cuda.fp16.hfma(a, b, a) + b


def test_half_scalars_as_kernel_and_device_function_arguments(ptx_for, code):
    dev = cuda.jit(device=True)(device_half)

    def k(x, y, out):
        out[0] = dev(x, y)

    for cc, ptx in ptx_for(k, (f16, f16, f16[:])).items():
        # a 2-byte parameter (libNVVM's modern reader spells it .align 2 .b8 [2])
        assert re.search(r"\.param (\.[bfu]16 \w+_param_0\b|\.align 2 \.b8 \w+_param_0\[2\])", ptx), cc
        assert "fma.rn.f16" in code(ptx)


# ---- atomics -----------------------------------------------------------------------------


def atomic_half(a, b, old):
    i = cuda.grid(1)
    old[i] = cuda.atomic.add(a, 0, b[i])
    cuda.atomic.sub(a, 1, b[i])
    cuda.atomic.add(a, (i % 2) - 2, np.float16(1))


def atomic_half_2d(a, v):
    cuda.atomic.add(a, (1, 0), v)


def test_float16_atomic_add(ptx_for, code):
    for cc, ptx in ptx_for(atomic_half, (f16[:], f16[:], f16[:])).items():
        body = code(ptx)
        if cc >= (7, 0):
            assert body.count("atom.add.noftz.f16") == 3, cc
            assert "atom.cas" not in body
    for cc, ptx in ptx_for(atomic_half_2d, (f16[:, :], f16)).items():
        assert "atom.add.noftz.f16" in code(ptx)


def test_float16_atomic_returns_the_old_half_value():
    def k(a, v):
        return cuda.atomic.add(a, 0, v)

    _, resty = cuda.compile_ptx(k, (f16[:], f32), device=True, cc=(7, 5))
    assert resty == f16


def test_float16_atomic_in_shared_memory(ptx_one, code):
    def k(out):
        s = cuda.shared.array(4, np.float16)
        cuda.atomic.add(s, 0, np.float16(0.5))
        cuda.syncthreads()
        out[0] = s[0]

    assert "atom.add.noftz.f16" in code(ptx_one(k, (f16[:],)))


# ---- CUDA 12: compute capabilities without half arithmetic or half atomics ----------------


@pytest.mark.parametrize("opt", [True, False])
def test_old_compute_capabilities_fall_back(opt, code):
    """CUDA 12 still compiles for sm_50 (no half arithmetic) and sm_60 (half arithmetic, no half
    atomics): libNVVM computes in float32 there, and the atomic is a 32-bit CAS loop."""
    from numba_cuda.compiler import capability

    from tests.support.ptx_helpers import assemble

    old = [cc for cc in ((5, 0), (6, 0)) if cc in capability.supported_ccs()]
    if not old:
        pytest.skip("this libNVVM (CUDA 13) accepts nothing below compute_75")

    def everything(a, b, out, old_values):
        out[0] = a[0] + b[0] * a[1]
        out[1] = cuda.fp16.hfma(a[0], b[0], a[1])
        out[2] = cuda.fp16.hneg(a[0])
        out[3] = cuda.fp16.habs(a[0])
        old_values[0] = cuda.atomic.add(out, 4, b[0])

    for cc in old:
        ptx, _ = cuda.compile_ptx(everything, (f16[:], f16[:], f16[:], f16[:]), cc=cc, opt=opt)
        assemble(ptx, cc)
        body = code(ptx)
        assert "atom.add.noftz.f16" not in body and "cas.b32" in body, cc
        if cc < (5, 3):
            for missing in ("add.f16", "fma.rn.f16", "neg.f16", "abs.f16"):
                assert missing not in body, (cc, missing)
            assert "cvt.rn.f16.f32" in body
        else:
            for present in ("add.f16", "fma.rn.f16", "neg.f16", "abs.f16"):
                assert present in body, (cc, present)


def test_default_compute_capability_compiles():
    def k(a):
        a[0] = a[0] + a[1]
        cuda.atomic.add(a, 2, a[0])

    ptx, _ = cuda.compile_ptx(k, (f16[:],))
    assert ".target sm_" in ptx


# ---- errors ------------------------------------------------------------------------------


def max_on_half(a):
    cuda.atomic.max(a, 0, 1)  # MARK-MAX


def hadd_on_array(a):
    a[0] = cuda.fp16.hadd(a, a)  # MARK-HADD


def atomic_wrong_index(a):
    cuda.atomic.add(a, 0, 1)  # MARK-INDEX


@pytest.mark.parametrize("fn, argty, marker, words", [
    (max_on_half, f16[:], "MARK-MAX", "arrays of float16 are not supported"),
    (hadd_on_array, f16[:], "MARK-HADD", "hadd"),
    (atomic_wrong_index, f16[:, :], "MARK-INDEX", "needs a tuple of 2 integer indices"),
])
def test_typing_errors_name_the_line(fn, argty, marker, words):
    expect_typing_error(fn, (argty,), marker, words)


def test_read_only_array_atomic_is_an_error():
    def k(a):
        cuda.atomic.add(a, 0, 1)

    with pytest.raises(TypingError, match="read-only"):
        cuda.compile_ptx(k, (types.Array(f16, 1, "C", readonly=True),), cc=(7, 5))


# ---- simulator ---------------------------------------------------------------------------


def test_simulator_float16_kernel_matches_numpy():
    @sim.jit
    def k(a, b, out):
        i = sim.grid(1)
        if i < a.size:
            out[i] = sim.fp16.hfma(a[i], b[i], a[i]) + sim.fp16.hmax(a[i], b[i])

    rng = np.random.default_rng(1)
    a = rng.standard_normal(64).astype(np.float16)
    b = rng.standard_normal(64).astype(np.float16)
    out = np.zeros(64, np.float16)
    k[2, 32](a, b, out)
    expected = (a.astype(np.float32) * b + a).astype(np.float16) + np.maximum(a, b)
    np.testing.assert_array_equal(out, expected)


def test_simulator_fp16_comparisons_and_nan():
    nan, one = np.float16("nan"), np.float16(1)
    assert sim.fp16.hne(nan, one) is False and sim.fp16.heq(nan, nan) is False  # CUDA's __hne
    assert sim.fp16.hneu(nan, one) is True and sim.fp16.hequ(nan, nan) is True
    assert sim.fp16.hmax(nan, one) == one and sim.fp16.hmin(one, nan) == one


# ---- GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_float16_operators_match_numpy():
    rng = np.random.default_rng(0)
    n = 1000
    a = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4 + 0.5).astype(np.float16)
    out = np.zeros((n, 5), np.float16)
    kernel = cuda.jit(arithmetic)
    kernel[(n + 127) // 128, 128](a, b, out)
    r = ((a + b) * b - a) + np.float16(1)
    np.testing.assert_array_equal(out[:, 0], r)
    np.testing.assert_array_equal(out[:, 1], a / b)
    np.testing.assert_array_equal(out[:, 2], -a)
    np.testing.assert_array_equal(out[:, 3], np.where(a < b, a, b))
    np.testing.assert_array_equal(out[:, 4], (a.astype(np.float32) * 3).astype(np.float16))


@pytest.mark.gpu
@pytest.mark.parametrize("name", fp16_family.FP16_FUNCTIONS)
def test_gpu_fp16_functions_match_numpy(name):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.1, 4.0, 3).astype(np.float16)
    out = np.zeros(1, {types.boolean: np.bool_, types.int32: np.int32}.get(_out_type(name), np.float16))
    cuda.jit(_fp16_kernel(name))[1, 1](a, out)
    expected = getattr(sim.fp16, name)(*a[: _arity(name)])
    if name in fp16_family._FP16_VIA_FLOAT32 and name not in ("hceil", "hfloor", "htrunc", "hrint"):
        assert math.isclose(float(out[0]), float(expected), rel_tol=2e-3), (out[0], expected)
    else:
        assert out[0] == expected, (out[0], expected)


@pytest.mark.gpu
def test_gpu_float16_atomic_add_sums():
    kernel = cuda.jit(atomic_half)
    n = 256
    b = np.full(n, 0.25, np.float16)          # sums of quarters are exact in half up to 512
    a = np.zeros(4, np.float16)
    old = np.zeros(n, np.float16)
    kernel[2, n // 2](a, b, old)
    assert a[0] == np.float16(64) and a[1] == np.float16(-64)
    assert a[2] == np.float16(n // 2) and a[3] == np.float16(n // 2)
    assert sorted(old.tolist()) == [0.25 * k for k in range(n)]


def test_support_queries_are_public():
    # numba.cuda.is_float16_supported / is_bfloat16_supported, as Numba's CUDA target offers
    from numba import cuda

    assert cuda.is_float16_supported() is True
    assert cuda.is_bfloat16_supported() is True


# ---- cuda.fp16.atomicAdd ------------------------------------------------------------------


def atomic_add_pointer(p, v):
    return cuda.fp16.atomicAdd(p, v)


def atomic_add_array(a, out):
    out[cuda.grid(1)] = cuda.fp16.atomicAdd(a[1:], np.float16(0.5))


def test_fp16_atomic_add_compiles_to_the_half_atomic(ptx_for, code):
    for cc, ptx in ptx_for(atomic_add_pointer, (types.CPointer(f16), f16), device=True).items():
        assert "atom.add.noftz.f16" in code(ptx), cc
    for cc, ptx in ptx_for(atomic_add_array, (f16[:], f16[:])).items():
        assert "atom.add.noftz.f16" in code(ptx), cc


def test_fp16_atomic_add_refuses_other_addresses():
    def k(a):
        cuda.fp16.atomicAdd(a, np.float16(1))  # MARK-ATOMICADD

    expect_typing_error(k, (types.float32[:],), "MARK-ATOMICADD", "CPointer(float16)", cc=(7, 5))


def test_simulator_fp16_atomic_add():
    a = np.array([1, 2, 3], np.float16)
    out = np.zeros(4, np.float16)
    sim.jit(atomic_add_array)[1, 4](a, out)
    assert a.tolist() == [1, 4, 3] and sorted(out.tolist()) == [2, 2.5, 3, 3.5]


@pytest.mark.gpu
def test_gpu_fp16_atomic_add():
    a = np.array([1, 2, 3], np.float16)
    out = np.zeros(4, np.float16)
    cuda.jit(atomic_add_array)[1, 4](a, out)
    assert a.tolist() == [1, 4, 3] and sorted(out.tolist()) == [2, 2.5, 3, 3.5]

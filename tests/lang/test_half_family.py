"""The 16-bit float families' shared surface and bfloat16's conversions (#19, #20): every name
compiles and ptxas accepts it at each compute capability; the simulator's answers (CUDA's
semantics: directed rounding, saturating integer conversions, NaN handling of hmax/hmin and of
the ordered/unordered comparisons); the GPU's directed float32 -> bfloat16 rounding run on the
host CPU against the simulator; the import paths; the GPU's answers equal the simulator's."""

import math

import numpy as np
import pytest
from numba import cuda
from numba.core import types

from numba_cuda.lang import bf16 as bf16_family
from numba_cuda.lang import half_family, stubs
from numba_cuda.simulator import api as sim
from numba_cuda.simulator.bfloat16 import bits_of, round_to_bfloat16

f32, f64, i64 = types.float32, types.float64, types.int64
SB = sim.bf16


def all_conversions(a, n, fout, iout):
    bf = cuda.bf16
    x = bf.bfloat16(a[0])
    fout[0] = bf.bfloat16_to_float32(bf.float32_to_bfloat16_rn(a[0]))
    fout[1] = bf.bfloat16_to_float32(bf.float32_to_bfloat16_rz(a[0]))
    fout[2] = bf.bfloat16_to_float32(bf.float32_to_bfloat16_rd(a[0]))
    fout[3] = bf.bfloat16_to_float32(bf.float32_to_bfloat16_ru(a[0]))
    fout[4] = bf.bfloat16_to_float32(bf.float64_to_bfloat16(np.float64(a[0])))
    fout[5] = bf.bfloat16_to_float32(bf.float32_to_bfloat16(a[0]))
    fout[6] = bf.bfloat16_to_float32(bf.int64_to_bfloat16_rn(n[0]))
    fout[7] = bf.bfloat16_to_float32(bf.int64_to_bfloat16_rz(n[0]))
    fout[8] = bf.bfloat16_to_float32(bf.int64_to_bfloat16_rd(n[0]))
    fout[9] = bf.bfloat16_to_float32(bf.int64_to_bfloat16_ru(n[0]))
    fout[10] = bf.bfloat16_to_float32(bf.uint64_to_bfloat16_rn(np.uint64(n[1])))
    fout[11] = bf.bfloat16_to_float32(bf.int32_to_bfloat16_ru(np.int32(n[2])))
    fout[12] = bf.bfloat16_to_float32(bf.uint32_to_bfloat16_rd(np.uint32(n[2])))
    fout[13] = bf.bfloat16_to_float32(bf.int16_to_bfloat16_rn(np.int16(n[3])))
    fout[14] = bf.bfloat16_to_float32(bf.uint16_to_bfloat16_rz(np.uint16(n[3])))
    iout[0] = bf.bfloat16_to_int8_rz(x)
    iout[1] = bf.bfloat16_to_uint8_rz(x)
    iout[2] = bf.bfloat16_to_int16_rn(x)
    iout[3] = bf.bfloat16_to_int16_rd(x)
    iout[4] = bf.bfloat16_to_uint16_ru(x)
    iout[5] = bf.bfloat16_to_int32_rn(x)
    iout[6] = bf.bfloat16_to_int32_rz(x)
    iout[7] = bf.bfloat16_to_uint32_ru(x)
    iout[8] = bf.bfloat16_to_int64_rd(x)
    iout[9] = bf.bfloat16_to_uint64_rn(x)
    iout[10] = bf.bfloat16_as_int16(x)
    iout[11] = bf.bfloat16_as_uint16(bf.uint16_as_bfloat16(np.uint16(n[3])))
    iout[12] = bf.bfloat16_as_int16(bf.int16_as_bfloat16(np.int16(n[3])))
    iout[13] = bf.hisinf(x)
    iout[14] = bf.hisnan(x)


def _run_all_conversions(jit, a, n):
    fout = np.zeros(15, np.float32)
    iout = np.zeros(15, np.int64)
    jit(all_conversions)[1, 1](np.array([a], np.float32), np.array(n, np.int64), fout, iout)
    return fout, iout


def test_every_conversion_compiles_and_assembles(ptx_for):
    ptx_for(all_conversions, (f32[:], i64[:], f32[:], i64[:]))


@pytest.mark.parametrize("name", sorted(stubs.BF16_CONVERSIONS))
def test_every_conversion_types(name):
    fn = getattr(cuda.bf16, name)
    assert fn is getattr(cuda.bf16, stubs.BF16_CONVERSIONS[name])  # one object, both names
    if name.startswith("bfloat162") or name.startswith("bfloat16_as"):
        def k(a):
            return fn(cuda.bf16.bfloat16(a))
    else:
        def k(a):
            return fn(a)
    argty = f32 if name.startswith(("float", "double", "bfloat16")) else types.int16
    _, resty = cuda.compile_ptx(k, (argty,), device=True, cc=(8, 0))
    if "2bfloat16" in name or name.endswith("_as_bfloat16"):
        assert resty == bf16_family.bfloat16
    else:
        assert isinstance(resty, (types.Integer, types.Float)), resty


def test_conversion_refuses_a_wrong_argument():
    from tests.support.typing_errors import expect_typing_error

    def k(a):
        cuda.bf16.bfloat16_to_int32_rn(a[0])  # MARK-CONV

    expect_typing_error(k, (f32[:],), "MARK-CONV", "takes bfloat16", cc=(8, 0))


@pytest.mark.parametrize("name", half_family.COMMON_FUNCTIONS)
def test_the_shared_functions_exist_in_both_families_and_the_simulator(name):
    for ns in (cuda.fp16, cuda.bf16, sim.fp16, sim.bf16):
        assert callable(getattr(ns, name)), (ns, name)


# ---- simulator: CUDA's answers ------------------------------------------------------------


def test_simulator_directed_rounding_from_float32():
    v = 1.0 + 2 ** -8 + 2 ** -20  # between 1.0 and 1.0078125, nearer to the upper one
    assert round_to_bfloat16(v, "rn") == 1.0 + 2 ** -7
    assert round_to_bfloat16(v, "rz") == 1.0 and round_to_bfloat16(v, "rd") == 1.0
    assert round_to_bfloat16(v, "ru") == 1.0 + 2 ** -7
    assert round_to_bfloat16(-v, "rd") == -(1.0 + 2 ** -7) and round_to_bfloat16(-v, "ru") == -1.0
    assert round_to_bfloat16(-v, "rz") == -1.0
    big = 3.4e38  # above bfloat16's largest finite value
    top = (2 - 2 ** -7) * 2.0 ** 127
    assert round_to_bfloat16(big, "rz") == top and round_to_bfloat16(big, "rd") == top
    assert round_to_bfloat16(big, "ru") == math.inf and round_to_bfloat16(big, "rn") == math.inf
    assert math.isnan(round_to_bfloat16(math.nan, "rz"))


def test_simulator_integer_conversions_round_exactly():
    n = 2 ** 62 + 2 ** 54 + 1  # just above a tie: rn must go up (float64 would round to the tie)
    assert float(SB.int64_to_bfloat16_rn(n)) == 2 ** 62 + 2 ** 55
    assert float(SB.int64_to_bfloat16_rz(n)) == 2 ** 62
    assert float(SB.int64_to_bfloat16_ru(-n)) == -(2 ** 62)
    assert float(SB.int16_to_bfloat16_rn(789)) == 788 and float(SB.uint16_to_bfloat16_ru(789)) == 792


def test_simulator_bfloat16_to_integer_saturates_and_maps_nan_to_zero():
    b = SB.bfloat16
    assert [SB.bfloat16_to_int32_rn(b(2.5)), SB.bfloat16_to_int32_rz(b(-2.5)),
            SB.bfloat16_to_int32_rd(b(-2.5)), SB.bfloat16_to_int32_ru(b(2.25))] == [2, -2, -3, 3]
    assert SB.bfloat16_to_int8_rz(b(300.0)) == 127 and SB.bfloat16_to_uint8_rz(b(-3.0)) == 0
    assert SB.bfloat16_to_int16_rn(b(1e6)) == 32767 and SB.bfloat16_to_uint32_rn(b(-1.0)) == 0
    assert SB.bfloat16_to_int64_rn(b(math.nan)) == 0
    assert SB.bfloat16_to_uint64_ru(b(math.inf)) == np.iinfo(np.uint64).max


def test_simulator_bit_reinterpretations():
    assert SB.bfloat16_as_int16(SB.bfloat16(1.5)) == 0x3FC0
    assert float(SB.int16_as_bfloat16(np.int16(0x3FC0))) == 1.5
    assert SB.bfloat16_as_uint16(SB.bfloat16(-2.0)) == 0xC000
    assert float(SB.uint16_as_bfloat16(0xC000)) == -2.0
    assert SB.bfloat16_as_int16(SB.bfloat16(-2.0)) == np.int16(-16384)


@pytest.mark.parametrize("ns", [sim.fp16, sim.bf16], ids=["fp16", "bf16"])
def test_simulator_extrema_comparisons_and_classification(ns):
    h = np.float16 if ns is sim.fp16 else SB.bfloat16
    nan, one, two = h(math.nan), h(1.0), h(2.0)
    assert float(ns.hmax(nan, one)) == 1.0 and float(ns.hmin(one, nan)) == 1.0
    assert math.isnan(float(ns.hmax_nan(nan, one))) and math.isnan(float(ns.hmin_nan(one, nan)))
    assert float(ns.hmax_nan(one, two)) == 2.0 and float(ns.hmin_nan(one, two)) == 1.0
    assert math.copysign(1, float(ns.hmax(h(-0.0), h(0.0)))) == 1  # +0 is the larger zero
    assert math.copysign(1, float(ns.hmin(h(0.0), h(-0.0)))) == -1
    assert ns.hne(nan, one) is False and ns.hneu(nan, one) is True
    assert ns.hlt(one, two) is True and ns.hltu(nan, two) is True and ns.hlt(nan, two) is False
    assert ns.hisnan(nan) is True and ns.hisnan(one) is False
    assert [ns.hisinf(h(math.inf)), ns.hisinf(h(-math.inf)), ns.hisinf(one)] == [1, -1, 0]


def test_simulator_math_on_bfloat16_and_float16_stays_16_bit():
    @sim.jit
    def k(out_b, out_h):
        x = sim.bf16.bfloat16(3.14)
        out_b[0] = np.float32(math.sqrt(x))
        out_b[1] = np.float32(math.floor(x))
        out_b[2] = np.float32(math.tanh(x) if isinstance(math.tanh(x), sim.bf16.bfloat16) else -1)
        h = np.float16(0.5)
        out_h[0] = math.tanh(h) if isinstance(math.tanh(h), np.float16) else -1
        out_h[1] = math.exp2(h) if isinstance(math.exp2(h), np.float16) else -1

    out_b = np.zeros(3, np.float32)
    out_h = np.zeros(2, np.float16)
    k[1, 1](out_b, out_h)
    x = round_to_bfloat16(3.14)
    assert out_b.tolist() == [round_to_bfloat16(np.sqrt(np.float32(x))), 3.0,
                              round_to_bfloat16(np.tanh(np.float32(x)))]
    assert out_h.tolist() == [np.float16(np.tanh(np.float32(0.5))), np.float16(2 ** 0.5)]


def test_nv_bfloat16_is_the_type_in_kernels():
    from numba.cuda._internal.cuda_bf16 import nv_bfloat16

    def k(a):
        x = nv_bfloat16(a)
        return isinstance(x, nv_bfloat16) and cuda.bf16.heq(x, cuda.bf16.bfloat16(a))

    assert cuda.compile_ptx(k, (f32,), device=True, cc=(7, 5))[1] == types.boolean


def test_math_on_bfloat16_types_as_bfloat16():
    def on_bf16(fn):
        return lambda a: fn(cuda.bf16.bfloat16(a))

    def on_f16(fn):
        return lambda a: fn(a)

    for fn in half_family.MATH:
        assert cuda.compile_ptx(on_bf16(fn), (f32,), device=True, cc=(8, 0))[1] == bf16_family.bfloat16, fn
    for fn in (math.tanh, math.exp2):
        assert cuda.compile_ptx(on_f16(fn), (types.float16,), device=True, cc=(8, 0))[1] == types.float16


def test_simulator_kernel_runs_every_conversion():
    fout, iout = _run_all_conversions(sim.jit, 3.14159, [789, 2 ** 40 + 3, 100001, 0x3FC0])
    x = round_to_bfloat16(np.float32(3.14159))
    assert fout[:6].tolist() == [x, 3.140625, 3.140625, 3.15625, x, x]
    assert fout[6:10].tolist() == [788.0, 788.0, 788.0, 792.0]
    assert iout[:10].tolist() == [3, 3, 3, 3, 4, 3, 3, 4, 3, 3]
    assert iout[10] == bits_of(x) and iout[11] == 0x3FC0 and iout[12] == 0x3FC0
    assert iout[13:].tolist() == [0, 0]


# ---- the GPU's directed rounding on the host CPU -------------------------------------------

_HOST_DIRECTED = r"""
import ctypes, math, numpy as np
import llvmlite.binding as llvm
from llvmlite import ir
from numba_cuda.lang import bf16_conversions as conv
from numba_cuda.simulator.bfloat16 import round_to_bfloat16

llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
mod = ir.Module("r")
for mode in ("rz", "rd", "ru"):
    fn = ir.Function(mod, ir.FunctionType(ir.IntType(16), [ir.FloatType()]), "round_" + mode)
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(conv.float32_to_bf16(b, fn.args[0], mode))
tm = llvm.Target.from_default_triple().create_target_machine()
engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(mod)), tm)
engine.finalize_object()
rng = np.random.default_rng(1)
bits = np.concatenate([rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
                       np.array([0, 0x80000000, 0x7f800000, 0xff800000, 0x7f7fffff, 0xff7fffff,
                                 0x00000001, 0x80000001, 0x3f808000, 0x3f800001], np.uint32)])
bad = 0
for mode in ("rz", "rd", "ru"):
    f = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(engine.get_function_address("round_" + mode))
    for v in bits.view(np.float32).tolist():
        got = f(v)
        if math.isnan(v):
            bad += not ((got & 0x7F80) == 0x7F80 and (got & 0x7F))
            continue
        want = int(np.array(round_to_bfloat16(v, mode), np.float32).view(np.uint32)) >> 16
        bad += got != want
print("MISMATCHES", bad)
"""


def test_gpu_directed_rounding_matches_the_simulator_on_the_host(run_python):
    proc = run_python(_HOST_DIRECTED, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MISMATCHES 0" in proc.stdout, proc.stdout


# ---- import paths -------------------------------------------------------------------------

_IMPORTS = r"""
import numba.cuda.bf16 as bf16, numba.cuda.fp16 as fp16
from numba import cuda
from numba.cuda.bf16 import bfloat16, float32_to_bfloat16_rn, int16_as_bfloat16, heq, hmax_nan
from numba.cuda.fp16 import htanh, htanh_approx, hisinf
from numba.cuda.types import bfloat16 as bf_type
assert bf16 is cuda.bf16 and fp16 is cuda.fp16
assert cuda.is_fp8_supported() is True
from numba.cuda._internal.cuda_bf16 import nv_bfloat16, htrunc as internal_htrunc
assert internal_htrunc is bf16.htrunc and nv_bfloat16 is cuda.bfloat16
print("TYPE", cuda.bfloat16)
"""


@pytest.mark.parametrize("simulator", ["0", "1"])
def test_import_paths(simulator):
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM=simulator)
    proc = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ("TYPE bfloat16" in proc.stdout) == (simulator == "0"), proc.stdout


# ---- GPU ----------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("a, n", [(3.14159, [789, 2 ** 40 + 3, 100001, 0x3FC0]),
                                  (-1.0e6, [-(2 ** 62 + 2 ** 54 + 1), 7, -5, -2]),
                                  (float("nan"), [0, 0, 0, 0x7FC0])])
def test_gpu_conversions_match_the_simulator(a, n):
    got = _run_all_conversions(cuda.jit, a, n)
    want = _run_all_conversions(sim.jit, a, n)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1][:10], want[1][:10])
    np.testing.assert_array_equal(got[1][13:], want[1][13:])


@pytest.mark.parametrize("ns", [sim.fp16, sim.bf16], ids=["fp16", "bf16"])
def test_simulator_saturating_and_relu_variants(ns):
    h = np.float16 if ns is sim.fp16 else SB.bfloat16
    one, half, nan = h(1.0), h(0.5), h(math.nan)
    assert float(ns.hadd_sat(one, half)) == 1.0 and float(ns.hsub_sat(half, one)) == 0.0
    assert float(ns.hmul_sat(half, half)) == 0.25 and float(ns.hadd_sat(nan, one)) == 0.0
    assert float(ns.hfma_sat(one, one, one)) == 1.0 and float(ns.hadd_rn(one, half)) == 1.5
    assert float(ns.hfma_relu(h(-1.5), h(2.0), h(0.0))) == 0.0
    assert float(ns.hfma_relu(half, half, half)) == 0.75 and math.isnan(float(ns.hfma_relu(nan, one, one)))


def test_simulator_fp16_hfma_rounds_once():
    # 1 + 2**-11 is halfway between 1 and the next half; the product's 2**-21 puts the exact
    # result above it, so the single rounding goes up (rounding the sum first would tie to 1)
    a = np.float16(2.0 ** -11 * (1 + 2.0 ** -10))
    got = sim.fp16.hfma(a, np.float16(1.0), np.float16(1.0))
    assert got == np.float16(1 + 2.0 ** -10)
    rng = np.random.default_rng(4)
    from fractions import Fraction
    for _ in range(300):
        a, b, c = (np.float16(v) for v in rng.standard_normal(3) * 8)
        exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
        lower = max((v for v in (np.float16(float(exact)), np.nextafter(np.float16(float(exact)), np.float16(-np.inf)))
                     if Fraction(float(v)) <= exact), key=float)
        upper = np.nextafter(lower, np.float16(np.inf))
        got = sim.fp16.hfma(a, b, c)
        assert got in (lower, upper)
        d_low, d_up = exact - Fraction(float(lower)), Fraction(float(upper)) - exact
        if d_low != d_up:
            assert got == (lower if d_low < d_up else upper), (a, b, c)


@pytest.mark.parametrize("cc", [(5, 0), (5, 3), (6, 0), (7, 0)])
def test_below_sm_75_everything_assembles(cc):
    """CUDA 12's libNVVM still targets sm_50..70: the software paths (bfloat16 arithmetic and
    conversions, FP8, the float16 atomic's compare-and-swap loop) must assemble there."""
    from numba_cuda.compiler import capability

    from tests.lang.test_fp8 import conversions
    from tests.support.ptx_helpers import assemble

    if cc not in capability.supported_ccs():
        pytest.skip(f"this libNVVM does not accept compute_{cc[0]}{cc[1]} (CUDA 13 starts at 7.5)")
    f16 = types.float16

    def fp16_atomic(p, v):
        cuda.fp16.atomicAdd(p, cuda.fp16.hfma_relu(v, v, v))

    for fn, sig in ((all_conversions, (f32[:], i64[:], f32[:], i64[:])),
                    (conversions, (f32[:], f64[:], i64[:], f32[:])),
                    (fp16_atomic, (types.CPointer(f16), f16))):
        ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
        assemble(ptx, cc)
        assert ("atom.add.noftz.f16" in ptx) == (fn is fp16_atomic and cc >= (7, 0))

"""cuda.bf16: bfloat16 typing, PTX per compute capability (native from sm_80/sm_90, float32 below;
ptxas accepts all), the software rounding checked on the host CPU, errors, simulator, GPU."""

import re

import numpy as np
import pytest
from numba import cuda
from numba.core import types

from numba_cuda.lang import bf16 as bf16_family
from numba_cuda.lang import half_family, stubs
from numba_cuda.simulator import api as sim
from numba_cuda.simulator.bfloat16 import round_to_bfloat16

from tests.support.typing_errors import expect_typing_error

BF = bf16_family.bfloat16
f32, f64 = types.float32, types.float64


def _resty(fn, sig):
    return cuda.compile_ptx(fn, sig, device=True, cc=(8, 0))[1]


B = cuda.bf16.bfloat16


@pytest.mark.parametrize("fn, sig, expected", [
    (lambda x: B(x), (f32,), BF),
    (lambda x: B(x), (types.int64,), BF),
    (lambda x, y: B(x) + B(y), (f32, f32), BF),
    (lambda x, y: B(x) / B(y), (f32, f32), BF),
    (lambda x: B(x) * 2, (f32,), BF),
    (lambda x: -B(x), (f32,), BF),
    (lambda x: abs(B(x)), (f32,), BF),
    (lambda x, y: B(x) < B(y), (f32, f32), types.boolean),
    (lambda x, y: B(x) + y, (f32, f32), f32),
    (lambda x, y: B(x) + y, (f32, f64), f64),
    (lambda x: np.float32(B(x)), (f64,), f32),
    (lambda x: np.int32(B(x)), (f32,), types.int32),
    (lambda x, y: cuda.bf16.hfma(B(x), B(y), B(x)), (f32, f32), BF),
])
def test_result_types(fn, sig, expected):
    assert _resty(fn, sig) == expected


def everything(a, d, out):
    i = cuda.grid(1)
    x = B(a[i])
    y = B(d[i])
    r = x + y
    r = r * x - y / x
    r = -r
    r = abs(r)
    r = cuda.bf16.hfma(r, x, y)
    r = cuda.bf16.hadd_sat(r, x) + cuda.bf16.hfma_relu(x, y, r) + cuda.bf16.htanh_approx(x)
    if r < x:
        out[i] = np.float32(r)
    else:
        out[i] = np.float32(cuda.bf16.hsqrt(r))


@pytest.mark.parametrize("opt", [True, False])
def test_lowering_per_compute_capability(ptx_for, code, opt):
    from numba_cuda.compiler import capability

    from tests.support.ptx_helpers import assemble

    from .conftest import available_ccs

    ccs = list(available_ccs())
    ccs += [cc for cc in ((5, 0), (8, 6)) if cc in capability.supported_ccs()]
    for cc in ccs:
        ptx, _ = cuda.compile_ptx(everything, (f32[:], f64[:], f32[:]), cc=cc, opt=opt)
        assemble(ptx, cc)
        body = code(ptx)
        if cc >= (9, 0):
            for ins in ("add.rn.bf16", "sub.rn.bf16", "mul.rn.bf16", "fma.rn.bf16", "fma.rn.relu.bf16",
                        "neg.bf16", "abs.bf16", "cvt.rn.bf16.f32", "tanh.approx.bf16"):
                assert ins in body, (cc, ins)
        elif cc >= (8, 0):
            for ins in ("fma.rn.bf16", "fma.rn.relu.bf16", "neg.bf16", "abs.bf16", "cvt.rn.bf16.f32"):
                assert ins in body, (cc, ins)
            for ins in ("add.rn.bf16", "mul.rn.bf16", "tanh.approx.bf16"):
                assert ins not in body, (cc, ins)
        else:
            assert not re.search(r"\.bf16\b", body), cc
        assert "cvt.rz.f32.f64" in body  # float64 -> bfloat16 rounds to odd first


@pytest.mark.parametrize("name", bf16_family.BF16_FUNCTIONS)
def test_every_bf16_function_compiles_and_assembles(name, ptx_for):
    fn = getattr(cuda.bf16, name)
    two = (*bf16_family._BINARY, *half_family.EXTREMA, *half_family.COMPARISONS)
    arity = 3 if name in bf16_family._TERNARY else 2 if name in two else 1
    if arity == 1:
        def k(a, out):
            out[0] = np.float32(fn(B(a[0])))
    elif arity == 2:
        def k(a, out):
            out[0] = np.float32(fn(B(a[0]), B(a[1])))
    else:
        def k(a, out):
            out[0] = np.float32(fn(B(a[0]), B(a[1]), B(a[2])))
    ptx_for(k, (f32[:], f32[:]))


def test_bf16_namespace_matches_the_simulator():
    sim_names = {n for n in vars(sim.bf16) if not n.startswith("_")}
    conversions = set(stubs.BF16_CONVERSIONS) | set(stubs.BF16_CONVERSIONS.values())
    assert sim_names == set(bf16_family.BF16_FUNCTIONS) | {"bfloat16"} | conversions
    assert sim_names == {n for n in vars(cuda.bf16) if not n.startswith("_")}


# ---- the software rounding (sm_5x-7x), run on the host CPU in a fresh process ----------

_HOST_ROUNDING = r"""
import ctypes, numpy as np
import llvmlite.binding as llvm
from llvmlite import ir
from numba_cuda.lang import bf16

llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
mod = ir.Module("r")
fn = ir.Function(mod, ir.FunctionType(ir.IntType(16), [ir.FloatType()]), "round_bf16")
b = ir.IRBuilder(fn.append_basic_block())
b.ret(bf16._round_float32_software(b, fn.args[0]))
fn2 = ir.Function(mod, ir.FunctionType(ir.FloatType(), [ir.IntType(16)]), "widen")
b = ir.IRBuilder(fn2.append_basic_block())
b.ret(bf16.to_float32(b, fn2.args[0]))
tm = llvm.Target.from_default_triple().create_target_machine()
engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(mod)), tm)
engine.finalize_object()
rnd = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(engine.get_function_address("round_bf16"))
widen = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_uint16)(engine.get_function_address("widen"))
rng = np.random.default_rng(0)
bits = np.concatenate([rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32),
                       np.array([0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff,
                                 0x00008000, 0x3f808000, 0x3f818000, 0x00000001], np.uint32)])
vals = bits.view(np.float32)
bad = 0
for v in vals.tolist():
    got = rnd(v)
    if np.isnan(v):
        bad += not (np.isnan(widen(got)) and (got & 0x40))
        continue
    want = np.float32(REF(v)).view(np.uint32) >> 16
    bad += int(got != want) + int(widen(got) != np.float32(REF(v)))
print("MISMATCHES", bad)
"""


def test_software_rounding_is_round_to_nearest_even(run_python):
    code = ("from numba_cuda.simulator.bfloat16 import round_to_bfloat16 as REF\n" + _HOST_ROUNDING)
    proc = run_python(code, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MISMATCHES 0" in proc.stdout, proc.stdout


def test_simulator_rounding_reference():
    # independent check of the reference itself on values with known neighbours
    assert round_to_bfloat16(1.0 + 2 ** -8) == 1.0            # tie -> even (1.0)
    assert round_to_bfloat16(1.0 + 3 * 2 ** -8) == 1.0 + 2 ** -6  # tie -> even (upper)
    assert round_to_bfloat16(1.0 + 2 ** -8 + 2 ** -30) == 1.0 + 2 ** -7  # just above the tie
    assert round_to_bfloat16(3.4e38) == float("inf")
    assert round_to_bfloat16(-(2.0 ** -133)) == -(2.0 ** -133)


# ---- errors ------------------------------------------------------------------------------


def hadd_on_float(a):
    a[0] = cuda.bf16.hadd(a[0], a[1])  # MARK-HADD


def construct_from_array(a):
    cuda.bf16.bfloat16(a)  # MARK-CTOR


@pytest.mark.parametrize("fn, marker, words", [
    (hadd_on_float, "MARK-HADD", "convert with cuda.bf16.bfloat16(x)"),
    (construct_from_array, "MARK-CTOR", "x must be a number"),
])
def test_typing_errors_name_the_line(fn, marker, words):
    expect_typing_error(fn, (f32[:],), marker, words, cc=(8, 0))


# ---- simulator ---------------------------------------------------------------------------


def test_simulator_bfloat16_kernel():
    @sim.jit
    def k(a, out):
        i = sim.grid(1)
        x = sim.bf16.bfloat16(a[i])
        out[i] = np.float32(sim.bf16.hfma(x, x, x) + 1)

    a = np.array([1.0, 1.5, 3.14159, -2.0], np.float32)
    out = np.zeros(4, np.float32)
    k[1, 4](a, out)
    xs = [round_to_bfloat16(v) for v in a.tolist()]
    expected = [round_to_bfloat16(round_to_bfloat16(x * x + x) + 1) for x in xs]
    assert out.tolist() == expected


# ---- GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_bfloat16_arithmetic_is_correctly_rounded():
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            x = B(a[i])
            y = B(b[i])
            out[i, 0] = np.float32(x + y)
            out[i, 1] = np.float32(x * y)
            out[i, 2] = np.float32(x - y)
            out[i, 3] = np.float32(x / y)
            out[i, 4] = np.float32(cuda.bf16.hfma(x, y, x))
            out[i, 5] = np.float32(B(np.float64(a[i]) * 3.0))

    rng = np.random.default_rng(3)
    n = 512
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.standard_normal(n) + 0.1).astype(np.float32)
    out = np.zeros((n, 6), np.float32)
    cuda.jit(k)[4, 128](a, b, out)
    r = round_to_bfloat16
    for i in range(n):
        x, y = r(a[i]), r(b[i])
        assert out[i].tolist() == [r(x + y), r(x * y), r(x - y), r(x / y), r(x * y + x),
                                   r(float(a[i]) * 3.0)], i

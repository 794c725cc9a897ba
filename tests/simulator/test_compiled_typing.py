"""The simulator computes with the types the compiled kernel gives (Numba's typing), not NumPy's.

Each test below failed before the simulator typed its operations (issue 21); the last one runs
seeded random programs (``typing_programs``) against Numba's CPU compilation of the same
function, which shares the front end and the operator typing with the CUDA target.
"""

import math
import operator

import numba
import numpy as np
import pytest
from numba.core import types

from numba_cuda.simulator import api as cuda
from tests.simulator import inline_cases, typing_programs


def numba_type(value):
    """The Numba type of a simulated value (a Python int is an int64, as Numba types it)."""
    return numba.typeof(value)


def _run(kernel, *arrays):
    kernel[1, 1](*arrays)
    return arrays


def test_arithmetic_widens_as_compiled():
    @cuda.jit
    def k(a, b, out):
        out[0] = a[0] * 4
        out[1] = a[0] * a[0]
        out[2] = b[0] + 127

    a = np.array([2147483647], np.int32)
    b = np.array([254], np.uint8)
    out = np.zeros(3, np.int64)
    _run(k, a, b, out)
    assert list(out) == [8589934588, 4611686014132420609, 381]


def test_mixed_signedness_operators_run():
    @cuda.jit
    def k(i, u, out, fout):
        out[0] = i[0] ^ u[0]
        out[1] = i[0] & u[0]
        out[2] = i[0] | u[0]
        out[3] = i[0] << u[1]
        out[4] = i[0] >> u[1]
        out[5] = np.uint32(u[1]) + (-4)         # uint32 + negative literal: int64
        out[6] = i[1] ** (-i[2])                 # int ** negative int: 0 (|base| > 1)
        fout[0] = u[0] // i[0]                   # uint64 // int64: float64 in Numba
        fout[1] = -i[0]

    i = np.array([6, 5, 2], np.int64)
    u = np.array([3, 1], np.uint64)
    out = np.zeros(7, np.int64)
    fout = np.zeros(2, np.float64)
    _run(k, i, u, out, fout)
    assert list(out) == [5, 2, 7, 12, 3, -3, 0]

    @cuda.jit
    def overflowing_division(a, out):
        out[0] = a[0] // a[1]     # int64 minimum // -1: 0 in Numba's lowering, not a wrap
        out[1] = a[0] % a[1]

    a = np.array([-2**63, -1], np.int64)
    out = np.ones(2, np.int64)
    _run(overflowing_division, a, out)
    assert list(out) == [0, 0]
    assert list(fout) == [0.0, -6.0]


def test_result_types_follow_numba_typing():
    seen = {}

    @cuda.jit
    def k(a, b, f, u):
        seen["uint64 // int64"] = u[0] // a[0]
        seen["-int32"] = -b[0]
        seen["~uint8"] = ~np.uint8(b[0])
        seen["float32 * 1.5"] = f[0] * 1.5
        seen["float32 * float32"] = f[0] * f[0]
        seen["int32 / int32"] = b[0] / b[0]

    k[1, 1](np.array([2], np.int64), np.array([3], np.int32), np.array([1.25], np.float32),
            np.array([7], np.uint64))
    expected = {
        "uint64 // int64": (operator.floordiv, (types.uint64, types.int64)),
        "-int32": (operator.neg, (types.int32,)),
        "~uint8": (operator.invert, (types.uint8,)),
        "float32 * 1.5": (operator.mul, (types.float32, types.float64)),
        "float32 * float32": (operator.mul, (types.float32, types.float32)),
        "int32 / int32": (operator.truediv, (types.int32, types.int32)),
    }
    ctx = numba.core.typing.Context()
    ctx.refresh()
    for what, (op, args) in expected.items():
        want = ctx.resolve_function_type(ctx.resolve_value_type(op), args, {}).return_type
        assert numba_type(seen[what]) == want, what
    assert seen["float32 * 1.5"] == 1.875 and numba_type(seen["float32 * 1.5"]) == types.float64


def test_shift_counts_clamp_as_ptx():
    @cuda.jit
    def k(a, n, out):
        out[0] = a[0] << n[0]      # negative count: as a .u32 it is >= 64 -> 0
        out[1] = a[1] >> n[1]      # count 100 on a negative value: all sign bits
        out[2] = a[0] << n[2]      # count 64: 0
        out[3] = a[0] << n[3]      # in range
        x, m = int(a[0]), int(n[0])  # Python ints (int64 to the typing): Python raises
        out[4] = x << m
        out[5] = x >> m

    a = np.array([5, -8], np.int64)
    n = np.array([-1, 100, 64, 3], np.int64)
    out = np.zeros(6, np.int64)
    _run(k, a, n, out)
    assert list(out) == [0, -1, 0, 40, 0, 0]


def _cuda_return_type(func, argtypes):
    """What the compiled kernel's typing (the CUDA typing context) gives ``func(*argtypes)``."""
    from numba_cuda.compiler.typing_context import CUDATypingContext

    ctx = CUDATypingContext()
    ctx.refresh()
    return ctx.resolve_function_type(ctx.resolve_value_type(func), argtypes, {}).return_type


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc"])
def test_rounding_functions_take_the_compiled_type_and_never_raise(name):
    fn = getattr(math, name)
    seen = []

    @cuda.jit
    def k(f32, f64, i32):  # ROUND: the function under test, a global read at the first launch
        seen.append((ROUND(f32[0]), ROUND(f64[0]), ROUND(f64[1]), ROUND(f64[2]), ROUND(i32[0]),
                     ROUND(f64[3])))

    k.py_func.__globals__["ROUND"] = fn
    try:
        k[1, 1](np.array([2.5], np.float32), np.array([math.nan, math.inf, -2.5, 1e30]),
                np.array([7], np.int32))
    finally:
        del k.py_func.__globals__["ROUND"]
    (r32, rnan, rinf, rneg, rint, rbig), = seen
    assert numba_type(r32) == _cuda_return_type(fn, (types.float32,))
    assert numba_type(rnan) == _cuda_return_type(fn, (types.float64,))
    assert numba_type(rint) == _cuda_return_type(fn, (types.int32,))
    if isinstance(numba_type(rnan), types.Float):
        assert math.isnan(rnan) and rinf == math.inf and rbig == fn(1e30)
    else:  # an integer result converts as cvt.rzi: NaN -> 0, saturated at the bounds
        assert rnan == 0 and rinf == 2**63 - 1 and rbig == 2**63 - 1
    assert rneg == fn(-2.5) and rint == 7


def test_round_of_nan_and_huge_values_saturates():
    @cuda.jit
    def k(x, out):
        out[0] = round(x[0])
        out[1] = round(x[1])
        out[2] = round(x[2]) - 1      # saturated first (2**63 - 1), then int64 arithmetic

    x = np.array([math.nan, -1e300, 1e300])
    out = np.zeros(3, np.int64)
    _run(k, x, out)
    assert list(out) == [0, -2**63, 2**63 - 2]


def test_float_power_of_an_integer_multiplies_as_compiled():
    @cuda.jit
    def k(x, n, out, out32):
        out[0] = x[0] ** n[0]
        out32[0] = np.float32(x[0]) ** n[0]

    x = np.array([1.0000001], np.float64)
    n = np.array([12345], np.int64)
    out = np.zeros(1)
    out32 = np.zeros(1, np.float32)
    _run(k, x, n, out, out32)

    @numba.njit(error_model="numpy")
    def ref(a, m):
        return a ** m, np.float32(a) ** m

    want, want32 = ref(1.0000001, np.int64(12345))
    assert out[0] == want           # Numba's square-and-multiply, not pow()
    assert out32[0] == np.float32(want32)


def test_cas_on_float_arrays_is_refused_as_compiled():
    @cuda.jit
    def k(a):
        cuda.atomic.cas(a, 0, 0.0, 1.0)

    with pytest.raises(TypeError, match="float64 are not supported"):
        k[1, 1](np.zeros(1))

    @cuda.jit
    def k2(a):
        cuda.atomic.compare_and_swap(a, 0.0, 1.0)

    with pytest.raises(TypeError, match="float32 are not supported"):
        k2[1, 1](np.zeros(1, np.float32))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_programs_match_the_compiled_typing(seed, tmp_path):
    source, exprs = typing_programs.program_source(1000 + seed, 30)
    path = tmp_path / f"typing_program_{seed}.py"
    path.write_text(source)
    module = typing_programs.load(path, f"typing_program_{seed}")
    sim = cuda.jit(device=True)(module.f)
    compiled = numba.njit(error_model="numpy")(module.f)
    diffs = typing_programs.compare(sim, compiled, typing_programs.argument_sets(seed, 4), exprs)
    assert not diffs, "\n".join(map(repr, diffs[:5]))


def test_conditional_expression_has_one_type():
    seen = []

    @cuda.jit
    def k(a, f):
        i = a[0]
        x = i if i > 100 else 1.5              # int64/float64: float64 whichever runs
        y = f[0] if i > 0 else i                # float32/int32: float64
        z = (i if i < 0 else 2.5) // 2          # float floor division
        w = i if f[0] > 0 else math.sqrt(f[0])  # the other branch typed from its names
        seen.append((x, y, z, w, i if i > 0 else np.uint64(3)))

    k[1, 1](np.array([7], np.int32), np.array([2.0], np.float32))
    (x, y, z, w, u), = seen
    assert [numba_type(v) for v in (x, y, z, w)] == [types.float64] * 4
    assert (x, y, z, w) == (1.5, 2.0, 1.0, 7.0)
    assert numba_type(u) == types.float64 and u == 7.0  # int32 with uint64: float64


@pytest.mark.parametrize("a, b, f, g", [
    (2**63 - 1, -2**63, 1.5, -0.0),
    (-2**63, 2**63 - 1, -1e308, 1e308),
    (2**62, 2**62, float("nan"), float("inf")),
    (3, -4, 0.1, 3.0),
])
def test_inline_fast_paths_give_the_typed_results(a, b, f, g):
    sim = cuda.jit(device=True)(inline_cases.cases)
    compiled = numba.njit(error_model="numpy")(inline_cases.cases)
    args = (np.int64(a), np.int64(b), np.float64(f), np.float64(g))
    exprs = [f"r{n}" for n in range(16)]
    diffs = typing_programs.compare(sim, compiled, [args], exprs)
    assert not diffs, "\n".join(map(repr, diffs))


def test_conditional_expression_with_a_constant_condition_keeps_the_taken_type():
    seen = []

    @cuda.jit
    def k(c):
        # Numba prunes the dead branch of a constant condition: no unification
        seen.append((c[0] if -(3.0 ** 7) < 3 else 1.5, c[0] if True else 2.5))

    k[1, 1](np.array([1 + 2j], np.complex64))
    assert [numba_type(v) for v in seen[0]] == [types.complex64, types.complex64]


def test_chained_comparisons_are_typed():
    seen = []

    @cuda.jit
    def k(i, u):
        # uint64 against int64 compares as float64 in the compiled kernel: 2**63 + 1 and
        # 2**63 are the same float64
        a, b, v = i[0], i[1], u[0]
        seen.append((a < v <= b, 0 <= a < 5, b < 3 < a))

    k[1, 1](np.array([2, 2**63 - 1], np.int64), np.array([2**63 + 1], np.uint64))

    @numba.njit
    def ref(i, u):
        a, b, v = i[0], i[1], u[0]
        return a < v <= b, 0 <= a < 5, b < 3 < a

    want = ref(np.array([2, 2**63 - 1], np.int64), np.array([2**63 + 1], np.uint64))
    assert seen[0] == want and want[0] is True

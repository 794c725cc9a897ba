"""Complex multiply/divide and run-time integer powers lowered directly (compiler.arithmetic)
compute exactly what Numba's own helpers compute.

The lowering functions only emit target-neutral IR, so they are checked by running them on the
CPU: a CPU ``@intrinsic`` calls them with Numba's CPU context, and every result (bit for bit,
NaN for NaN) and every raised exception is compared with Numba's CPU ``njit`` of the same
operator (which goes through Numba's ``compile_internal`` helpers).  The CUDA side is checked
for selection (our lowering is used; no nested helper compile) and for ptxas acceptance.
"""

import itertools
import math
import operator

import numpy as np
import pytest
from numba import njit, types
from numba.core.extending import intrinsic

from numba_cuda.compiler import arithmetic

CPLX_PARTS = (0.0, -0.0, 1.0, -2.5, 3.0, 1e-300, 1e300, math.inf, -math.inf, math.nan)


def _cpu_intrinsic(lowering, pyop):
    @intrinsic
    def op(typingctx, a, b):
        sig = typingctx.resolve_function_type(pyop, (a, b), {})

        def codegen(context, builder, _sig, args):
            values = [context.cast(builder, v, t, f) for v, t, f in zip(args, (a, b), sig.args)]
            return lowering(context, builder, sig, values)

        return sig.return_type(a, b), codegen

    return op


def _pair(fn):
    return njit(lambda a, b: fn(a, b))


_mul_op = _cpu_intrinsic(arithmetic.lower_complex_mul, operator.mul)
_div_op = _cpu_intrinsic(arithmetic.lower_complex_div, operator.truediv)
_pow_op = _cpu_intrinsic(arithmetic.lower_int_power, operator.pow)


def _same(x, y):
    x, y = complex(x), complex(y)
    for p, q in ((x.real, y.real), (x.imag, y.imag)):
        if math.isnan(p) or math.isnan(q):
            if not (math.isnan(p) and math.isnan(q)):
                return False
        elif p != q or math.copysign(1, p) != math.copysign(1, q):
            return False
    return True


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the exception type is what is compared
        return ("raise", type(exc).__name__)


def _compare(ours, numbas, cases):
    mismatches = []
    for args in cases:
        got, want = _outcome(ours, *args), _outcome(numbas, *args)
        if got[0] != want[0] or (got[0] == "raise" and got[1] != want[1]) or (
                got[0] == "ok" and not _same(got[1], want[1])):
            mismatches.append((args, got, want))
    return mismatches


def _complex_cases(dtype):
    with np.errstate(over="ignore"):  # 1e300 -> inf in float32: one more infinity case
        parts = [dtype(p) for p in CPLX_PARTS]
    ctype = np.complex64 if dtype is np.float32 else np.complex128
    values = [ctype(complex(r, i)) for r, i in itertools.product(parts, parts)]
    return list(itertools.product(values[::3], values))


@pytest.mark.skipif(arithmetic._PY314, reason="Python 3.14+: Numba's implementations are used")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("which", ["mul", "div"])
def test_complex_ops_match_numba_bit_for_bit(dtype, which):
    ours = _pair(_mul_op if which == "mul" else _div_op)
    numbas = _pair(operator.mul if which == "mul" else operator.truediv)
    cases = _complex_cases(dtype)
    assert len(cases) > 1000
    assert _compare(ours, numbas, cases) == []


def test_complex_division_by_zero_raises_like_numba():
    ours, numbas = _pair(_div_op), _pair(operator.truediv)
    for fn in (ours, numbas):
        with pytest.raises(ZeroDivisionError, match="complex division by zero"):
            fn(1 + 1j, 0j)


POW_TYPES = [
    (np.int64, np.int64), (np.int8, np.int8), (np.int32, np.int32), (np.uint64, np.uint64),
    (np.float64, np.int32), (np.float64, np.int64), (np.float32, np.int64),
    (np.float64, np.uint64), (np.float32, np.uint64),
]
BASES = (-3, -2, -1, 0, 1, 2, 3, 7)
FLOAT_BASES = (0.0, -0.0, 0.5, -1.5, 2.0, 1e10, math.inf, -math.inf, math.nan)
EXPONENTS = (-70000, -65537, -3, -2, -1, 0, 1, 2, 3, 5, 63, 64, 65536, 65537, 70000)


def _pow_cases(basety, expty):
    bases = FLOAT_BASES if np.issubdtype(basety, np.floating) else BASES
    info = np.iinfo(expty)
    exps = [e for e in EXPONENTS if info.min <= e <= info.max] + [info.min]
    return [(basety(b), expty(e)) for b in bases for e in exps
            if np.issubdtype(basety, np.floating) or info.min <= b <= info.max]


@pytest.mark.parametrize("error_model", ["python", "numpy"])
@pytest.mark.parametrize("basety,expty", POW_TYPES)
def test_runtime_integer_power_matches_numba(basety, expty, error_model):
    ours = njit(error_model=error_model)(lambda a, b: _pow_op(a, b))
    numbas = njit(error_model=error_model)(lambda a, b: a ** b)
    cases = _pow_cases(basety, expty)
    assert _compare(ours, numbas, cases) == []


def test_zero_to_negative_power_follows_error_model():
    py = njit(error_model="python")(lambda a, b: _pow_op(a, b))
    npy = njit(error_model="numpy")(lambda a, b: _pow_op(a, b))
    with pytest.raises(ZeroDivisionError):
        py(np.int64(0), np.int64(-1))
    assert npy(np.int64(0), np.int64(-1)) == np.iinfo(np.int64).min
    with pytest.raises(OverflowError):
        py(np.int64(2), np.int64(np.iinfo(np.int64).min))


# ---- CUDA side ------------------------------------------------------------------------------


def _cplx_kernel(a, b):
    i = 0
    a[i] = a[i] * b[i]
    b[i] = a[i] / b[i]


def _pow_kernel(x, n):
    x[0] = x[0] ** n[0]


def test_cuda_selects_direct_lowering_without_nested_compiles(cuda, monkeypatch):
    from numba.core import base

    from numba_cuda.compiler.target import cuda_target

    nested = []
    original = base.BaseContext.compile_subroutine

    def spy(self, builder, impl, *args, **kwargs):
        nested.append(impl.__name__)
        return original(self, builder, impl, *args, **kwargs)

    monkeypatch.setattr(base.BaseContext, "compile_subroutine", spy)
    sigs = [((types.complex64[::1], types.complex64[::1]), _cplx_kernel),
            ((types.complex128[::1], types.complex128[::1]), _cplx_kernel),
            ((types.float64[::1], types.int64[::1]), _pow_kernel),
            ((types.float32[::1], types.int32[::1]), _pow_kernel),
            ((types.int64[::1], types.int64[::1]), _pow_kernel)]
    for args, fn in sigs:
        ptx, _ = cuda.compile_ptx(fn, args, cc=(8, 0))
        assert ".entry" in ptx
    if not arithmetic._PY314:
        assert nested == []
    ctx = cuda_target.target_context
    impl = ctx.get_function(operator.mul, types.complex128(types.complex128, types.complex128))
    assert impl is not None


def test_cuda_direct_arithmetic_ptx_accepted_by_ptxas(cuda, tmp_path):
    import subprocess

    from numba_cuda import toolkit

    ptxas = toolkit.ptxas_path()
    if ptxas is None:
        pytest.skip("no ptxas in the chosen toolkit")
    for args, fn in [((types.complex128[::1], types.complex128[::1]), _cplx_kernel),
                     ((types.float32[::1], types.int64[::1]), _pow_kernel)]:
        ptx, _ = cuda.compile_ptx(fn, args, cc=(9, 0))
        path = tmp_path / "k.ptx"
        path.write_text(ptx)
        proc = subprocess.run([ptxas, "-arch=sm_90", "-o", str(tmp_path / "k.o"), str(path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr

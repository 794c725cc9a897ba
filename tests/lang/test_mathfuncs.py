"""math / cmath / numeric builtins lowered to libdevice: PTX, ptxas, fastmath, errors, GPU results."""

import cmath
import math

import numpy as np
import pytest
from numba import (boolean, complex64, complex128, cuda, float32, float64, int8, int16, int32,
                   int64, types, uint8, uint32, uint64)

float16 = types.float16

from tests.support.typing_errors import expect_typing_error

UNARY = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "fabs", "erf", "erfc",
    "lgamma", "gamma", "degrees", "radians",
] + [name for name in ("exp2", "cbrt") if hasattr(math, name)]
BINARY = ["atan2", "hypot", "copysign", "fmod", "remainder", "pow", "nextafter"]
ROUNDING = ["floor", "ceil", "trunc"]
PREDICATES = ["isnan", "isinf", "isfinite"]
FLOATS = {"float32": float32, "float64": float64}
LIBDEVICE_BASE = {"gamma": "tgamma"}


def unary_kernel(name):
    fn = getattr(math, name)

    def k(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i])

    return k


def binary_kernel(name):
    fn = getattr(math, name)

    def k(out, x, y):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i], y[i])

    return k


def assert_self_contained(ptx):
    """libdevice was linked and inlined: no external function remains, and no LLVM intrinsic
    leaked through as a call."""
    assert ".extern .func" not in ptx
    assert "llvm." not in ptx


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dtype, ptx_one):
    t = FLOATS[dtype]
    ptx = ptx_one(unary_kernel(name), (t[:], t[:]))
    assert_self_contained(ptx)
    if name in ("degrees", "radians"):
        return
    # the libdevice function of the argument's precision is the one called
    kernel = cuda.jit((t[:], t[:]))(unary_kernel(name))
    llvm_ir = kernel.inspect_llvm(kernel.signatures[0]).replace('"', "")
    base = LIBDEVICE_BASE.get(name, name)
    wanted = f"@__nv_{base}f(" if dtype == "float32" else f"@__nv_{base}("
    assert wanted in llvm_ir.replace('"', ""), (wanted, name)


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, dtype, ptx_one):
    t = FLOATS[dtype]
    assert_self_contained(ptx_one(binary_kernel(name), (t[:], t[:], t[:])))


@pytest.mark.parametrize(
    "name, dtype, instruction",
    [
        ("sqrt", "float32", "sqrt.rn.f32"),
        ("sqrt", "float64", "sqrt.rn.f64"),
        ("fabs", "float32", "abs.f32"),
        ("fabs", "float64", "abs.f64"),
        ("floor", "float32", "cvt.rmi.f32.f32"),
        ("ceil", "float64", "cvt.rpi.f64.f64"),
        ("trunc", "float32", "cvt.rzi"),
    ],
)
def test_simple_functions_become_single_instructions(name, dtype, instruction, ptx_one):
    t = FLOATS[dtype]
    if name in ROUNDING:
        fn = getattr(math, name)

        def k(out, x):
            out[0] = fn(x[0])

        ptx = ptx_one(k, (int64[:], t[:]))
    else:
        ptx = ptx_one(unary_kernel(name), (t[:], t[:]))
    assert instruction in ptx


def test_rounding_and_predicates_types():
    # As Numba's CUDA targets (built-in and NVIDIA's): floor/ceil/trunc return the float type,
    # float64 for an integer (Numba's CPU target returns an int64).
    def k(x):
        return math.floor(x), math.ceil(x), math.trunc(x), math.isnan(x), math.isinf(x), math.isfinite(x)

    _, resty = cuda.compile_ptx(k, (float32,), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float32, float32, float32, bool, bool, bool)"
    _, resty = cuda.compile_ptx(k, (float64,), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float64, float64, float64, bool, bool, bool)"
    _, resty = cuda.compile_ptx(k, (int32,), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float64, float64, float64, bool, bool, bool)"


#: (function, argument types) -> return type, as Numba's built-in CUDA target types them
#: (numba/cuda/cudamath.py); NVIDIA's numba-cuda has the same table.
CUDA_TARGET_TYPES = [
    ("floor", (float32,), float32), ("floor", (float64,), float64),
    ("floor", (float16,), float16), ("floor", (int32,), float64), ("floor", (int64,), float64),
    ("floor", (uint64,), float64), ("floor", (uint8,), float64), ("floor", (boolean,), float64),
    ("ceil", (float32,), float32), ("ceil", (float16,), float16), ("ceil", (int8,), float64),
    ("ceil", (uint32,), float64), ("trunc", (float32,), float32), ("trunc", (float64,), float64),
    ("trunc", (float16,), float16), ("trunc", (int64,), float64), ("trunc", (uint64,), float64),
    ("pow", (float32, int32), float32), ("pow", (float32, int8), float32),
    ("pow", (float32, int16), float32), ("pow", (float64, int32), float64),
    ("pow", (float32, float32), float32), ("pow", (float32, int64), float64),
    ("pow", (float32, uint64), float64), ("pow", (float32, float64), float64),
    ("pow", (int8, int32), float32), ("pow", (int32, int32), float64),
    ("pow", (int64, int64), float64), ("pow", (float16, int32), float32),
    ("sin", (float16,), float16), ("cos", (float16,), float16), ("sqrt", (float16,), float16),
    ("log", (float16,), float16), ("log2", (float16,), float16), ("log10", (float16,), float16),
    ("exp", (float16,), float16), ("fabs", (float16,), float16), ("tan", (float16,), float32),
    ("atan2", (boolean, boolean), float64), ("hypot", (boolean, boolean), float64),
    ("modf", (int8,), types.UniTuple(float64, 2)), ("modf", (float32,), types.UniTuple(float32, 2)),
]


@pytest.mark.parametrize("name,argtys,expected", CUDA_TARGET_TYPES,
                         ids=[f"{n}-{'-'.join(map(str, a))}" for n, a, _ in CUDA_TARGET_TYPES])
def test_math_typing_follows_the_cuda_targets(name, argtys, expected):
    fn = getattr(math, name)
    if len(argtys) == 1:
        def k(x):
            return fn(x)
    else:
        def k(x, y):
            return fn(x, y)

    ptx, resty = cuda.compile_ptx(k, argtys, device=True, cc=(7, 5))
    assert resty == expected
    assert_self_contained(ptx)


def test_rounding_stays_in_float(ptx_one):
    """No float -> integer conversion: floor(NaN) is NaN, floor(1e300) is 1e300."""
    def k(out, x, y, h):
        out[0] = math.floor(x[0]) + math.ceil(x[0]) + math.trunc(x[0])
        out[1] = math.floor(y[0]) + math.ceil(y[0]) + math.trunc(y[0])
        out[2] = math.floor(h[0])

    ptx = ptx_one(k, (float64[:], float64[:], float32[:], float16[:]))
    for mode in ("rmi", "rpi", "rzi"):
        assert f"cvt.{mode}.f64.f64" in ptx and f"cvt.{mode}.f32.f32" in ptx
    assert "cvt.rzi.s64" not in ptx and "cvt.rmi.s64" not in ptx


def test_float32_pow_int32_stays_float32(ptx_one):
    """``math.pow(float32, int32)`` is libdevice ``powif``: no double-precision arithmetic."""
    def k(out, x, n):
        out[0] = math.pow(x[0], n[0])

    ptx = ptx_one(k, (float32[:], float32[:], int32[:]))
    assert ".f64" not in ptx
    ptx = ptx_one(k, (float64[:], float64[:], int32[:]))
    assert ".f64" in ptx


def test_floor_result_is_no_index():
    # As in the CUDA targets, a float is no array index: int(math.floor(x)) is.
    from numba.core.errors import TypingError

    def k(out, x):
        out[math.floor(x[0])] = 1

    def k_int(out, x):
        out[int(math.floor(x[0]))] = 1

    with pytest.raises(TypingError):
        cuda.compile_ptx(k, (float32[:], float32[:]), cc=(7, 5))
    cuda.compile_ptx(k_int, (float32[:], float32[:]), cc=(7, 5))


def test_floor_result_takes_float_arithmetic():
    # With an int64 result, ``math.floor(x) * x`` was a float64 (int64 * float32); now float32.
    def k(x):
        return math.floor(x) * x, math.isnan(math.ceil(x))

    _, resty = cuda.compile_ptx(k, (float32,), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float32, bool)"


def test_integer_arguments_promote_to_float64():
    def k(n, m):
        return math.sqrt(n) + math.atan2(n, m) + math.exp(m)

    _, resty = cuda.compile_ptx(k, (int32, uint64), device=True, cc=(7, 5))
    assert resty == float64


def test_frexp_ldexp_modf(ptx_one):
    def k(out, x, e):
        i = cuda.grid(1)
        m, ex = math.frexp(x[i])
        frac, whole = math.modf(x[i])
        out[i] = math.ldexp(m, ex + e[i]) + frac + whole

    for t in (float32, float64):
        assert_self_contained(ptx_one(k, (t[:], t[:], int32[:])))


def everything(out, x, y, n):
    i = cuda.grid(1)
    a = x[i]
    b = y[i]
    r = math.sin(a) + math.cos(a) + math.tan(a) + math.asin(a / 4) + math.acos(a / 4) + math.atan(a)
    r += math.sinh(a) + math.cosh(a) + math.tanh(a) + math.asinh(a) + math.acosh(b + 1) + math.atanh(a / 4)
    r += math.exp(a) + math.expm1(a) + math.log(b) + math.log2(b) + math.log10(b) + math.log1p(b)
    r += math.sqrt(b) + math.fabs(a) + math.erf(a) + math.erfc(a) + math.lgamma(b) + math.gamma(b)
    r += math.atan2(a, b) + math.hypot(a, b) + math.copysign(a, b) + math.fmod(a, b) + math.pow(b, a)
    r += math.floor(a) + math.ceil(a) + math.trunc(a) + math.degrees(a) + math.radians(a)
    r += math.isnan(a) + math.isinf(a) + math.isfinite(a)
    r += abs(a) + round(a) + round(a, 2) + pow(b, a) + b ** a + b ** 2 + b ** n + abs(n) + n ** 2
    out[i] = r


@pytest.mark.parametrize("dtype", sorted(FLOATS))
def test_everything_for_every_cc(dtype, ptx_for):
    t = FLOATS[dtype]
    for cc, ptx in ptx_for(everything, (t[:], t[:], t[:], int32)).items():
        assert_self_contained(ptx)


def test_builtin_min_max_on_floats(ptx_for):
    def k(out, x, y):
        i = cuda.grid(1)
        out[i] = min(x[i], y[i]) + max(x[i], 1.0) + min(i, 3) + max(x[i], y[i], 0.5)

    for t in (float32, float64):
        for ptx in ptx_for(k, (t[:], t[:], t[:])).values():
            assert_self_contained(ptx)


def test_fastmath_uses_approximate_instructions(ptx_one):
    def k(out, x):
        i = cuda.grid(1)
        out[i] = math.sin(x[i]) + math.cos(x[i]) + math.exp(x[i]) + math.log(x[i])

    precise = ptx_one(k, (float32[:], float32[:]))
    fast = ptx_one(k, (float32[:], float32[:]), fastmath=True)
    assert "sin.approx.f32" not in precise and "cos.approx.f32" not in precise
    assert "sin.approx" in fast and "cos.approx" in fast and "lg2.approx" in fast
    # float64 has no approximate variants: the same code either way
    precise64 = ptx_one(k, (float64[:], float64[:]))
    assert "sin.approx" not in precise64


def test_fastmath_selects_fast_libdevice_variants():
    def k(out, x):
        out[0] = math.sin(x[0]) + math.pow(x[0], x[1])

    kernel = cuda.jit((float32[:], float32[:]), fastmath=True)(k)
    llvm_ir = kernel.inspect_llvm(kernel.signatures[0]).replace('"', "")
    assert "@__nv_fast_sinf" in llvm_ir and "@__nv_fast_powf" in llvm_ir
    kernel = cuda.jit((float32[:], float32[:]))(k)
    llvm_ir = kernel.inspect_llvm(kernel.signatures[0]).replace('"', "")
    assert "@__nv_sinf" in llvm_ir and "@__nv_powf" in llvm_ir and "__nv_fast_" not in llvm_ir


# ---- cmath ------------------------------------------------------------------------------


def complex_everything(out, z, w):
    i = cuda.grid(1)
    a = z[i]
    b = w[i]
    r = cmath.exp(a) + cmath.log(a) + cmath.log10(a) + cmath.sqrt(a) + cmath.log(a, b)
    r += cmath.sin(a) + cmath.cos(a) + cmath.tan(a) + cmath.sinh(a) + cmath.cosh(a) + cmath.tanh(a)
    r += cmath.rect(abs(a), cmath.phase(b))
    m, p = cmath.polar(a)
    r += m + p + cmath.isnan(a) + cmath.isinf(b) + cmath.isfinite(a) + abs(b)
    out[i] = r


@pytest.mark.parametrize("ctype", [complex64, complex128])
def test_cmath_for_every_cc(ctype, ptx_for):
    for ptx in ptx_for(complex_everything, (ctype[:], ctype[:], ctype[:])).values():
        assert_self_contained(ptx)


# ---- errors -----------------------------------------------------------------------------


def sin_of_array(out, x):
    out[0] = math.sin(x)  # MARK-SIN


def floor_of_complex(out, x):
    out[0] = math.floor(x[0] * 1j)  # MARK-FLOOR


def hypot_one_argument(out, x):
    out[0] = math.hypot(x[0])  # MARK-HYPOT


@pytest.mark.parametrize(
    "fn, marker",
    [(sin_of_array, "MARK-SIN"), (floor_of_complex, "MARK-FLOOR"), (hypot_one_argument, "MARK-HYPOT")],
)
def test_typing_errors_name_the_line(fn, marker):
    expect_typing_error(fn, (float64[:], float64[:]), marker)


def test_math_never_reaches_an_llvm_backend_abort(run_python):
    """Compiling math in a fresh process ends normally (no 'Cannot select' abort, exit 134)."""
    code = (
        "import math\n"
        "from numba import cuda, float32, float64\n"
        "def k(o, x):\n"
        "    o[0] = math.pow(x[0], x[1]) + x[0] ** x[1] + math.sin(x[0]) + abs(x[0]) + round(x[0])\n"
        "for t in (float32, float64):\n"
        "    cuda.compile_ptx(k, (t[:], t[:]), cc=(7, 5))\n"
        "print('DONE')\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert "DONE" in proc.stdout


# ---- GPU ----------------------------------------------------------------------------------

DOMAINS = {
    "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 5.0),
    "log": (0.1, 10.0), "log2": (0.1, 10.0), "log10": (0.1, 10.0), "log1p": (-0.5, 10.0),
    "sqrt": (0.0, 10.0), "lgamma": (0.1, 10.0), "gamma": (0.1, 6.0),
}
REFERENCE = {"gamma": math.gamma, "lgamma": math.lgamma, "erf": math.erf, "erfc": math.erfc}


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("name", UNARY)
def test_gpu_unary_matches_python(name, dtype):
    lo, hi = DOMAINS.get(name, (-3.0, 3.0))
    x = np.linspace(lo, hi, 257).astype(dtype)
    kernel = cuda.jit(unary_kernel(name))
    out = cuda.device_array_like(x)
    kernel[3, 128](out, cuda.to_device(x))
    ref_fn = REFERENCE.get(name, getattr(math, name))
    expected = np.array([ref_fn(float(v)) for v in x])
    rtol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=rtol, atol=rtol)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("name", BINARY)
def test_gpu_binary_matches_python(name, dtype):
    x = np.linspace(0.5, 3.0, 200).astype(dtype)
    y = np.linspace(-2.0, 2.5, 200).astype(dtype)
    if name in ("fmod", "remainder"):
        y = np.where(y == 0, 1, y).astype(dtype)
    kernel = cuda.jit(binary_kernel(name))
    out = cuda.device_array_like(x)
    kernel[2, 128](out, cuda.to_device(x), cuda.to_device(y))
    got = out.copy_to_host()
    if name == "nextafter":
        expected = np.nextafter(x, y)
        np.testing.assert_array_equal(got, expected)
        return
    expected = np.array([getattr(math, name)(float(a), float(b)) for a, b in zip(x, y)])
    rtol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.gpu
def test_gpu_round_is_half_to_even_and_predicates():
    @cuda.jit
    def k(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = round(x[i])
            out[i, 1] = math.floor(x[i])
            out[i, 2] = math.ceil(x[i])
            out[i, 3] = math.trunc(x[i])
            out[i, 4] = math.isnan(x[i]) * 1 + math.isinf(x[i]) * 2 + math.isfinite(x[i]) * 4

    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, np.inf, -np.inf, np.nan, 0.0])
    out = cuda.device_array((len(x), 5), dtype=np.int64)
    k[1, 32](out, cuda.to_device(x))
    got = out.copy_to_host()
    finite = np.isfinite(x)
    np.testing.assert_array_equal(got[finite, 0], [round(v) for v in x[finite]])
    np.testing.assert_array_equal(got[finite, 1], np.floor(x[finite]))
    np.testing.assert_array_equal(got[finite, 2], np.ceil(x[finite]))
    np.testing.assert_array_equal(got[finite, 3], np.trunc(x[finite]))
    np.testing.assert_array_equal(got[:, 4], np.isnan(x) * 1 + np.isinf(x) * 2 + np.isfinite(x) * 4)


@pytest.mark.gpu
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_gpu_cmath_matches_python(ctype):
    @cuda.jit
    def k(out, z):
        i = cuda.grid(1)
        if i < z.size:
            a = z[i]
            out[i, 0] = cmath.exp(a)
            out[i, 1] = cmath.log(a)
            out[i, 2] = cmath.sqrt(a)
            out[i, 3] = cmath.sin(a)
            out[i, 4] = cmath.cos(a)
            out[i, 5] = cmath.tanh(a)
            out[i, 6] = cmath.rect(abs(a), cmath.phase(a))
            out[i, 7] = cmath.log10(a)

    re, im = np.meshgrid(np.linspace(-2, 2, 9), np.linspace(-2, 2, 9))
    z = (re + 1j * im).ravel().astype(ctype)
    z = z[z != 0]
    out = cuda.device_array((len(z), 8), dtype=ctype)
    k[1, 128](out, cuda.to_device(z))
    got = out.copy_to_host()
    funcs = [cmath.exp, cmath.log, cmath.sqrt, cmath.sin, cmath.cos, cmath.tanh,
             lambda v: cmath.rect(abs(v), cmath.phase(v)), cmath.log10]
    rtol = 1e-5 if ctype == np.complex64 else 1e-12
    for col, f in enumerate(funcs):
        expected = np.array([f(complex(v)) for v in z])
        np.testing.assert_allclose(got[:, col], expected, rtol=rtol, atol=rtol)

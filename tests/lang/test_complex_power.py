"""``a ** b`` on complex numbers: compiled for the GPU (no call to Numba's CPU helper
``numba_cpow``), and the lowering's answers -- its IR run on this CPU, with the C library in place
of libdevice -- are Python's."""

import cmath
import ctypes
import ctypes.util
import math

import numpy as np
import pytest
from llvmlite import binding as llvm
from llvmlite import ir
from numba import complex64, complex128, cuda, float32, float64, int32, int64, types

from numba_cuda.lang import mathfuncs


def power(out, a, b):
    out[0] = a[0] ** b[0]


def augmented_power(out, a, b):
    x = a[0]
    x **= b[0]
    out[0] = x


def builtin_pow(out, a, b):
    out[0] = pow(a[0], b[0])


def literal_exponents(out, a):
    out[0] = a[0] ** 2
    out[1] = a[0] ** -3
    out[2] = a[0] ** 0.5
    out[3] = a[0] ** 2.5j


#: (result, base, exponent) element types as Numba types them: complex ** int, int/float ** complex.
SIGNATURES = [
    (complex128, complex128, complex128),
    (complex64, complex64, complex64),
    (complex128, complex128, int64),
    (complex128, complex64, int32),
    (complex128, int64, complex128),
    (complex64, float32, complex64),
    (complex128, float64, complex64),
]


@pytest.mark.parametrize("kernel", [power, augmented_power, builtin_pow])
@pytest.mark.parametrize("types_", SIGNATURES, ids=lambda t: "-".join(map(str, t)))
def test_complex_power_compiles_for_the_gpu(kernel, types_, ptx_one):
    res, base, exp = types_
    ptx = ptx_one(kernel, (res[:], base[:], exp[:]))  # ptxas: no unresolved extern
    assert "numba_cpow" not in ptx
    assert ".extern .func" not in ptx


@pytest.mark.parametrize("fastmath", [False, True])
def test_complex_power_with_constant_exponents(fastmath, ptx_for):
    for ctype in (complex64, complex128):
        for ptx in ptx_for(literal_exponents, (ctype[:], ctype[:]), fastmath=fastmath).values():
            assert "numba_cpow" not in ptx


def test_complex_power_typing_is_numbas():
    def f(a, b):
        return a ** b

    for (res, base, exp) in SIGNATURES:
        _, resty = cuda.compile_ptx(f, (base, exp), device=True, cc=(7, 5))
        assert resty == res, (base, exp, resty)


# ---- the lowering's values, run on the host ---------------------------------------------


_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


def _host_power_function(ctype):
    """The lowering of ``complex ** complex`` for ``ctype`` in a host function
    ``void f(re, im, wre, wim, out*)``, JIT-compiled for this CPU; every libdevice function it
    calls is bound to the C library's function of the same name (``__nv_pow`` -> ``pow``)."""
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    fltty = ctype.underlying_float
    llfloat = context.get_value_type(fltty)
    module = ir.Module(name="cpow_host")
    fnty = ir.FunctionType(ir.VoidType(), [llfloat] * 4 + [llfloat.as_pointer()])
    fn = ir.Function(module, fnty, "cpow")
    builder = ir.IRBuilder(fn.append_basic_block())
    ar, ai, wr, wi, out = fn.args

    def make(re, im):
        z = context.make_complex(builder, ctype)
        z.real, z.imag = re, im
        return z._getvalue()

    sig = types.void(ctype, ctype)
    sig = sig.replace(return_type=ctype)
    result = mathfuncs._lower_complex_pow(context, builder, sig, [make(ar, ai), make(wr, wi)])
    z = context.make_complex(builder, ctype, value=result)
    builder.store(z.real, out)
    builder.store(z.imag, builder.gep(out, [ir.Constant(ir.IntType(32), 1)]))
    builder.ret_void()

    for callee in module.functions:
        if callee.name.startswith("__nv_"):
            libm_name = callee.name[len("__nv_"):]
            llvm.add_symbol(callee.name, ctypes.cast(getattr(_LIBM, libm_name), ctypes.c_void_p).value)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target_machine = llvm.Target.from_default_triple().create_target_machine()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    engine = llvm.create_mcjit_compiler(parsed, target_machine)
    engine.finalize_object()
    ctfloat = ctypes.c_float if fltty == float32 else ctypes.c_double
    cfn = ctypes.CFUNCTYPE(None, *[ctfloat] * 4, ctypes.POINTER(ctfloat))(
        engine.get_function_address("cpow"))

    def call(a, w):
        buf = (ctfloat * 2)()
        cfn(a.real, a.imag, w.real, w.imag, buf)
        return complex(buf[0], buf[1])

    call.engine = engine  # keep the code alive
    return call


@pytest.fixture(scope="module")
def host_cpow128():
    return _host_power_function(complex128)


@pytest.fixture(scope="module")
def host_cpow64():
    return _host_power_function(complex64)


def _bases_and_exponents():
    rng = np.random.default_rng(21)
    bases = [1 + 1j, -2.5 + 0.5j, 0.3 - 1.7j, -1 + 0j, 2 + 0j, 1j, -1j, 1e-3 + 2e3j, 7.25 - 0.0j]
    bases += list(rng.normal(size=12) * 3 + 1j * rng.normal(size=12) * 3)
    exponents = [0j, 1 + 0j, 2 + 0j, 3 + 0j, -1 + 0j, -2 + 0j, 17 + 0j, -37 + 0j, 100 + 0j,
                 -100 + 0j, 101 + 0j, 0.5 + 0j, -0.5 + 0j, 2.5 + 0j, 1j, -2j, 0.5 + 0.5j,
                 3 - 1.25j, 1e-9 + 0j]
    exponents += list(rng.normal(size=8) * 4 + 1j * rng.normal(size=8))
    return bases, exponents


def test_host_run_gives_pythons_answers_complex128(host_cpow128):
    """Same algorithm and same libm functions as CPython: the same bits (exact products for the
    integer exponents, the polar form otherwise)."""
    bases, exponents = _bases_and_exponents()
    wrong = []
    for a in bases:
        for w in exponents:
            try:
                expected = complex(a) ** complex(w)
            except (OverflowError, ZeroDivisionError):
                continue
            got = host_cpow128(complex(a), complex(w))
            if got != expected and not (cmath.isnan(got) and cmath.isnan(expected)):
                wrong.append((a, w, got, expected))
    assert not wrong, wrong[:10]


def test_host_run_integer_exponents_are_exact(host_cpow128):
    # Gaussian integers: every product is exact, so the answer is too.
    assert host_cpow128(1 + 1j, 8 + 0j) == 16 + 0j
    assert host_cpow128(2 - 1j, 3 + 0j) == 2 - 11j
    assert host_cpow128(1 + 1j, -2 + 0j) == -0.5j
    assert host_cpow128(3 + 4j, 2 + 0j) == -7 + 24j


def test_host_run_special_cases(host_cpow128):
    nan = complex(math.nan, math.nan)
    assert host_cpow128(0j, 0j) == 1 + 0j            # 0 ** 0 == 1, as Python
    assert host_cpow128(complex(math.nan, 1), 0j) == 1 + 0j
    assert host_cpow128(0j, 2.5 + 0j) == 0j
    assert host_cpow128(0j, 3 + 0j) == 0j
    # Python raises ZeroDivisionError; the kernel gives nan+nanj (as Numba's CPU target)
    for w in (-1 + 0j, -2.5 + 0j, 1j, 2 + 1j):
        got = host_cpow128(0j, w)
        assert cmath.isnan(got.real) and cmath.isnan(got.imag), (w, got)
    assert cmath.isnan(host_cpow128(1 + 1j, nan).real)


def test_host_run_complex64_is_close_to_numpy(host_cpow64):
    bases, exponents = _bases_and_exponents()
    for a in bases:
        for w in exponents:
            a64, w64 = np.complex64(a), np.complex64(w)
            try:
                expected = complex(a64) ** complex(w64)  # in double: the float32 answer is near it
            except (OverflowError, ZeroDivisionError):
                continue
            if not cmath.isfinite(expected) or abs(expected) > 1e30 or abs(expected) < 1e-30:
                continue
            got = host_cpow64(complex(a64), complex(w64))
            assert abs(got - expected) <= 1e-4 * abs(expected) + 1e-30, (a, w, got, expected)
            with np.errstate(all="ignore"):
                np_value = complex(a64 ** w64)
            assert abs(got - np_value) <= 1e-4 * abs(expected) + 1e-30, (a, w, got, np_value)


@pytest.mark.gpu
@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_gpu_complex_power_matches_python(ctype):
    bases, exponents = _bases_and_exponents()
    pairs = [(a, w) for a in bases for w in exponents]
    a = np.array([p[0] for p in pairs], dtype=ctype)
    w = np.array([p[1] for p in pairs], dtype=ctype)

    @cuda.jit
    def k(out, a, w):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] ** w[i]

    out = cuda.device_array_like(a)
    k[(len(a) + 127) // 128, 128](out, cuda.to_device(a), cuda.to_device(w))
    got = out.copy_to_host()
    rtol = 1e-4 if ctype == np.complex64 else 1e-12
    for x, y, g in zip(a, w, got):
        try:
            expected = complex(x) ** complex(y)
        except (OverflowError, ZeroDivisionError):
            continue
        if not cmath.isfinite(expected) or abs(expected) > 1e30 or abs(expected) < 1e-30:
            continue
        assert abs(complex(g) - expected) <= rtol * abs(expected), (x, y, g, expected)

"""``math``, ``cmath`` and the numeric builtins (``abs``, ``round``, ``pow``) inside kernels.

Every transcendental function lowers to a call to libdevice (``__nv_sinf`` for float32,
``__nv_sin`` for float64 ...), which libNVVM links lazily; nothing here emits ``llvm.sin``-style
intrinsics, which the NVPTX backend cannot select.  Integer arguments are converted to float64,
as in Python and Numba's CPU target.

With ``fastmath=True`` the float32 functions that have a fast, approximate libdevice variant use
it (``sin``, ``cos``, ``tan``, ``exp``, ``log``, ``log2``, ``log10``, ``pow`` ->
``__nv_fast_*``, i.e. PTX ``sin.approx.f32`` & co.).

``a ** b`` on complex numbers follows CPython's algorithm in libdevice (Numba's own lowering
calls ``numba_cpow``, a CPU helper the GPU lacks): see :func:`_lower_complex_pow`.

Typing follows Numba's CUDA targets (Numba's built-in ``numba.cuda`` and NVIDIA's), not its CPU
target: ``math.floor/ceil/trunc`` return the float type (``float32`` for ``float32``, ``float16``
for ``float16``, ``float64`` for ``float64`` and for any integer), as CUDA's ``floorf``/``floor``
do, so ``math.floor(x)`` of a NaN is a NaN; ``math.pow(x, n)`` with an ``int32`` (or narrower)
exponent keeps ``float32`` as ``float32`` (libdevice ``powif``/``powi``), a wider integer exponent
goes through ``float64``.  ``math.isnan/isinf/isfinite`` give a boolean, ``math.frexp`` a
``(mantissa, intc)`` tuple.
"""

import cmath
import math
import operator

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import ConcreteTemplate, Registry as TypingRegistry, signature

from . import archselect
from . import libdevice_functions as libdevice

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.mathfuncs")
lower = lowering_registry.lower

f16, f32, f64, i32, i64, u64 = (types.float16, types.float32, types.float64, types.int32,
                                types.int64, types.uint64)
FLOATS = (f32, f64)

#: math function -> libdevice base name (float64 name; the float32 name adds "f").
UNARY = {
    math.sin: "sin", math.cos: "cos", math.tan: "tan",
    math.asin: "asin", math.acos: "acos", math.atan: "atan",
    math.sinh: "sinh", math.cosh: "cosh", math.tanh: "tanh",
    math.asinh: "asinh", math.acosh: "acosh", math.atanh: "atanh",
    math.exp: "exp", math.expm1: "expm1",
    math.log: "log", math.log2: "log2", math.log10: "log10", math.log1p: "log1p",
    math.sqrt: "sqrt", math.fabs: "fabs",
    math.erf: "erf", math.erfc: "erfc", math.lgamma: "lgamma", math.gamma: "tgamma",
}
if hasattr(math, "exp2"):
    UNARY[math.exp2] = "exp2"
if hasattr(math, "cbrt"):
    UNARY[math.cbrt] = "cbrt"

BINARY = {
    math.atan2: "atan2", math.hypot: "hypot", math.copysign: "copysign",
    math.fmod: "fmod", math.remainder: "remainder", math.pow: "pow",
    math.nextafter: "nextafter",
}

ROUNDING = {math.floor: "floor", math.ceil: "ceil", math.trunc: "trunc"}

#: Functions that take and return float16 in the CUDA targets (computed in float32 here, then
#: rounded to float16), besides ``ROUNDING``.
HALF_UNARY = (math.sin, math.cos, math.sqrt, math.log, math.log2, math.log10, math.exp,
              math.fabs)

#: float32 functions replaced by their fast approximate variant under fastmath.
FAST_FLOAT32 = {
    "sin": "fast_sinf", "cos": "fast_cosf", "tan": "fast_tanf", "exp": "fast_expf",
    "log": "fast_logf", "log2": "fast_log2f", "log10": "fast_log10f", "pow": "fast_powf",
}


def libdevice_name(base, is_float32, fastmath=False):
    """The libdevice function (without ``__nv_``) computing ``base`` at the given precision."""
    if not is_float32:
        return base
    if fastmath and base in FAST_FLOAT32:
        return FAST_FLOAT32[base]
    return base + "f"


def _check_table():
    bases = list(UNARY.values()) + list(BINARY.values()) + list(ROUNDING.values())
    bases += ["rint", "ldexp", "frexp", "modf"]
    for base in bases:
        for is_f32 in (False, True):
            name = libdevice_name(base, is_f32)
            if name not in libdevice.FUNCTIONS:
                raise AssertionError(f"__nv_{name} is not a libdevice function")
    for name in FAST_FLOAT32.values():
        if name not in libdevice.FUNCTIONS:
            raise AssertionError(f"__nv_{name} is not a libdevice function")


_check_table()


def _fastmath(context):
    return bool(getattr(context, "fastmath", False))


def _is_f32(ty):
    return ty == f32


#: PTX tanh.approx.f32 (float32 tanh under fastmath, as Numba emits) exists from sm_75.
TANH_APPROX_CC = (7, 5)


def call_math(context, builder, base, fltty, args):
    """Call the libdevice function for ``base`` on float ``args`` of Numba type ``fltty``."""
    name = libdevice_name(base, _is_f32(fltty), _fastmath(context))
    if base == "tanh" and _is_f32(fltty) and _fastmath(context):
        # tanh.approx.f32 from sm_75 (chosen by libNVVM, see archselect), libdevice below.
        fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType()])
        return archselect.select_by_arch(
            builder, ir.FloatType(),
            [(TANH_APPROX_CC, lambda b: b.call(ir.InlineAsm(fnty, "tanh.approx.f32 $0, $1;", "=f,f"),
                                              list(args)))],
            lambda b: libdevice.call(b, name, list(args)))
    return libdevice.call(builder, name, list(args))


def _to_float(context, builder, value, fromty, toty=f64):
    return context.cast(builder, value, fromty, toty)


# ---- typing ------------------------------------------------------------------------------


def _concrete(func, cases):
    class MathTemplate(ConcreteTemplate):
        key = func

    MathTemplate.cases = list(cases)
    typing_registry.register_global(func, types.Function(MathTemplate))


_UNARY_CASES = [signature(f64, i64), signature(f64, u64), signature(f32, f32), signature(f64, f64)]
for _func in UNARY:
    _concrete(_func, _UNARY_CASES + ([signature(f16, f16)] if _func in HALF_UNARY else []))
for _func in (math.degrees, math.radians):
    _concrete(_func, _UNARY_CASES)

_BINARY_CASES = [signature(f32, f32, f32), signature(f64, f64, f64)]
_BINARY_INT_CASES = [signature(f64, i64, i64), signature(f64, u64, u64)]
_POW_INT_CASES = [signature(f32, f32, i32), signature(f64, f64, i32)]
for _func in BINARY:
    cases = list(_BINARY_CASES)
    if _func in (math.atan2, math.hypot):
        cases = _BINARY_INT_CASES + cases  # this order picks float64 for (bool, bool), as CUDA's
    if _func is math.pow:
        # as the CUDA targets: an int32 exponent keeps the base's precision (powif / powi)
        cases += _POW_INT_CASES
    _concrete(_func, cases)

# As the CUDA targets type them (not Numba's CPU target, which returns an int64): the float
# type, float64 for an integer.
_ROUNDING_CASES = [signature(f64, i64), signature(f64, u64), signature(f32, f32),
                   signature(f64, f64), signature(f16, f16)]
for _func in ROUNDING:
    _concrete(_func, _ROUNDING_CASES)

_PREDICATE_CASES = [signature(types.boolean, t) for t in (i64, u64, f32, f64)]
for _func in (math.isnan, math.isinf, math.isfinite):
    _concrete(_func, _PREDICATE_CASES)

_concrete(math.ldexp, [signature(f32, f32, types.intc), signature(f64, f64, types.intc)])
_concrete(math.frexp, [signature(types.Tuple((t, types.intc)), t) for t in FLOATS])
_concrete(math.modf, [signature(types.UniTuple(t, 2), t) for t in (f64, f32)])  # CUDA's order

# cmath functions that Numba's cmathdecl does not type.
_COMPLEX = (types.complex64, types.complex128)
for _func in (cmath.log10, cmath.sinh, cmath.cosh, cmath.tanh):
    _concrete(_func, [signature(t, t) for t in _COMPLEX])
_concrete(cmath.phase, [signature(t.underlying_float, t) for t in _COMPLEX])
_concrete(cmath.polar, [signature(types.UniTuple(t.underlying_float, 2), t) for t in _COMPLEX])
_concrete(cmath.rect, [signature(types.complex64, f32, f32), signature(types.complex128, f64, f64)])


# ---- lowering: math ----------------------------------------------------------------------


def _lower_unary(base):
    def impl(context, builder, sig, args):
        (argty,) = sig.args
        (value,) = args
        resty = sig.return_type
        if isinstance(argty, types.Integer):
            value = _to_float(context, builder, value, argty, resty)
        return call_math(context, builder, base, resty, [value])

    return impl


for _func, _base in UNARY.items():
    for _argty in (f32, f64, i64, u64):
        lower(_func, _argty)(_lower_unary(_base))


def _lower_half_unary(base):
    def impl(context, builder, sig, args):
        wide = builder.fpext(args[0], ir.FloatType())
        return builder.fptrunc(call_math(context, builder, base, f32, [wide]), ir.HalfType())

    return impl


for _func in HALF_UNARY:
    lower(_func, f16)(_lower_half_unary(UNARY[_func]))


def _lower_angle(factor):
    def impl(context, builder, sig, args):
        (argty,) = sig.args
        resty = sig.return_type
        value = _to_float(context, builder, args[0], argty, resty)
        return builder.fmul(value, context.get_constant(resty, factor))

    return impl


for _argty in (f32, f64, i64, u64):
    lower(math.degrees, _argty)(_lower_angle(180.0 / math.pi))
    lower(math.radians, _argty)(_lower_angle(math.pi / 180.0))


def _lower_binary(base):
    def impl(context, builder, sig, args):
        resty = sig.return_type
        values = [_to_float(context, builder, v, t, resty) for v, t in zip(args, sig.args)]
        return call_math(context, builder, base, resty, values)

    return impl


for _func, _base in BINARY.items():
    for _sig in _BINARY_CASES + _BINARY_INT_CASES:
        lower(_func, *_sig.args)(_lower_binary(_base))


@lower(math.pow, f32, i32)
@lower(math.pow, f64, i32)
def _lower_pow_int32(context, builder, sig, args):
    name = "powif" if _is_f32(sig.args[0]) else "powi"
    return libdevice.call(builder, name, list(args))


def _lower_rounding(base):
    def impl(context, builder, sig, args):
        (argty,) = sig.args
        (value,) = args
        if isinstance(argty, types.Integer):
            # an integer is its own floor: only the conversion to float64
            return context.cast(builder, value, argty, sig.return_type)
        if argty == f16:
            # exact in float32: float16 -> float32 -> round -> float16 loses nothing
            return _lower_half_unary(base)(context, builder, sig, args)
        return call_math(context, builder, base, argty, [value])

    return impl


for _func, _base in ROUNDING.items():
    for _argty in (i64, u64, f32, f64, f16):
        lower(_func, _argty)(_lower_rounding(_base))


def float_predicate(builder, kind, value):
    """i1 result of isnan/isinf/isfinite on an LLVM float or double."""
    if kind == "isnan":
        return builder.fcmp_unordered("uno", value, value)
    inf = ir.Constant(value.type, float("inf"))
    is_float32 = isinstance(value.type, ir.FloatType)
    magnitude = libdevice.call(builder, "fabsf" if is_float32 else "fabs", [value])
    if kind == "isinf":
        return builder.fcmp_ordered("==", magnitude, inf)
    return builder.fcmp_ordered("<", magnitude, inf)  # isfinite: false for inf and NaN


def _lower_predicate(kind):
    def impl(context, builder, sig, args):
        (argty,) = sig.args
        if isinstance(argty, types.Integer):
            return cgutils.true_bit if kind == "isfinite" else cgutils.false_bit
        return float_predicate(builder, kind, args[0])

    return impl


for _func in (math.isnan, math.isinf, math.isfinite):
    for _argty in (i64, u64, f32, f64):
        lower(_func, _argty)(_lower_predicate(_func.__name__))


@lower(math.ldexp, f32, types.intc)
@lower(math.ldexp, f64, types.intc)
def _lower_ldexp(context, builder, sig, args):
    fltty = sig.args[0]
    name = "ldexpf" if _is_f32(fltty) else "ldexp"
    return libdevice.call(builder, name, list(args))


@lower(math.frexp, f32)
@lower(math.frexp, f64)
def _lower_frexp(context, builder, sig, args):
    fltty = sig.args[0]
    exponent = cgutils.alloca_once(builder, ir.IntType(32), name="frexp.exp")
    name = "frexpf" if _is_f32(fltty) else "frexp"
    mantissa = libdevice.call(builder, name, [args[0], exponent])
    return context.make_tuple(builder, sig.return_type, [mantissa, builder.load(exponent)])


@lower(math.modf, f32)
@lower(math.modf, f64)
def _lower_modf(context, builder, sig, args):
    fltty = sig.args[0]
    whole = cgutils.alloca_once(builder, context.get_value_type(fltty), name="modf.int")
    name = "modff" if _is_f32(fltty) else "modf"
    fraction = libdevice.call(builder, name, [args[0], whole])
    return context.make_tuple(builder, sig.return_type, [fraction, builder.load(whole)])


# ---- lowering: builtins ------------------------------------------------------------------
# Registered for concrete float types, so they are chosen over Numba's generic
# implementations (which would emit llvm.pow / llvm.rint / llvm.fabs).


def _lower_float_pow(context, builder, sig, args):
    resty = sig.return_type
    values = [context.cast(builder, v, t, resty) for v, t in zip(args, sig.args)]
    return call_math(context, builder, "pow", resty, values)


for _op in (pow, operator.pow, operator.ipow):
    for _fltty in FLOATS:
        lower(_op, _fltty, _fltty)(_lower_float_pow)


def _lower_float32_truediv(context, builder, sig, args):
    """``x / y`` on float32: ``__nv_fast_fdividef`` (``div.approx.ftz.f32``) under fastmath, as
    Numba's CUDA target does (and so no zero-division check), else Numba's own division."""
    if _fastmath(context):
        return libdevice.call(builder, "fast_fdividef", list(args))
    from numba.cpython.numbers import real_div_impl

    return real_div_impl(context, builder, sig, args)


# Numba does this for ``/`` only; ``x /= y`` is the same division here.
for _op in (operator.truediv, operator.itruediv):
    lower(_op, f32, f32)(_lower_float32_truediv)


def _lower_float_abs(context, builder, sig, args):
    return libdevice.call(builder, "fabsf" if _is_f32(sig.args[0]) else "fabs", list(args))


for _fltty in FLOATS:
    lower(abs, _fltty)(_lower_float_abs)


def _lower_round(context, builder, sig, args):
    # Python's round(x) rounds half to even, as rint does.
    fltty = sig.args[0]
    rounded = libdevice.call(builder, "rintf" if _is_f32(fltty) else "rint", list(args))
    return builder.fptosi(rounded, context.get_value_type(sig.return_type))


for _fltty in FLOATS:
    lower(round, _fltty)(_lower_round)


# ---- lowering: cmath ---------------------------------------------------------------------


def _parts(context, builder, cplxty, value):
    z = context.make_complex(builder, cplxty, value)
    return z.real, z.imag


def _complex(context, builder, cplxty, real, imag):
    z = context.make_complex(builder, cplxty)
    z.real = real
    z.imag = imag
    return z._getvalue()


class _FloatOps:
    """Arithmetic on LLVM floats of one precision, with libdevice for the functions."""

    def __init__(self, context, builder, fltty):
        self.context, self.builder, self.fltty = context, builder, fltty

    def const(self, value):
        return self.context.get_constant(self.fltty, value)

    def fn(self, base, *args):
        return call_math(self.context, self.builder, base, self.fltty, args)

    def add(self, a, b):
        return self.builder.fadd(a, b)

    def sub(self, a, b):
        return self.builder.fsub(a, b)

    def mul(self, a, b):
        return self.builder.fmul(a, b)

    def div(self, a, b):
        return self.builder.fdiv(a, b)


def _lower_complex_unary(compute):
    def impl(context, builder, sig, args):
        cplxty = sig.args[0]
        ops = _FloatOps(context, builder, cplxty.underlying_float)
        x, y = _parts(context, builder, cplxty, args[0])
        real, imag = compute(ops, x, y)
        return _complex(context, builder, sig.return_type, real, imag)

    return impl


def _cexp(o, x, y):
    r = o.fn("exp", x)
    return o.mul(r, o.fn("cos", y)), o.mul(r, o.fn("sin", y))


def _clog(o, x, y):
    return o.fn("log", o.fn("hypot", x, y)), o.fn("atan2", y, x)


def _clog10(o, x, y):
    re, im = _clog(o, x, y)
    inv_ln10 = o.const(1.0 / math.log(10.0))
    return o.mul(re, inv_ln10), o.mul(im, inv_ln10)


def _csqrt(o, x, y):
    # sqrt(z) = t + i*y/(2t) with t = sqrt((|z| + x)/2) for x >= 0; mirrored for x < 0.
    b = o.builder
    half = o.const(0.5)
    r = o.fn("hypot", x, y)
    t_pos = o.fn("sqrt", o.mul(o.add(r, x), half))
    t_neg = o.fn("sqrt", o.mul(o.sub(r, x), half))
    nonneg = b.fcmp_ordered(">=", x, o.const(0.0))
    is_zero = b.and_(b.fcmp_ordered("==", x, o.const(0.0)), b.fcmp_ordered("==", y, o.const(0.0)))
    two = o.const(2.0)
    re_pos, im_pos = t_pos, o.div(y, o.mul(two, t_pos))
    re_neg = o.div(o.fn("fabs", y), o.mul(two, t_neg))
    im_neg = o.fn("copysign", t_neg, y)
    re = b.select(nonneg, re_pos, re_neg)
    im = b.select(nonneg, im_pos, im_neg)
    re = b.select(is_zero, o.const(0.0), re)
    im = b.select(is_zero, y, im)
    return re, im


def _csin(o, x, y):
    return o.mul(o.fn("sin", x), o.fn("cosh", y)), o.mul(o.fn("cos", x), o.fn("sinh", y))


def _ccos(o, x, y):
    b = o.builder
    im = o.mul(o.fn("sin", x), o.fn("sinh", y))
    return o.mul(o.fn("cos", x), o.fn("cosh", y)), b.fsub(o.const(-0.0), im)


def _ctan(o, x, y):
    two = o.const(2.0)
    denom = o.add(o.fn("cos", o.mul(two, x)), o.fn("cosh", o.mul(two, y)))
    return o.div(o.fn("sin", o.mul(two, x)), denom), o.div(o.fn("sinh", o.mul(two, y)), denom)


def _csinh(o, x, y):
    return o.mul(o.fn("sinh", x), o.fn("cos", y)), o.mul(o.fn("cosh", x), o.fn("sin", y))


def _ccosh(o, x, y):
    return o.mul(o.fn("cosh", x), o.fn("cos", y)), o.mul(o.fn("sinh", x), o.fn("sin", y))


def _ctanh(o, x, y):
    two = o.const(2.0)
    denom = o.add(o.fn("cosh", o.mul(two, x)), o.fn("cos", o.mul(two, y)))
    return o.div(o.fn("sinh", o.mul(two, x)), denom), o.div(o.fn("sin", o.mul(two, y)), denom)


for _func, _compute in (
    (cmath.exp, _cexp), (cmath.log, _clog), (cmath.log10, _clog10), (cmath.sqrt, _csqrt),
    (cmath.sin, _csin), (cmath.cos, _ccos), (cmath.tan, _ctan),
    (cmath.sinh, _csinh), (cmath.cosh, _ccosh), (cmath.tanh, _ctanh),
):
    lower(_func, types.Complex)(_lower_complex_unary(_compute))


@lower(cmath.phase, types.Complex)
def _lower_phase(context, builder, sig, args):
    cplxty = sig.args[0]
    x, y = _parts(context, builder, cplxty, args[0])
    return call_math(context, builder, "atan2", cplxty.underlying_float, [y, x])


@lower(cmath.polar, types.Complex)
def _lower_polar(context, builder, sig, args):
    cplxty = sig.args[0]
    fltty = cplxty.underlying_float
    x, y = _parts(context, builder, cplxty, args[0])
    modulus = call_math(context, builder, "hypot", fltty, [x, y])
    angle = call_math(context, builder, "atan2", fltty, [y, x])
    return context.make_tuple(builder, sig.return_type, [modulus, angle])


@lower(cmath.rect, types.Float, types.Float)
def _lower_rect(context, builder, sig, args):
    fltty = sig.args[0]
    r, phi = args
    real = builder.fmul(r, call_math(context, builder, "cos", fltty, [phi]))
    imag = builder.fmul(r, call_math(context, builder, "sin", fltty, [phi]))
    return _complex(context, builder, sig.return_type, real, imag)


def _lower_complex_predicate(kind):
    def impl(context, builder, sig, args):
        x, y = _parts(context, builder, sig.args[0], args[0])
        px = float_predicate(builder, kind, x)
        py = float_predicate(builder, kind, y)
        return builder.and_(px, py) if kind == "isfinite" else builder.or_(px, py)

    return impl


for _func in (cmath.isnan, cmath.isinf, cmath.isfinite):
    lower(_func, types.Complex)(_lower_complex_predicate(_func.__name__))


@lower(cmath.log, types.Complex, types.Complex)
def _lower_log_base(context, builder, sig, args):
    cplxty = sig.args[0]
    ops = _FloatOps(context, builder, cplxty.underlying_float)
    a_re, a_im = _clog(ops, *_parts(context, builder, cplxty, args[0]))
    b_re, b_im = _clog(ops, *_parts(context, builder, cplxty, args[1]))
    # (a_re + i a_im) / (b_re + i b_im)
    denom = ops.add(ops.mul(b_re, b_re), ops.mul(b_im, b_im))
    real = ops.div(ops.add(ops.mul(a_re, b_re), ops.mul(a_im, b_im)), denom)
    imag = ops.div(ops.sub(ops.mul(a_im, b_re), ops.mul(a_re, b_im)), denom)
    return _complex(context, builder, sig.return_type, real, imag)


# ---- lowering: complex power -----------------------------------------------------------


#: Integer exponents up to this magnitude are computed by repeated multiplication, as CPython
#: (and NumPy) do: exact where the products are, and Python's answer bit for bit.
COMPLEX_POWER_LOOP_LIMIT = 100


def _complex_product(o, a, b):
    """``a * b`` on (real, imag) pairs, in the order of CPython's ``_Py_c_prod``."""
    (ar, ai), (br, bi) = a, b
    return o.sub(o.mul(ar, br), o.mul(ai, bi)), o.add(o.mul(ar, bi), o.mul(ai, br))


def _complex_reciprocal(o, z):
    """``1 / z`` as CPython's ``_Py_c_quot(1, z)`` computes it; ``nan+nanj`` where Python raises
    ``ZeroDivisionError`` (``z == 0``) and where a part of ``z`` is a NaN."""
    b = o.builder
    zr, zi = z
    one, zero, nan = o.const(1.0), o.const(0.0), o.const(math.nan)
    abs_r, abs_i = o.fn("fabs", zr), o.fn("fabs", zi)
    # |zr| >= |zi|: divide top and bottom by zr
    ratio = o.div(zi, zr)
    denom = o.add(zr, o.mul(zi, ratio))
    by_real = (o.div(o.add(one, o.mul(zero, ratio)), denom),
               o.div(o.sub(zero, o.mul(one, ratio)), denom))
    # |zi| >= |zr|: divide top and bottom by zi
    ratio = o.div(zr, zi)
    denom = o.add(o.mul(zr, ratio), zi)
    by_imag = (o.div(o.add(o.mul(one, ratio), zero), denom),
               o.div(o.sub(o.mul(zero, ratio), one), denom))
    use_real = b.fcmp_ordered(">=", abs_r, abs_i)
    use_imag = b.fcmp_ordered(">=", abs_i, abs_r)
    is_zero = b.fcmp_ordered("==", abs_r, zero)
    parts = []
    for k in (0, 1):
        part = b.select(use_imag, by_imag[k], nan)
        parts.append(b.select(use_real, b.select(is_zero, nan, by_real[k]), part))
    return tuple(parts)


def _complex_int_power(o, a, n):
    """``a ** n`` for an i64 ``n`` (``|n| <= COMPLEX_POWER_LOOP_LIMIT``): CPython's ``c_powi``,
    square-and-multiply from the low bit, then the reciprocal for a negative ``n``."""
    b = o.builder
    i64t = n.type
    llfloat = a[0].type
    negative = b.icmp_signed("<", n, i64t(0))
    e0 = b.select(negative, b.neg(n), n)
    entry = b.block
    head = b.append_basic_block("cpow.int.loop")
    body = b.append_basic_block("cpow.int.body")
    end = b.append_basic_block("cpow.int.end")
    b.branch(head)
    b.position_at_end(head)
    phis = [b.phi(llfloat) for _ in range(4)] + [b.phi(i64t)]
    r_re, r_im, p_re, p_im, e = phis
    for phi, value in zip(phis, (o.const(1.0), o.const(0.0), a[0], a[1], e0)):
        phi.add_incoming(value, entry)
    b.cbranch(b.icmp_unsigned("!=", e, i64t(0)), body, end)
    b.position_at_end(body)
    odd = b.trunc(e, ir.IntType(1))
    prod = _complex_product(o, (r_re, r_im), (p_re, p_im))
    square = _complex_product(o, (p_re, p_im), (p_re, p_im))
    nexts = (b.select(odd, prod[0], r_re), b.select(odd, prod[1], r_im), square[0], square[1],
             b.lshr(e, i64t(1)))
    for phi, value in zip(phis, nexts):
        phi.add_incoming(value, body)
    b.branch(head)
    b.position_at_end(end)
    inverse = _complex_reciprocal(o, (r_re, r_im))
    return tuple(b.select(negative, inv, part) for inv, part in zip(inverse, (r_re, r_im)))


def _complex_general_power(o, a, w):
    """``a ** w`` for ``a != 0`` in polar form, CPython's ``_Py_c_pow``."""
    b = o.builder
    (ar, ai), (wr, wi) = a, w
    vabs = o.fn("hypot", ar, ai)
    length = o.fn("pow", vabs, wr)
    at = o.fn("atan2", ai, ar)
    phase = o.mul(at, wr)
    # if (w.imag != 0.0): len /= exp(at * w.imag); phase += w.imag * log(vabs)
    has_imag = b.fcmp_unordered("!=", wi, o.const(0.0))
    length = b.select(has_imag, o.div(length, o.fn("exp", o.mul(at, wi))), length)
    phase = b.select(has_imag, o.add(phase, o.mul(wi, o.fn("log", vabs))), phase)
    return o.mul(length, o.fn("cos", phase)), o.mul(length, o.fn("sin", phase))


def _lower_complex_pow(context, builder, sig, args):
    """``a ** w`` on complex numbers of one type (Numba types ``complex ** int`` and ``int/float **
    complex`` as this) in libdevice: Numba's own lowering calls its CPU helper ``numba_cpow``,
    which the GPU does not have.

    CPython's algorithm (``complex_pow``), in float32 for ``complex64``: ``w == 0`` gives ``1``;
    an integer ``w`` with ``|w| <= 100`` repeated multiplication (then the reciprocal for a
    negative ``w``); otherwise ``0 ** w`` is ``0``, or ``nan+nanj`` when ``w`` has an imaginary part
    or a negative real part, and any other ``a ** w`` the polar form (``hypot``, ``pow``,
    ``atan2``, ``exp``, ``log``, ``cos``, ``sin``).  Where Python raises ``ZeroDivisionError`` the
    result is ``nan+nanj``, as Numba's CPU target gives."""
    cplxty = sig.args[0]
    o = _FloatOps(context, builder, cplxty.underlying_float)
    a = _parts(context, builder, cplxty, args[0])
    w = _parts(context, builder, sig.args[1], args[1])
    zero, one, nan = o.const(0.0), o.const(1.0), o.const(math.nan)
    ar, ai = a
    wr, wi = w

    w_is_zero = builder.and_(builder.fcmp_ordered("==", wr, zero),
                             builder.fcmp_ordered("==", wi, zero))
    a_is_zero = builder.and_(builder.fcmp_ordered("==", ar, zero),
                             builder.fcmp_ordered("==", ai, zero))
    small_int = builder.and_(builder.fcmp_ordered("==", wi, zero),
                             builder.fcmp_ordered("==", o.fn("floor", wr), wr))
    small_int = builder.and_(small_int, builder.fcmp_ordered(
        "<=", o.fn("fabs", wr), o.const(float(COMPLEX_POWER_LOOP_LIMIT))))
    # Python: ZeroDivisionError for 0 ** w when (w.imag != 0. || w.real < 0.)
    zero_domain_error = builder.or_(builder.fcmp_unordered("!=", wi, zero),
                                    builder.fcmp_ordered("<", wr, zero))
    zero_result = builder.select(zero_domain_error, nan, zero)

    results = []  # (block, real, imag) flowing into ``done``
    done = builder.append_basic_block("cpow.done")
    not_unit = builder.append_basic_block("cpow.not_unit")
    by_int = builder.append_basic_block("cpow.by_int")
    not_int = builder.append_basic_block("cpow.not_int")
    by_polar = builder.append_basic_block("cpow.by_polar")

    results.append((builder.block, one, zero))
    builder.cbranch(w_is_zero, done, not_unit)

    builder.position_at_end(not_unit)
    builder.cbranch(small_int, by_int, not_int)

    builder.position_at_end(by_int)
    int_re, int_im = _complex_int_power(o, a, builder.fptosi(wr, ir.IntType(64)))
    results.append((builder.block, int_re, int_im))
    builder.branch(done)

    builder.position_at_end(not_int)
    results.append((builder.block, zero_result, zero_result))
    builder.cbranch(a_is_zero, done, by_polar)

    builder.position_at_end(by_polar)
    polar_re, polar_im = _complex_general_power(o, a, w)
    results.append((builder.block, polar_re, polar_im))
    builder.branch(done)

    builder.position_at_end(done)
    real, imag = builder.phi(zero.type), builder.phi(zero.type)
    for block, re_, im_ in results:
        real.add_incoming(re_, block)
        imag.add_incoming(im_, block)
    return _complex(context, builder, sig.return_type, real, imag)


for _op in (pow, operator.pow, operator.ipow):
    for _cplxty in _COMPLEX:
        lower(_op, _cplxty, _cplxty)(_lower_complex_pow)

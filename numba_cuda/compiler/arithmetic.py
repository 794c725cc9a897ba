"""Complex multiply/divide and integer powers lowered straight to IR.

Numba implements ``complex * complex``, ``complex / complex`` and ``x ** n`` (integer ``n`` known
only at run time) by compiling a small Python function through a whole nested pipeline
(``context.compile_internal``) the first time each is used in a process: 0.1-0.3 s each.  The
functions here emit the same computation directly, with the same semantics as Numba's helpers:

* the operation order of CPython's algorithms (``_Py_c_prod``, ``_Py_c_quot``);
* Numba's nested helpers are compiled with the Python error model whatever the caller's, so a
  float division by zero inside them raises ``ZeroDivisionError`` (the function returns an error
  status), and ``0 ** -n`` follows the caller's error model (Numba's
  ``_get_power_zerodiv_return``);
* ``math.pow`` above an exponent of 65536, as Numba does.

Python 3.14 changed complex multiplication and division (infinities recovered from ``nan``
results); on 3.14+ Numba's own implementations are used unchanged.

Registered for concrete types, so they are chosen over Numba's generic (``types.Complex``,
``types.Float``) registrations.  A compiler-owned kernel-language family: ``typing_registry``
(empty) and ``lowering_registry``.
"""

import math
import operator

from llvmlite import ir

from numba.core import cgutils, imputils, types, utils
from numba.core.typing import signature
from numba.core.typing import templates

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.arithmetic")
lower = lowering_registry.lower

#: Python 3.14 changed CPython's complex product and quotient; Numba follows it there.
_PY314 = utils.PYVERSION >= (3, 14)
#: Numba's cut-off above which ``x ** n`` uses ``math.pow``.
_POWER_LOOP_LIMIT = 0x10000


def _float_div_checked(context, builder, num, den):
    """``num / den`` as Numba's Python error model lowers it: ZeroDivisionError on zero."""
    with cgutils.if_zero(builder, den):
        context.call_conv.return_user_exc(builder, ZeroDivisionError, ("division by zero",))
    return builder.fdiv(num, den)


def _parts(context, builder, cplxty, value):
    z = context.make_complex(builder, cplxty, value=value)
    return z.real, z.imag


def _make_complex(context, builder, cplxty, real, imag):
    z = context.make_complex(builder, cplxty)
    z.real = real
    z.imag = imag
    return z._getvalue()


def lower_complex_mul(context, builder, sig, args):
    """``z * w`` for two complex numbers of the same type (CPython's ``_Py_c_prod``)."""
    if _PY314:
        from numba.cpython.numbers import complex_mul_impl

        return complex_mul_impl(context, builder, sig, args)
    cplxty = sig.args[0]
    a, b = _parts(context, builder, cplxty, args[0])
    c, d = _parts(context, builder, cplxty, args[1])
    real = builder.fsub(builder.fmul(a, c), builder.fmul(b, d))
    imag = builder.fadd(builder.fmul(a, d), builder.fmul(b, c))
    res = _make_complex(context, builder, cplxty, real, imag)
    return context.cast(builder, res, cplxty, sig.return_type)


def lower_complex_div(context, builder, sig, args):
    """``z / w`` for two complex numbers of the same type (CPython's ``_Py_c_quot``):
    ``ZeroDivisionError`` when ``w == 0``, ``nan+nanj`` when a part of ``w`` is a NaN."""
    if _PY314:
        from numba.cpython.numbers import complex_div_impl

        return complex_div_impl(context, builder, sig, args)
    cplxty = sig.args[0]
    fltty = cplxty.underlying_float
    llfloat = context.get_value_type(fltty)
    areal, aimag = _parts(context, builder, cplxty, args[0])
    breal, bimag = _parts(context, builder, cplxty, args[1])
    fabs = context.get_function(abs, signature(fltty, fltty))
    abs_breal = fabs(builder, [breal])
    abs_bimag = fabs(builder, [bimag])
    zero = llfloat(0.0)

    by_real = builder.append_basic_block("cdiv.by_real")
    not_real = builder.append_basic_block("cdiv.not_real")
    by_imag = builder.append_basic_block("cdiv.by_imag")
    nan_part = builder.append_basic_block("cdiv.nan")
    done = builder.append_basic_block("cdiv.done")

    builder.cbranch(builder.fcmp_ordered(">=", abs_breal, abs_bimag), by_real, not_real)

    builder.position_at_end(by_real)
    with cgutils.if_unlikely(builder, builder.fcmp_ordered("==", abs_breal, zero)):
        context.call_conv.return_user_exc(builder, ZeroDivisionError,
                                          ("complex division by zero",))
    ratio = _float_div_checked(context, builder, bimag, breal)
    denom = builder.fadd(breal, builder.fmul(bimag, ratio))
    real1 = _float_div_checked(context, builder, builder.fadd(areal, builder.fmul(aimag, ratio)),
                               denom)
    imag1 = _float_div_checked(context, builder, builder.fsub(aimag, builder.fmul(areal, ratio)),
                               denom)
    from_real = builder.block
    builder.branch(done)

    builder.position_at_end(not_real)
    builder.cbranch(builder.fcmp_ordered(">=", abs_bimag, abs_breal), by_imag, nan_part)

    builder.position_at_end(by_imag)
    ratio = _float_div_checked(context, builder, breal, bimag)
    denom = builder.fadd(builder.fmul(breal, ratio), bimag)
    real2 = _float_div_checked(context, builder, builder.fadd(builder.fmul(areal, ratio), aimag),
                               denom)
    imag2 = _float_div_checked(context, builder, builder.fsub(builder.fmul(aimag, ratio), areal),
                               denom)
    from_imag = builder.block
    builder.branch(done)

    builder.position_at_end(nan_part)
    nan = llfloat(math.nan)
    builder.branch(done)

    builder.position_at_end(done)
    real = builder.phi(llfloat)
    imag = builder.phi(llfloat)
    for block, re_, im_ in ((from_real, real1, imag1), (from_imag, real2, imag2),
                            (nan_part, nan, nan)):
        real.add_incoming(re_, block)
        imag.add_incoming(im_, block)
    res = _make_complex(context, builder, cplxty, real, imag)
    return context.cast(builder, res, cplxty, sig.return_type)


def lower_int_power(context, builder, sig, args):
    """``a ** b`` with an integer exponent ``b`` known at run time (integer or float ``a``):
    square-and-multiply, Numba's ``int_power`` step for step."""
    from numba.cpython.numbers import _get_power_zerodiv_return

    aty, bty = sig.args
    tp = sig.return_type
    lltp = context.get_value_type(tp)
    # Numba types ``-b`` (and so the loop counter) as a 64-bit integer of b's signedness.
    llexp = ir.IntType(64)
    is_integer = isinstance(aty, types.Integer)
    zerodiv_return = _get_power_zerodiv_return(context, tp)

    base = context.cast(builder, args[0], aty, tp)
    b = args[1]
    if bty.signed:
        # ``exp = -b``: Numba negates in b's own width (INT_MIN wraps: OverflowError below),
        # then widens to the 64-bit result type.
        negated = builder.neg(b)
        negated = builder.sext(negated, llexp) if negated.type.width < 64 else negated
    if b.type.width < 64:
        b = builder.sext(b, llexp) if bty.signed else builder.zext(b, llexp)
    if not bty.signed:
        negated = b  # never used: an unsigned exponent is never negative
    one = lltp(1)
    mul = builder.mul if isinstance(tp, types.Integer) else builder.fmul

    result = cgutils.alloca_once(builder, lltp, name="ipow.result")
    invert_ptr = cgutils.alloca_once(builder, ir.IntType(1), name="ipow.invert")
    exp_ptr = cgutils.alloca_once(builder, llexp, name="ipow.exp")
    done = builder.append_basic_block("ipow.done")

    if bty.signed:
        is_negative = builder.icmp_signed("<", b, llexp(0))
    else:
        is_negative = cgutils.false_bit
    with builder.if_else(is_negative) as (then, otherwise):
        with then:
            builder.store(cgutils.true_bit, invert_ptr)
            exp = negated
            builder.store(exp, exp_ptr)
            with cgutils.if_unlikely(builder, builder.icmp_signed("<", exp, llexp(0))):
                context.call_conv.return_user_exc(builder, OverflowError, ())
            if is_integer:
                with builder.if_then(builder.icmp_signed("==", base, lltp(0)), likely=False):
                    if zerodiv_return:
                        builder.store(lltp(zerodiv_return), result)
                        builder.branch(done)
                    else:
                        context.call_conv.return_user_exc(
                            builder, ZeroDivisionError, ("0 cannot be raised to a negative power",))
                not_unit = builder.and_(builder.icmp_signed("!=", base, lltp(1)),
                                        builder.icmp_signed("!=", base, lltp(-1)))
                with builder.if_then(not_unit):
                    builder.store(lltp(0), result)
                    builder.branch(done)
        with otherwise:
            builder.store(cgutils.false_bit, invert_ptr)
            builder.store(b, exp_ptr)

    exp = builder.load(exp_ptr)
    cmp = builder.icmp_signed if bty.signed else builder.icmp_unsigned
    with builder.if_then(cmp(">", exp, llexp(_POWER_LOOP_LIMIT)), likely=False):
        # math.pow(a, float(b)) as Numba's helper calls it, then back to the result type.
        powsig = context.typing_context.resolve_function_type(math.pow, (tp, types.float64), {})
        x = context.cast(builder, base, tp, powsig.args[0])
        y = context.cast(builder, context.cast(builder, args[1], bty, types.float64),
                         types.float64, powsig.args[1])
        value = context.get_function(math.pow, powsig)(builder, [x, y])
        builder.store(context.cast(builder, value, powsig.return_type, tp), result)
        builder.branch(done)

    # while exp != 0: if exp & 1: r *= a; exp >>= 1; a *= a
    loop_head = builder.append_basic_block("ipow.loop")
    loop_body = builder.append_basic_block("ipow.body")
    loop_end = builder.append_basic_block("ipow.end")
    entry = builder.block
    builder.branch(loop_head)
    builder.position_at_end(loop_head)
    r_phi = builder.phi(lltp)
    a_phi = builder.phi(lltp)
    e_phi = builder.phi(llexp)
    r_phi.add_incoming(one, entry)
    a_phi.add_incoming(base, entry)
    e_phi.add_incoming(exp, entry)
    builder.cbranch(builder.icmp_unsigned("!=", e_phi, llexp(0)), loop_body, loop_end)
    builder.position_at_end(loop_body)
    odd = builder.trunc(e_phi, ir.IntType(1))
    r_next = builder.select(odd, mul(r_phi, a_phi), r_phi)
    e_next = builder.ashr(e_phi, llexp(1)) if bty.signed else builder.lshr(e_phi, llexp(1))
    a_next = mul(a_phi, a_phi)
    r_phi.add_incoming(r_next, loop_body)
    a_phi.add_incoming(a_next, loop_body)
    e_phi.add_incoming(e_next, loop_body)
    builder.branch(loop_head)

    builder.position_at_end(loop_end)
    # return 1.0 / r if invert else r   (a float64 division under the Python error model)
    with builder.if_else(builder.load(invert_ptr)) as (then, otherwise):
        with then:
            r64 = context.cast(builder, r_phi, tp, types.float64)
            inv = _float_div_checked(context, builder, ir.Constant(ir.DoubleType(), 1.0), r64)
            builder.store(context.cast(builder, inv, types.float64, tp), result)
        with otherwise:
            builder.store(r_phi, result)
    builder.branch(done)
    builder.position_at_end(done)
    return builder.load(result)


def _register():
    for cplxty in (types.complex64, types.complex128):
        for op in (operator.mul, operator.imul):
            lower(op, cplxty, cplxty)(lower_complex_mul)
        for op in (operator.truediv, operator.itruediv):
            lower(op, cplxty, cplxty)(lower_complex_div)
    # Same (base, exponent) pairs as Numba's int_power_impl registrations, made concrete.
    for op in (operator.pow, operator.ipow, pow):
        for intty in types.integer_domain:
            lower(op, intty, intty)(lower_int_power)
            for fltty in (types.float32, types.float64):
                lower(op, fltty, intty)(lower_int_power)


_register()

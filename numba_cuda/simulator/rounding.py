"""Correctly rounded float32/float64 arithmetic in the four IEEE rounding modes.

What the GPU's ``add.rz.f32``, ``mul.ru.f64``, ``sqrt.rd.f64``, ``fma.rn.f32``, ``cvt.rz.f32.f64``
... compute, and libdevice's ``__nv_fadd_rz``, ``__nv_dmul_ru`` ... call: the exact result
(integer and :class:`fractions.Fraction` arithmetic on the operands' exact values) rounded once,
toward nearest-even (``rn``), zero (``rz``), +infinity (``ru``) or -infinity (``rd``), with
IEEE overflow, gradual underflow (subnormals are kept: no flush to zero) and signed zeros.
Results are Python floats holding a value of the format (exactly representable).
"""

import math
from fractions import Fraction

#: (significand bits, smallest normal exponent, exponent bound: values are < 2**emax)
F32 = (24, -126, 128)
F64 = (53, -1022, 1024)

MODES = ("rn", "rz", "ru", "rd")


def _floor_log2(q):
    """floor(log2(q)) of a positive Fraction."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    # 2**e <= q < 2**(e+1) after the adjustment
    if e >= 0:
        if n < d << e:
            e -= 1
    elif n << -e < d:
        e -= 1
    return e


def _finish(negative, m, above_half, exact_half, inexact, qexp, fmt, mode):
    """The value m * 2**qexp (m the truncated significand) rounded by the remainder's position."""
    prec, emin, emax = fmt
    if mode == "rn":
        if above_half or (exact_half and m & 1):
            m += 1
    elif inexact and ((mode == "ru" and not negative) or (mode == "rd" and negative)):
        m += 1
    if m.bit_length() + qexp > emax:  # overflowed the format
        toward_zero = mode == "rz" or (mode == "ru" and negative) or (mode == "rd" and not negative)
        value = math.ldexp((1 << prec) - 1, emax - prec) if toward_zero else math.inf
    else:
        value = math.ldexp(m, qexp)
    return -value if negative else value


def round_fraction(q, fmt, mode):
    """The nonzero rational ``q`` rounded to the format ``fmt`` (:data:`F32`/:data:`F64`) in
    ``mode`` (one of :data:`MODES`)."""
    prec, emin, emax = fmt
    negative = q < 0
    a = -q if negative else q
    e = _floor_log2(a)
    qexp = max(e, emin) - (prec - 1)
    scaled = a / 2**qexp if qexp >= 0 else a * 2**-qexp
    m, rem = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rem
    return _finish(negative, m, twice > scaled.denominator, twice == scaled.denominator,
                   rem != 0, qexp, fmt, mode)


def round_sqrt(q, fmt, mode):
    """sqrt(q) of a positive rational, rounded to ``fmt`` in ``mode``."""
    prec, emin, emax = fmt
    e = _floor_log2(q) // 2  # floor(log2(sqrt(q)))
    qexp = max(e, emin) - (prec - 1)
    scaled = q / 4**qexp if qexp >= 0 else q * 4**-qexp  # sqrt(scaled) = sqrt(q) / 2**qexp
    n, d = scaled.numerator, scaled.denominator
    m = math.isqrt(n // d)
    # sqrt(n/d) vs m + 1/2  <=>  4n vs (2m+1)**2 d
    lhs, rhs = 4 * n, (2 * m + 1) ** 2 * d
    return _finish(False, m, lhs > rhs, lhs == rhs, m * m * d != n, qexp, fmt, mode)


def _zero_sum(addends_all_zero_negative, mode):
    """The sign of an exact zero sum: -0 when every addend is -0; otherwise +0, except -0 when
    rounding toward -infinity (IEEE 754 6.3)."""
    if addends_all_zero_negative or mode == "rd":
        return -0.0
    return 0.0


def _special(op, values, as_format):
    """The IEEE result where an operand is infinite or NaN, or the result is exact by rule
    (division by zero, square root of zero or of a negative number): the same in every mode."""
    import numpy as np

    with np.errstate(all="ignore"):
        v = [as_format(x) for x in values]
        if op == "add":
            r = v[0] + v[1]
        elif op == "mul":
            r = v[0] * v[1]
        elif op == "div":
            r = v[0] / v[1]
        elif op == "sqrt":
            r = np.sqrt(v[0])
        elif op == "fma":
            if math.isfinite(values[0]) and math.isfinite(values[1]):
                return float(values[2])  # a finite product plus an infinity or NaN
            r = np.float64(values[0]) * values[1] + values[2]  # inf/NaN product: exact
        else:  # pragma: no cover
            raise ValueError(op)
    return float(r)


def _as_format(fmt):
    import numpy as np

    return np.float32 if fmt is F32 else np.float64


def add(a, b, fmt, mode):
    """a + b, correctly rounded."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return _special("add", (a, b), _as_format(fmt))
    exact = Fraction(a) + Fraction(b)
    if exact == 0:
        both_negative_zero = a == 0 and b == 0 and math.copysign(1, a) < 0 and math.copysign(1, b) < 0
        return _zero_sum(both_negative_zero, mode)
    return round_fraction(exact, fmt, mode)


def mul(a, b, fmt, mode):
    """a * b, correctly rounded."""
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return _special("mul", (a, b), _as_format(fmt))
    return round_fraction(Fraction(a) * Fraction(b), fmt, mode)


def div(a, b, fmt, mode):
    """a / b, correctly rounded."""
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return _special("div", (a, b), _as_format(fmt))
    return round_fraction(Fraction(a) / Fraction(b), fmt, mode)


def sqrt(a, fmt, mode):
    """sqrt(a), correctly rounded."""
    if not math.isfinite(a) or a <= 0:
        return _special("sqrt", (a,), _as_format(fmt))
    return round_sqrt(Fraction(a), fmt, mode)


def rsqrt(a, fmt, mode):
    """1 / sqrt(a), correctly rounded."""
    if math.isnan(a) or a < 0:
        return math.nan
    if a == 0:
        return math.copysign(math.inf, a)
    if a == math.inf:
        return 0.0
    return round_sqrt(1 / Fraction(a), fmt, mode)


def fma(a, b, c, fmt, mode):
    """a * b + c, rounded once."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return _special("fma", (a, b, c), _as_format(fmt))
    product = Fraction(a) * Fraction(b)
    exact = product + Fraction(c)
    if exact == 0:
        product_negative = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
        both_negative_zero = product == 0 and c == 0 and product_negative and math.copysign(1, c) < 0
        return _zero_sum(both_negative_zero, mode)
    return round_fraction(exact, fmt, mode)


def convert(x, fmt, mode):
    """A float or an integer converted to ``fmt`` in ``mode`` (``cvt.r*.f32.f64``, ``cvt.r*.f32.s64`` ...)."""
    if isinstance(x, float):
        if not math.isfinite(x) or x == 0:
            return x
    elif x == 0:
        return 0.0
    return round_fraction(Fraction(x), fmt, mode)


def to_integer(x, mode, bits, signed):
    """``cvt.r*i.s32.f64`` & co.: ``x`` rounded to an integer in ``mode``, saturated to the
    integer type's range; NaN gives 0."""
    if math.isnan(x):
        return 0
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isinf(x):
        return hi if x > 0 else lo
    if mode == "rn":
        n = round(x)  # Python rounds half to even, on the exact value
    elif mode == "rz":
        n = math.trunc(x)
    elif mode == "ru":
        n = math.ceil(x)
    else:
        n = math.floor(x)
    return min(max(n, lo), hi)

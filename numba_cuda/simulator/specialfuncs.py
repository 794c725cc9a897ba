"""Special functions libdevice has and Python's ``math`` lacks, in double precision.

Bessel functions of the first and second kind (``j0``, ``j1``, ``jn``, ``y0``, ``y1``, ``yn``)
and modified Bessel functions of the first kind (``cyl_bessel_i0``/``i1``), the inverse error
functions (``erfinv``, ``erfcinv``, ``normcdfinv``), the scaled complementary error function
``erfcx`` and ``normcdf``.  Power series are summed exactly (rational arithmetic on the
argument's exact value) where they cancel, Hankel's asymptotic expansions serve large
arguments, inverses are Newton iterations on ``math.erf``/``math.erfc``/:func:`erfcx`.  The
results are within a few units in the last place of the true values (absolute error ~1e-16
near the zeros of the Bessel functions), as libdevice's are; they are not libdevice's bits.
"""

import math
from fractions import Fraction

_EULER_GAMMA = 0.5772156649015329
_SERIES_LIMIT = 25.0  # |x| up to which the power series is summed; Hankel beyond
_TWO_OVER_PI = 2 / math.pi
_INV_SQRT_PI = 1 / math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
# 1/sqrt(2) as a sum of two doubles (hi + lo), for normcdf
_INV_SQRT2_HI = 0.7071067811865476
_INV_SQRT2_LO = -4.833646656726457e-17


def _j_series(n, x):
    """J_n(x) = sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!), summed exactly (n >= 0)."""
    half = Fraction(x) / 2
    term = half**n / math.factorial(n)
    q = half * half
    total = term
    k = 0
    while True:
        k += 1
        term = -term * q / (k * (k + n))
        total += term
        if k > abs(x) and abs(term) < abs(total) * Fraction(1, 2**64) or term == 0:
            return total
        if k > 4 * abs(x) + 200:  # the sum is 0 to within far below a double's resolution
            return total


def _hankel(n, x):
    """P, Q of Hankel's expansion of J_n, Y_n for large x > 0."""
    mu = 4.0 * n * n
    p, q = 1.0, 0.0
    term = 1.0
    k = 1
    last = math.inf
    while k < 200:
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if abs(term) >= last or abs(term) < 1e-18:
            break
        last = abs(term)
        if k % 2:
            q += term if (k // 2) % 2 == 0 else -term
        else:
            p += -term if (k // 2) % 2 else term
        k += 1
    return p, q


def _phase(n, x):
    """cos and sin of x - (n/2 + 1/4) pi for n = 0, 1, from cos x and sin x (exactly reduced)."""
    c, s = math.cos(x), math.sin(x)
    r = math.sqrt(0.5)
    if n == 0:
        return (c + s) * r, (s - c) * r
    return (s - c) * r, -(s + c) * r


def _j01_large(n, x):
    p, q = _hankel(n, x)
    cos_chi, sin_chi = _phase(n, x)
    return math.sqrt(_TWO_OVER_PI / x) * (p * cos_chi - q * sin_chi)


def _y01_large(n, x):
    p, q = _hankel(n, x)
    cos_chi, sin_chi = _phase(n, x)
    return math.sqrt(_TWO_OVER_PI / x) * (p * sin_chi + q * cos_chi)


def jn(n, x):
    """Bessel function of the first kind of integer order n."""
    if math.isnan(x):
        return math.nan
    if n < 0:
        return jn(-n, x) * (-1 if n % 2 else 1)
    if math.isinf(x):
        return 0.0
    sign = -1.0 if x < 0 and n % 2 else 1.0
    ax = abs(x)
    if ax <= _SERIES_LIMIT or n >= ax:
        return sign * float(_j_series(n, ax))
    j0, j1 = _j01_large(0, ax), _j01_large(1, ax)
    if n == 0:
        return sign * j0
    for k in range(1, n):  # forward recurrence: stable while k < x
        j0, j1 = j1, 2 * k / ax * j1 - j0
    return sign * j1


def j0(x):
    return jn(0, x)


def j1(x):
    return jn(1, x)


def _harmonic_series_y(n, x):
    """The series parts of Y_0 and Y_1 (exact sums)."""
    half = Fraction(x) / 2
    q = half * half
    total = Fraction(0)
    if n == 0:
        term, h, k = Fraction(1), Fraction(0), 0
        while True:
            k += 1
            term = -term * q / (k * k)
            h += Fraction(1, k)
            contribution = -term * h
            total += contribution
            if k > x and abs(contribution) < abs(total) * Fraction(1, 2**64) or k > 4 * x + 200:
                return total
    term, h0, h1, k = half, Fraction(0), Fraction(1), 0
    total = term * (h0 + h1)
    while True:
        k += 1
        term = -term * q / (k * (k + 1))
        h0, h1 = h1, h1 + Fraction(1, k + 1)
        contribution = term * (h0 + h1)
        total += contribution
        if k > x and abs(contribution) < abs(total) * Fraction(1, 2**64) or k > 4 * x + 200:
            return total


def _y01(n, x):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return 0.0
    if x > _SERIES_LIMIT:
        return _y01_large(n, x)
    log_term = math.log(x / 2) + _EULER_GAMMA
    if n == 0:
        return _TWO_OVER_PI * (log_term * float(_j_series(0, x)) + float(_harmonic_series_y(0, x)))
    return (_TWO_OVER_PI * log_term * float(_j_series(1, x)) - _TWO_OVER_PI / x
            - float(_harmonic_series_y(1, x)) / math.pi)


def y0(x):
    return _y01(0, x)


def y1(x):
    return _y01(1, x)


def yn(n, x):
    """Bessel function of the second kind of integer order n (forward recurrence: stable)."""
    if n < 0:
        return yn(-n, x) * (-1 if n % 2 else 1)
    a, b = y0(x), y1(x)
    if n == 0:
        return a
    if not math.isfinite(b):
        return b
    for k in range(1, n):
        a, b = b, 2 * k / x * b - a
        if math.isinf(b):
            return -math.inf
    return b


def _i_series(n, x):
    """I_n(|x|) = sum_k (|x|/2)^(2k+n) / (k! (k+n)!) for n = 0, 1: positive terms, summed in
    binary fixed point with 128 fractional bits (integer arithmetic), then rounded once."""
    ax = abs(x)
    if ax > 715:  # I_0, I_1 overflow a double past 713.98
        return math.inf
    if ax == 0:
        return 1.0 if n == 0 else 0.0
    num, den = Fraction(ax).as_integer_ratio()  # den is a power of two
    bits = 128
    one = 1 << bits
    term = one if n == 0 else (one * num) // (2 * den)
    q_num, q_den = num * num, 4 * den * den
    total = term
    k = 0
    while True:
        k += 1
        term = term * q_num // (q_den * k * (k + n))
        total += term
        if term == 0 or (k > ax / 2 and term < total >> 70):
            break
    return total / one


def cyl_bessel_i0(x):
    if math.isnan(x):
        return math.nan
    return _i_series(0, x)


def cyl_bessel_i1(x):
    if math.isnan(x):
        return math.nan
    return math.copysign(_i_series(1, x), x)


# ---- error functions ---------------------------------------------------------------------


def erfcx(x):
    """exp(x*x) * erfc(x)."""
    if math.isnan(x):
        return math.nan
    if x >= 26.0:
        # asymptotic series: 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k
        t = 1.0 / (2 * x * x)
        total, term, k = 1.0, 1.0, 1
        while True:
            term *= -(2 * k - 1) * t
            if abs(term) < 1e-18:
                break
            total += term
            k += 1
        return total * _INV_SQRT_PI / x
    hi = x * x
    if hi > 709.7:
        return math.inf
    lo = float(Fraction(x) ** 2 - Fraction(hi))  # x*x = hi + lo exactly (to a double's precision)
    return math.exp(hi) * (1 + lo) * math.erfc(x)


def _erf_newton(a):
    """x with erf(x) = a, for 0 <= a <= 0.5."""
    x = a * math.sqrt(math.pi) / 2
    for _ in range(60):
        step = (math.erf(x) - a) / (_TWO_OVER_SQRT_PI * math.exp(-x * x))
        x -= step
        if abs(step) <= abs(x) * 1e-17:
            break
    return x


def _erfc_newton(t):
    """x with erfc(x) = t, for 0 < t <= 0.5 (Newton on log(erfc), through erfcx: no underflow)."""
    x = math.sqrt(-math.log(t))
    log_t = math.log(t)
    for _ in range(100):
        # log erfc(x) = log(erfcx(x)) - x*x; its derivative is -2 / (sqrt(pi) erfcx(x))
        ex = erfcx(x)
        g = math.log(ex) - x * x - log_t
        step = g / (-_TWO_OVER_SQRT_PI / ex)
        x -= step
        if abs(step) <= x * 1e-17:
            break
    return x


def erfinv(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    a = abs(y)
    x = _erf_newton(a) if a <= 0.5 else _erfc_newton(1.0 - a)  # 1 - a is exact here
    return math.copysign(x, y)


def erfcinv(y):
    if math.isnan(y) or y < 0 or y > 2:
        return math.nan
    if y == 0:
        return math.inf
    if y == 2:
        return -math.inf
    if y >= 0.5:
        return erfinv(1.0 - y)  # exact for y in [0.5, 2]
    return _erfc_newton(y)


def normcdf(x):
    """Phi(x) = erfc(-x / sqrt(2)) / 2, with -x/sqrt(2) carried to beyond a double's precision."""
    if math.isnan(x):
        return math.nan
    u = -x * _INV_SQRT2_HI
    u_lo = float(Fraction(-x) * Fraction(_INV_SQRT2_HI) - Fraction(u)) - x * _INV_SQRT2_LO \
        if math.isfinite(x) else 0.0
    value = math.erfc(u)
    if u_lo and math.isfinite(u):
        value -= _TWO_OVER_SQRT_PI * math.exp(-u * u) * u_lo
    return 0.5 * value


def normcdfinv(p):
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    return -math.sqrt(2) * erfcinv(2 * p) + 0.0  # +0 at p = 1/2

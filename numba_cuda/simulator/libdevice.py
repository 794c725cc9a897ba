"""``cuda.libdevice`` in the simulator: every function of the GPU target's table, in Python.

Under ``NUMBA_ENABLE_CUDASIM=1``, ``numba.cuda.libdevice`` (``cuda.libdevice``,
``from numba.cuda.libdevice import sinf``) is this module.  Each function takes and returns
what the GPU target's does (:data:`numba_cuda.lang.libdevice_functions.FUNCTIONS`): arguments
are converted to the C prototype's types (float32 -> ``np.float32``, integers wrapped to their
width), results are NumPy scalars of the return type (``np.float32``, ``np.int32``,
``np.uint64`` ...), and out-pointer parameters come back as a tuple after the result, as on the
GPU: ``sincos(x) -> (s, c)``, ``frexp(x) -> (m, e)``, ``modf(x) -> (frac, whole)``,
``remquo(x, y) -> (r, q)``.

What the GPU computes exactly is computed exactly: integer and bit functions (``popc``,
``byte_perm``, ``umulhi`` ...), reinterpretations, conversions and arithmetic in every rounding
mode (``fadd_rz``, ``dsqrt_rd``, ``fma_ru``, ``double2int_rn`` ...: :mod:`.rounding`), rounding
to integers, ``fmod``/``remainder``/``frexp``/``ldexp``.  Transcendental functions are
Python's/NumPy's double-precision values (rounded to float32 for the float32 functions) or
:mod:`.specialfuncs`': they may differ from libdevice's by the ulps libdevice documents for
each function, and the ``fast_*`` functions by the larger errors of the GPU's approximate
instructions.
"""

import math
import struct

import numpy as np

from ..lang.libdevice_functions import FUNCTIONS as _TABLE
from . import rounding as _r
from . import specialfuncs as _sf

_F32, _F64 = _r.F32, _r.F64
_INT_TYPES = {"i16": np.int16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}
# The module's own abs/max/min/round are libdevice's (int32) once it is built: Python's here.
_abs, _max, _min, _round = abs, max, min, round
_BITS = {"i16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64}


# ---- argument and result conversion --------------------------------------------------------


def _wrap(value, code):
    bits = _BITS[code]
    v = int(value) & ((1 << bits) - 1)
    if code[0] == "i" and v >> (bits - 1):
        v -= 1 << bits
    return v


def _to_int_arg(value, code):
    if isinstance(value, (float, np.floating)):
        f = float(value)
        value = 0 if not math.isfinite(f) else math.trunc(f)  # fptosi
    return _wrap(value, code)


def _argument(value, code):
    """A kernel value as the C prototype's type: np.float32, float, or a wrapped Python int."""
    if code == "f32":
        return value if type(value) is np.float32 else np.float32(value)
    if code == "f64":
        return value if type(value) is np.float64 else np.float64(value)
    return _to_int_arg(value, code)


def _result(value, code):
    if code == "f32":
        return value if type(value) is np.float32 else np.float32(value)
    if code == "f64":
        return value if type(value) is np.float64 else np.float64(value)
    return _INT_TYPES[code](_wrap(value, code))


def _make(name, impl):
    ret, params = _TABLE[name]
    inputs = tuple(p for p in params if not p.startswith("p"))
    outputs = tuple(p[1:] for p in params if p.startswith("p"))
    results = ((ret,) if ret != "void" else ()) + outputs
    nargs = len(inputs)

    def libdevice_function(*args):
        if len(args) != nargs:
            raise TypeError(f"cuda.libdevice.{name}() takes {nargs} argument(s) "
                            f"({', '.join(inputs)}), {len(args)} given")
        with np.errstate(all="ignore"):  # the GPU's IEEE results, without NumPy's warnings
            out = impl(*[_argument(a, c) for a, c in zip(args, inputs)])
            if len(results) == 1:
                return _result(out, results[0])
            return tuple(_result(v, c) for v, c in zip(out, results))

    libdevice_function.__name__ = libdevice_function.__qualname__ = name
    signature = f"{name}({', '.join(inputs)}) -> " + (
        f"({', '.join(results)})" if len(results) > 1 else results[0] if results else "None")
    libdevice_function.__doc__ = f"{signature}: libdevice __nv_{name}, simulated."
    return libdevice_function


# ---- helpers ---------------------------------------------------------------------------------


def _real(fn, ufunc):
    """A math function giving IEEE results (NaN, +-inf) where Python's math raises."""

    def f(*args):
        floats = [float(a) for a in args]
        try:
            return fn(*floats)
        except (ValueError, OverflowError, ZeroDivisionError):
            return float(ufunc(*[np.float64(a) for a in floats]))

    return f


def _f32(fn):
    """A float32 function computed in double precision (the result is rounded to float32)."""
    return lambda *args: fn(*[float(a) if isinstance(a, np.floating) else a for a in args])


def _bits_of(x):
    if type(x) is np.float32:
        return int(x.view(np.uint32))
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def _double_from_bits(bits):
    return np.uint64(bits & (2**64 - 1)).view(np.float64)


def _float_from_bits(bits):
    return np.uint32(bits & (2**32 - 1)).view(np.float32)


def _sinpi(x):
    x = float(x)
    if not math.isfinite(x):
        return math.nan
    r = math.fmod(x, 2.0)  # exact
    y = _abs(r)
    sign = math.copysign(1.0, x)
    if y >= 1.0:
        y -= 1.0
        sign = -sign
    if y > 0.5:
        y = 1.0 - y
    if y == 0:
        return math.copysign(0.0, x)
    return sign * math.sin(math.pi * y)


def _cospi(x):
    x = float(x)
    if not math.isfinite(x):
        return math.nan
    y = math.fmod(_abs(x), 2.0)
    if y > 1.0:
        y = 2.0 - y
    if y <= 0.25:
        return math.cos(math.pi * y)
    if y <= 0.75:
        return math.sin(math.pi * (0.5 - y)) + 0.0  # +0 at y = 0.5
    return -math.cos(math.pi * (1.0 - y))


def _round_half_away(x):
    x = float(x)
    if not math.isfinite(x):
        return x
    t = float(math.trunc(x)) if _abs(x) < 2**53 else x
    if _abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return math.copysign(t, x)


def _ilogb(x):
    x = float(x)
    if math.isnan(x) or x == 0:
        return -(2**31)
    if math.isinf(x):
        return 2**31 - 1
    return math.frexp(x)[1] - 1


def _logb(x):
    x = float(x)
    if math.isnan(x):
        return x
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return float(math.frexp(x)[1] - 1)


def _ldexp(x, n):
    x = float(x)
    try:
        return math.ldexp(x, int(n))
    except OverflowError:
        return math.copysign(math.inf, x)


def _remquo(x, y):
    x, y = float(x), float(y)
    r = _remainder(x, y)
    if not math.isfinite(r) or y == 0 or math.isinf(x):
        return r, 0
    from fractions import Fraction

    q = (Fraction(x) - Fraction(r)) / Fraction(y)  # an integer, exactly
    quo = int(_abs(q)) & 7
    negative = (x < 0) != (y < 0)
    return r, -quo if negative else quo


def _remainder(x, y):
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _fmod(x, y):
    try:
        return math.fmod(x, y)
    except ValueError:
        return math.nan


def _fmax(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        return x if math.copysign(1, x) > 0 else y
    return _max(x, y)


def _fmin(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        return x if math.copysign(1, x) < 0 else y
    return _min(x, y)


def _fdim(x, y):
    if x <= y:
        return 0.0
    return x - y  # NaN when either is


def _tgamma(x):
    if math.isnan(x) or x == math.inf:
        return x
    if x == 0:
        return math.copysign(math.inf, x)
    if x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf
    except ValueError:  # pragma: no cover - handled above
        return math.nan


def _lgamma(x):
    if math.isinf(x):
        return math.inf
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _reciprocal(d):
    return float(np.float64(1.0) / np.float64(d))


def _rcp64h(x):
    """``rcp.approx.ftz.f64``: a reciprocal from the upper 32 bits of x, the result's lower 32 bits
    zero (subnormal inputs flushed to zero)."""
    x = float(x)
    if x != 0 and _abs(x) < 2.0**-1022:
        x = math.copysign(0.0, x)
    hi_only = _double_from_bits(_bits_of(x) & ~0xFFFFFFFF)
    r = _reciprocal(hi_only)
    return _double_from_bits(_bits_of(r) & ~0xFFFFFFFF)


def _norm_slot(name):
    """``norm(dim)``/``rnorm(dim)`` & co.: the GPU target passes libdevice's array argument ``p``
    as a one-element out slot (zero here, as the simulator's local memory), so the norm of at
    most one element (zero) is defined; ``dim`` beyond 1 would read past the slot."""
    reciprocal = name.startswith("r")

    def impl(dim):
        if dim > 1:
            raise ValueError(
                f"cuda.libdevice.{name}({dim}): the array argument p of __nv_{name} is passed as "
                f"a one-element slot, so dim > 1 reads past it (undefined on the GPU); use "
                f"norm3d/norm4d or hypot")
        return (math.inf if reciprocal else 0.0), 0.0

    return impl


def _hypot_n(*xs):
    return math.hypot(*[float(x) for x in xs])


def _rhypot_n(*xs):
    return _reciprocal(_hypot_n(*xs))


def _byte_perm(x, y, s):
    value = (y << 32) | x
    s &= 0x7777
    return sum(((value >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


def _sext24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def _brev(v, bits):
    return int(format(v & ((1 << bits) - 1), f"0{bits}b")[::-1], 2)


def _clz(v, bits):
    return bits - (v & ((1 << bits) - 1)).bit_length()


def _ffs(v, bits):
    u = v & ((1 << bits) - 1)
    return (u & -u).bit_length()


def _saturate(x):
    if math.isnan(x):
        return 0.0
    return _min(_max(x, 0.0), 1.0)


def _half_bits(x):
    return int(np.float16(x).view(np.int16))


def _from_half_bits(v):
    return np.float32(np.int16(v).view(np.float16))


def _isnan(x):
    return int(math.isnan(float(x)))


def _isinf(x):
    return int(math.isinf(float(x)))


def _isfinite(x):
    return int(math.isfinite(float(x)))


def _signbit(x):
    return int(math.copysign(1.0, float(x)) < 0)


def _nextafter32(x, y):
    return np.nextafter(np.float32(x), np.float32(y))


def _nextafter64(x, y):
    return np.nextafter(np.float64(x), np.float64(y))


def _exp10(x):
    return _real(lambda v: math.pow(10.0, v), lambda v: np.power(10.0, v))(x)


def _exp2(x):
    return _real(lambda v: math.pow(2.0, v), np.exp2)(x)


def _sqrt_rn(fmt):
    return lambda x: _r.sqrt(float(x), fmt, "rn")


def _llrint(x):
    return _r.to_integer(float(np.rint(float(x))), "rz", 64, True)


def _llround(x):
    return _r.to_integer(_round_half_away(x), "rz", 64, True)


def _rcbrt(x):
    return _reciprocal(float(np.cbrt(float(x))))


def _powi(x, n):
    return _real(math.pow, np.power)(float(x), float(n))


# ---- the functions ---------------------------------------------------------------------------

_M = math
_DOUBLE = {
    # name: implementation on Python floats / ints (the float32 twins "<name>f" reuse it)
    "acos": _real(_M.acos, np.arccos), "acosh": _real(_M.acosh, np.arccosh),
    "asin": _real(_M.asin, np.arcsin), "asinh": _real(_M.asinh, np.arcsinh),
    "atan": _real(_M.atan, np.arctan), "atan2": _real(_M.atan2, np.arctan2),
    "atanh": _real(_M.atanh, np.arctanh), "cbrt": lambda x: float(np.cbrt(float(x))),
    "ceil": lambda x: float(np.ceil(float(x))), "copysign": lambda x, y: _M.copysign(x, y),
    "cos": _real(_M.cos, np.cos), "cosh": _real(_M.cosh, np.cosh), "cospi": _cospi,
    "cyl_bessel_i0": _sf.cyl_bessel_i0, "cyl_bessel_i1": _sf.cyl_bessel_i1,
    "erf": _M.erf, "erfc": _M.erfc,
    "erfcinv": _sf.erfcinv, "erfcx": _sf.erfcx, "erfinv": _sf.erfinv,
    "exp": _real(_M.exp, np.exp), "exp10": _exp10, "exp2": _exp2,
    "expm1": _real(_M.expm1, np.expm1), "fabs": lambda x: _abs(float(x)), "fdim": _fdim,
    "floor": lambda x: float(np.floor(float(x))),
    "fmax": _fmax, "fmin": _fmin, "fmod": _fmod, "frexp": lambda x: _M.frexp(float(x)),
    "hypot": _real(_M.hypot, np.hypot), "ilogb": _ilogb, "j0": _sf.j0, "j1": _sf.j1,
    "jn": lambda n, x: _sf.jn(n, float(x)), "ldexp": _ldexp, "lgamma": _lgamma,
    "log": _real(_M.log, np.log), "log10": _real(_M.log10, np.log10),
    "log1p": _real(_M.log1p, np.log1p), "log2": _real(_M.log2, np.log2), "logb": _logb,
    "modf": lambda x: _M.modf(float(x)), "nearbyint": lambda x: float(np.rint(float(x))),
    "norm3d": _hypot_n, "norm4d": _hypot_n, "normcdf": _sf.normcdf,
    "normcdfinv": _sf.normcdfinv, "pow": _real(_M.pow, np.power), "powi": _powi,
    "rcbrt": _rcbrt, "remainder": _remainder, "remquo": _remquo, "rhypot": _rhypot_n,
    "rint": lambda x: float(np.rint(float(x))), "rnorm3d": _rhypot_n, "rnorm4d": _rhypot_n,
    "round": _round_half_away, "scalbn": _ldexp,
    "sin": _real(_M.sin, np.sin), "sinh": _real(_M.sinh, np.sinh), "sinpi": _sinpi,
    "sincos": lambda x: (_real(_M.sin, np.sin)(x), _real(_M.cos, np.cos)(x)),
    "sincospi": lambda x: (_sinpi(x), _cospi(x)),
    "tan": _real(_M.tan, np.tan), "tanh": _real(_M.tanh, np.tanh), "tgamma": _tgamma,
    "trunc": lambda x: float(np.trunc(float(x))), "y0": _sf.y0, "y1": _sf.y1,
    "yn": lambda n, x: _sf.yn(n, float(x)),
}

_IMPLS = {}
for _name, _impl in _DOUBLE.items():
    _IMPLS[_name] = _impl
    if _name + "f" in _TABLE:
        _IMPLS[_name + "f"] = _f32(_impl)

_IMPLS.update({
    # correctly rounded: double and float32 differ
    "sqrt": _sqrt_rn(_F64), "sqrtf": _sqrt_rn(_F32),
    "rsqrt": lambda x: _r.rsqrt(float(x), _F64, "rn"),
    "rsqrtf": lambda x: _r.rsqrt(float(x), _F32, "rn"),
    "frsqrt_rn": lambda x: _r.rsqrt(float(x), _F32, "rn"),
    "fma": lambda a, b, c: _r.fma(float(a), float(b), float(c), _F64, "rn"),
    "fmaf": lambda a, b, c: _r.fma(float(a), float(b), float(c), _F32, "rn"),
    "nextafter": _nextafter64, "nextafterf": _nextafter32,
    "saturatef": lambda x: _saturate(float(x)),
    "rcp64h": _rcp64h,
    "norm": _norm_slot("norm"), "normf": _norm_slot("normf"),
    "rnorm": _norm_slot("rnorm"), "rnormf": _norm_slot("rnormf"),
    "llrint": _llrint, "llrintf": _llrint, "llround": _llround, "llroundf": _llround,
    # classification
    "finitef": _isfinite, "isfinited": _isfinite, "isinfd": _isinf, "isinff": _isinf,
    "isnand": _isnan, "isnanf": _isnan, "signbitd": _signbit, "signbitf": _signbit,
    # bit reinterpretations
    "double2hiint": lambda x: _bits_of(x) >> 32, "double2loint": lambda x: _bits_of(x),
    "hiloint2double": lambda hi, lo: _double_from_bits(((hi & 0xFFFFFFFF) << 32) | (lo & 0xFFFFFFFF)),
    "double_as_longlong": _bits_of, "longlong_as_double": _double_from_bits,
    "float_as_int": _bits_of, "float_as_uint": _bits_of,
    "int_as_float": _float_from_bits, "uint_as_float": _float_from_bits,
    "float2half_rn": _half_bits, "half2float": _from_half_bits,
    # integers
    "abs": _abs, "llabs": _abs, "max": _max, "min": _min, "llmax": _max, "llmin": _min,
    "umax": _max, "umin": _min, "ullmax": _max, "ullmin": _min,
    "brev": lambda v: _brev(v, 32), "brevll": lambda v: _brev(v, 64),
    "clz": lambda v: _clz(v, 32), "clzll": lambda v: _clz(v, 64),
    "ffs": lambda v: _ffs(v, 32), "ffsll": lambda v: _ffs(v, 64),
    "popc": lambda v: bin(v).count("1"), "popcll": lambda v: bin(v).count("1"),
    "byte_perm": _byte_perm,
    "hadd": lambda a, b: (a + b) >> 1, "uhadd": lambda a, b: (a + b) >> 1,
    "rhadd": lambda a, b: (a + b + 1) >> 1, "urhadd": lambda a, b: (a + b + 1) >> 1,
    "mul24": lambda a, b: _sext24(a) * _sext24(b),
    "umul24": lambda a, b: (a & 0xFFFFFF) * (b & 0xFFFFFF),
    "mulhi": lambda a, b: (a * b) >> 32, "umulhi": lambda a, b: (a * b) >> 32,
    "mul64hi": lambda a, b: (a * b) >> 64, "umul64hi": lambda a, b: (a * b) >> 64,
    "sad": lambda x, y, z: _abs(x - y) + z, "usad": lambda x, y, z: _abs(x - y) + z,
    # fast approximations: the correctly rounded value (the GPU's differ by more)
    "fast_cosf": _IMPLS["cosf"], "fast_sinf": _IMPLS["sinf"], "fast_tanf": _IMPLS["tanf"],
    "fast_expf": _IMPLS["expf"], "fast_exp10f": _IMPLS["exp10f"],
    "fast_logf": _IMPLS["logf"], "fast_log2f": _IMPLS["log2f"],
    "fast_log10f": _IMPLS["log10f"], "fast_powf": _IMPLS["powf"],
    "fast_tanhf": _IMPLS["tanhf"], "fast_sincosf": _IMPLS["sincosf"],
    "fast_fdividef": lambda x, y: _r.div(float(x), float(y), _F32, "rn"),
})


def _install_rounded():
    """The directed-rounding arithmetic and conversions: ``<op>_<mode>`` for every mode."""
    for mode in _r.MODES:
        for prefix, fmt in (("d", _F64), ("f", _F32)):
            _IMPLS[f"{prefix}add_{mode}"] = lambda a, b, f=fmt, m=mode: _r.add(float(a), float(b), f, m)
            _IMPLS[f"{prefix}sub_{mode}"] = lambda a, b, f=fmt, m=mode: _r.add(float(a), -float(b), f, m)
            _IMPLS[f"{prefix}mul_{mode}"] = lambda a, b, f=fmt, m=mode: _r.mul(float(a), float(b), f, m)
            _IMPLS[f"{prefix}div_{mode}"] = lambda a, b, f=fmt, m=mode: _r.div(float(a), float(b), f, m)
            _IMPLS[f"{prefix}rcp_{mode}"] = lambda a, f=fmt, m=mode: _r.div(1.0, float(a), f, m)
            _IMPLS[f"{prefix}sqrt_{mode}"] = lambda a, f=fmt, m=mode: _r.sqrt(float(a), f, m)
        fma = lambda a, b, c, f, m: _r.fma(float(a), float(b), float(c), f, m)  # noqa: E731
        _IMPLS[f"fma_{mode}"] = lambda a, b, c, m=mode: fma(a, b, c, _F64, m)
        _IMPLS[f"fmaf_{mode}"] = lambda a, b, c, m=mode: fma(a, b, c, _F32, m)
        _IMPLS[f"fmaf_ieee_{mode}"] = lambda a, b, c, m=mode: fma(a, b, c, _F32, m)
        _IMPLS[f"double2float_{mode}"] = lambda x, m=mode: _r.convert(float(x), _F32, m)
        for src in ("double", "float"):
            for dst, bits, signed in (("int", 32, True), ("uint", 32, False),
                                      ("ll", 64, True), ("ull", 64, False)):
                _IMPLS[f"{src}2{dst}_{mode}"] = lambda x, m=mode, b=bits, s=signed: \
                    _r.to_integer(float(x), m, b, s)
        for src in ("int", "uint", "ll", "ull"):
            _IMPLS[f"{src}2float_{mode}"] = lambda v, m=mode: _r.convert(int(v), _F32, m)
            _IMPLS[f"{src}2double_{mode}"] = lambda v, m=mode: _r.convert(int(v), _F64, m)


_install_rounded()


def _names():
    return sorted(name for name, (_, params) in _TABLE.items() if "pi8" not in params)


def _build():
    missing = [name for name in _names() if name not in _IMPLS]
    if missing:  # pragma: no cover - a new table entry needs an implementation here
        raise ImportError(f"the simulator's libdevice lacks {missing}")
    return {name: _make(name, _IMPLS[name]) for name in _names()}


globals().update(_build())
__all__ = _names()
del _name, _impl

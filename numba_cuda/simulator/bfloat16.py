"""``cuda.bf16`` in the simulator: a bfloat16 scalar type and the functions of ``cuda.bf16``.

Values are rounded to bfloat16 (8 significant bits, float32's exponent range) to nearest-even,
from any number with a single rounding, as the compiled target does.  Arithmetic between two
bfloat16 values (or a bfloat16 and a Python int) gives a bfloat16; with a float32/float16 it
gives a float32, with anything else a float64 (again as compiled).  Math functions compute in
float32 and round.
"""

import math
import operator
import types as _pytypes

import numpy as np

_QUANTUM_EXP = 8  # significant bits
_MIN_QUANTUM = 2.0 ** -133  # subnormal spacing
_MAX = (2.0 - 2.0 ** -7) * 2.0 ** 127


def round_to_bfloat16(value):
    """The float nearest to ``value`` on the bfloat16 grid (ties to even), inf beyond its range."""
    v = float(value)
    if math.isnan(v) or math.isinf(v) or v == 0.0:
        return v
    _, exponent = math.frexp(v)
    quantum = max(2.0 ** (exponent - _QUANTUM_EXP), _MIN_QUANTUM)
    rounded = round(v / quantum) * quantum  # round() is ties-to-even and exact here
    if abs(rounded) > _MAX:
        return math.copysign(math.inf, v)
    return rounded


class bfloat16:
    """A bfloat16 value (``cuda.bf16.bfloat16(x)``)."""

    __slots__ = ("_value",)

    def __init__(self, value=0.0):
        self._value = round_to_bfloat16(value._value if isinstance(value, bfloat16) else value)

    def __float__(self):
        return self._value

    def __int__(self):
        return int(self._value)

    def __bool__(self):
        return self._value != 0.0

    def __repr__(self):
        return f"bfloat16({self._value!r})"

    def __hash__(self):
        return hash(self._value)

    def __neg__(self):
        return bfloat16(-self._value)

    def __pos__(self):
        return self

    def __abs__(self):
        return bfloat16(abs(self._value))


def _promote(a, b):
    """(a, b, result constructor) as the compiled target computes a binary operation."""
    other = b if isinstance(a, bfloat16) else a
    if isinstance(other, (bfloat16, int, bool)) and not isinstance(other, np.generic):
        return np.float64(float(a)), np.float64(float(b)), bfloat16
    if isinstance(other, (np.float32, np.float16)):
        return np.float32(float(a)), np.float32(float(b)), np.float32
    return np.float64(float(a)), np.float64(float(b)), np.float64


def _binary(op):
    def forward(self, other):
        a, b, result = _promote(self, other)
        with np.errstate(all="ignore"):  # x/0 is inf or NaN, as on the GPU
            return result(op(a, b))

    def reverse(self, other):
        a, b, result = _promote(other, self)
        with np.errstate(all="ignore"):
            return result(op(a, b))

    return forward, reverse


def _compare(op):
    def method(self, other):
        a, b, _ = _promote(self, other)
        return bool(op(a, b))

    return method


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv)):
    _fwd, _rev = _binary(_op)
    setattr(bfloat16, f"__{_name}__", _fwd)
    setattr(bfloat16, f"__r{_name}__", _rev)
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(bfloat16, f"__{_name}__", _compare(getattr(operator, _name)))


def _f32(x):
    return np.float32(float(x))


def _via_float32(fn):
    def compute(a):
        with np.errstate(all="ignore"):
            return bfloat16(float(fn(_f32(a))))

    return compute


def _sat(value):
    v = float(value)
    return bfloat16(0.0 if not v > 0.0 else (v if v < 1.0 else 1.0))


def _relu(value):
    v = float(value)
    return bfloat16(math.nan if math.isnan(v) else (0.0 if v < 0.0 else v))


def _add(a, b):
    return bfloat16(float(a) + float(b))


def _sub(a, b):
    return bfloat16(float(a) - float(b))


def _mul(a, b):
    return bfloat16(float(a) * float(b))


def _fma(a, b, c):
    return bfloat16(float(a) * float(b) + float(c))


def _div(a, b):
    with np.errstate(all="ignore"):
        return bfloat16(np.float64(float(a)) / np.float64(float(b)))


bf16 = _pytypes.ModuleType("numba.cuda.bf16", "bfloat16 values, arithmetic and math (simulator).")
bf16.bfloat16 = bfloat16
_FUNCTIONS = dict(
    htrunc=_via_float32(np.trunc), hceil=_via_float32(np.ceil), hfloor=_via_float32(np.floor),
    hrint=_via_float32(np.rint), hsqrt=_via_float32(np.sqrt),
    hrsqrt=_via_float32(lambda x: np.float32(1) / np.sqrt(x)),
    hrcp=_via_float32(lambda x: np.float32(1) / x), hlog=_via_float32(np.log),
    hlog2=_via_float32(np.log2), hlog10=_via_float32(np.log10), hcos=_via_float32(np.cos),
    hsin=_via_float32(np.sin), htanh=_via_float32(np.tanh), htanh_approx=_via_float32(np.tanh),
    hexp=_via_float32(np.exp), hexp2=_via_float32(np.exp2),
    hexp10=_via_float32(lambda x: np.power(np.float32(10), x)),
    habs=lambda a: abs(bfloat16(a)), hneg=lambda a: -bfloat16(a),
    hadd=_add, hadd_rn=_add, hadd_sat=lambda a, b: _sat(_add(a, b)),
    hsub=_sub, hsub_rn=_sub, hsub_sat=lambda a, b: _sat(_sub(a, b)),
    hmul=_mul, hmul_rn=_mul, hmul_sat=lambda a, b: _sat(_mul(a, b)),
    hdiv=_div, hfma=_fma, hfma_sat=lambda a, b, c: _sat(_fma(a, b, c)),
    hfma_relu=lambda a, b, c: _relu(_fma(a, b, c)),
)
for _name, _fn in _FUNCTIONS.items():
    setattr(bf16, _name, _fn)

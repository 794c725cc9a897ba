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
from fractions import Fraction

import numpy as np

from ..lang.stubs import BF16_CONVERSIONS, BF16_INTEGERS, BF16_ROUNDINGS
from .halffamily import common_functions

_QUANTUM_EXP = 8  # significant bits
_MIN_QUANTUM = 2.0 ** -133  # subnormal spacing
_MAX = (2.0 - 2.0 ** -7) * 2.0 ** 127


def _round_exact(value, mode):
    """Integers and directed rounding: exact rational arithmetic (no double rounding)."""
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, (int, np.integer)):
        exact = Fraction(int(value))
    else:
        v = float(value)
        if math.isnan(v) or math.isinf(v) or v == 0.0:
            return v
        exact = Fraction(v)
    if exact == 0:
        return 0.0
    negative = exact < 0
    a = -exact if negative else exact
    exponent = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exponent > a:
        exponent -= 1
    quantum = Fraction(2) ** max(exponent - (_QUANTUM_EXP - 1), -133)
    q = a / quantum
    up = (mode == "ru" and not negative) or (mode == "rd" and negative)
    n = round(q) if mode == "rn" else (math.ceil(q) if up else math.floor(q))
    magnitude = float(n * quantum)
    if magnitude > _MAX:
        magnitude = math.inf if mode == "rn" or up else _MAX
    return -magnitude if negative else magnitude


def round_to_bfloat16(value, mode="rn"):
    """The float nearest to ``value`` on the bfloat16 grid (ties to even), inf beyond its range;
    ``mode`` rz/rd/ru rounds toward zero, down or up instead (overflowing to the largest finite
    value or inf as IEEE directed rounding does).  Integers are rounded exactly."""
    if mode != "rn" or (isinstance(value, (int, np.integer)) and not isinstance(value, bool)):
        return _round_exact(value, mode)
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


def bits_of(value):
    """The 16 bits of a bfloat16 (NaN: 0x7FFF, the canonical NaN the GPU produces)."""
    v = float(value)
    if math.isnan(v):
        return 0x7FFF
    return int(np.array(v, np.float32).view(np.uint32)) >> 16


def from_bits(bits):
    return bfloat16(float(np.array((int(bits) & 0xFFFF) << 16, np.uint32).view(np.float32)))


def _to_integer(value, dtype, mode):
    """CUDA's bfloat16 -> integer conversions: round by mode, saturate, NaN -> 0."""
    v = float(value)
    info = np.iinfo(dtype)
    if math.isnan(v):
        return dtype(0)
    if math.isinf(v):
        return dtype(info.max if v > 0 else info.min)
    n = {"rn": round, "rz": math.trunc, "rd": math.floor, "ru": math.ceil}[mode](v)
    return dtype(min(max(n, info.min), info.max))


def _conversions():
    out = {"bfloat162float": lambda b: np.float32(float(b)),
           "float2bfloat16": lambda x: bfloat16(np.float32(x)),
           "double2bfloat16": lambda x: bfloat16(float(x)),
           "bfloat162char_rz": lambda b: _to_integer(b, np.int8, "rz"),
           "bfloat162uchar_rz": lambda b: _to_integer(b, np.uint8, "rz"),
           "bfloat16_as_short": lambda b: np.array(bits_of(b), np.uint16).view(np.int16)[()],
           "bfloat16_as_ushort": lambda b: np.uint16(bits_of(b)),
           "short_as_bfloat16": from_bits, "ushort_as_bfloat16": from_bits}
    for mode in BF16_ROUNDINGS:
        out[f"float2bfloat16_{mode}"] = (
            lambda m: lambda x: _exact(round_to_bfloat16(np.float32(x), m)))(mode)
        for cname, npname in BF16_INTEGERS.items():
            dtype = getattr(np, npname)
            out[f"{cname}2bfloat16_{mode}"] = (
                lambda m, t: lambda x: _exact(round_to_bfloat16(int(t(x)), m)))(mode, dtype)
            out[f"bfloat162{cname}_{mode}"] = (
                lambda m, t: lambda b: _to_integer(b, t, m))(mode, dtype)
    return out


def _exact(value):
    """A bfloat16 of a value already on the bfloat16 grid."""
    b = bfloat16()
    b._value = value
    return b


bf16 = _pytypes.ModuleType("numba.cuda.bf16", "bfloat16 values, arithmetic, math and conversions (simulator).")
bf16.bfloat16 = bfloat16
_FUNCTIONS = dict(
    common_functions(bfloat16),
    habs=lambda a: abs(bfloat16(a)), hneg=lambda a: -bfloat16(a),
    hadd=_add, hadd_rn=_add, hadd_sat=lambda a, b: _sat(_add(a, b)),
    hsub=_sub, hsub_rn=_sub, hsub_sat=lambda a, b: _sat(_sub(a, b)),
    hmul=_mul, hmul_rn=_mul, hmul_sat=lambda a, b: _sat(_mul(a, b)),
    hdiv=_div, hfma=_fma, hfma_sat=lambda a, b, c: _sat(_fma(a, b, c)),
    hfma_relu=lambda a, b, c: _relu(_fma(a, b, c)),
    **_conversions(),
)
for _name, _fn in _FUNCTIONS.items():
    setattr(bf16, _name, _fn)
for _cuda_name, _numpy_name in BF16_CONVERSIONS.items():
    setattr(bf16, _numpy_name, _FUNCTIONS[_cuda_name])


_PEER_INTERNAL = []


def peer_internal_module():
    """``numba.cuda._internal.cuda_bf16`` (NVIDIA's private module of its bf16 bindings): the
    ``cuda.bf16`` functions, with ``nv_bfloat16`` the bfloat16 type."""
    if not _PEER_INTERNAL:
        module = _pytypes.ModuleType("numba.cuda._internal.cuda_bf16", peer_internal_module.__doc__)
        for name, value in vars(bf16).items():
            if not name.startswith("_"):
                setattr(module, name, value)
        module.nv_bfloat16 = bfloat16
        _PEER_INTERNAL.append(module)
    return _PEER_INTERNAL[0]

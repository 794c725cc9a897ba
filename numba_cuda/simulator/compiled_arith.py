"""The GPU answers that Numba's CPU code does not give, for compiled simulator kernels (:mod:`.compiled`).

Where the CPU's instruction differs from PTX's, the rewrite calls these instead, so a compiled
kernel computes what the Python simulator computes (and the GPU):

* shifts (``<<``, ``>>``): PTX takes the count's low 32 bits as an unsigned number and clamps it
  to the width, so a count of 64 or more, or a negative one (unless its low 32 bits are below
  64), gives 0 (-1 for a negative value shifted right); x86 takes the count modulo 64;
* ``math.floor``/``ceil``/``trunc`` keep the float type (``float32`` for ``float32``, ``float64``
  for ``float64`` and any integer), as the CUDA target types them (CUDA's ``floorf``/``floor``),
  where Numba's CPU target gives an integer;
* ``int(x)`` of an integer keeps its type, as Numba's typing (the CUDA target's too) says;
* float to integer conversions (``int(x)``, ``round(x)``, ``math.floor``/``ceil``/``trunc``,
  ``np.int32(x)``, ``numba.uint8(x)`` ..., and a float stored into an integer array element or
  record field): truncation toward zero, saturated at the type's limits (at least 16 bits wide,
  then the low bits), NaN giving 0, as ``cvt.rzi``; x86 gives the most negative value.

Each keeps the type Numba's typing gives the operation it stands for.  Imported only when the
compiled mode is used.
"""

import math

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

_OPTIONS = dict(boundscheck=True, error_model="numpy")


def _count_mask(count):
    """``count & 63`` in ``count``'s own type (compiled only)."""


def stored(ary, value):
    """``value`` as it is stored into an element of ``ary`` (compiled only)."""


def converted(target, value):
    """``target(value)`` for a number class ``target`` (compiled only)."""


def _count_u32(count):
    """``count``'s low 32 bits, unsigned, as PTX reads a shift count (compiled only)."""


def _width(value):
    """The bit width of ``value``'s integer type (compiled only)."""


@overload(_count_mask, target="cpu")
def _count_mask_impl(count):
    if not isinstance(count, types.Integer):
        return lambda count: count
    ty = count
    return lambda count: count & ty(63)


@overload(_count_u32, target="cpu")
def _count_u32_impl(count):
    if not isinstance(count, types.Integer):
        return lambda count: 0  # a bool: 0 or 1, never clamped
    return lambda count: numba.uint64(count) & numba.uint64(0xFFFFFFFF)


@overload(_width, target="cpu")
def _width_impl(value):
    bits = value.bitwidth if isinstance(value, types.Integer) else 64
    return lambda value: bits


def _saturating(ty):
    """``cvt.rzi`` into integer type ``ty``: at least 16 bits wide (PTX has no 8-bit conversion),
    saturated there, then the low bits (as :func:`.fixedwidth.float_to_int`)."""
    bits = max(ty.bitwidth, 16)
    wide = types.Integer.from_bitwidth(bits, signed=ty.signed)
    lo, hi = (-2 ** (bits - 1), 2 ** (bits - 1) - 1) if ty.signed else (0, 2 ** bits - 1)
    flo, fhi = float(lo), float(hi)

    def convert(value):
        if value != value:
            return ty(0)
        if value >= fhi:
            return ty(wide(hi))
        if value <= flo:
            return ty(wide(lo))
        return ty(wide(value))

    return convert


@overload(stored, target="cpu")
def _stored_impl(ary, value):
    dtype = getattr(ary, "dtype", None)
    if isinstance(dtype, types.Integer) and isinstance(value, types.Float):
        convert = numba.njit(**_OPTIONS)(_saturating(dtype))
        return lambda ary, value: convert(value)
    return lambda ary, value: value


@overload(converted, target="cpu")
def _converted_impl(target, value):
    ty = getattr(target, "instance_type", None)
    if isinstance(ty, types.Integer) and isinstance(value, types.Float):
        convert = numba.njit(**_OPTIONS)(_saturating(ty))
        return lambda target, value: convert(value)
    return lambda target, value: target(value)


def to_int(value):
    """``int(x)`` as Numba types it (compiled only): an integer keeps its type (``int(uint8)`` is
    a ``uint8``, ``int(uint64)`` a ``uint64``), a float becomes an int64 converting as
    ``cvt.rzi.s64``, a bool an int64."""


@overload(to_int, target="cpu")
def _to_int_impl(value):
    if isinstance(value, types.Integer):
        return lambda value: value
    if isinstance(value, types.Float):
        convert = numba.njit(**_OPTIONS)(_saturating(types.int64))
        return lambda value: convert(value)
    return lambda value: int(value)


@numba.njit(**_OPTIONS)
def shl(value, count):
    result = value << _count_mask(count)
    if _count_u32(count) >= _width(result):
        result = result ^ result
    return result


@numba.njit(**_OPTIONS)
def shr(value, count):
    result = value >> _count_mask(count)
    if _count_u32(count) >= _width(result):
        zero = result ^ result
        result = ~zero if value < 0 else zero
    return result


def _rounding(np_fn, int_fn):
    """``math.floor`` & co. as the CUDA target types them: a float keeps its type, an integer
    becomes a float64 (``round``, whose result is an integer there too, converts as
    ``cvt.rzi.s64``)."""

    def impl_for(value):
        if isinstance(value, types.Float):
            return lambda value: np_fn(value)
        if isinstance(value, (types.Integer, types.Boolean)):
            return lambda value: np.float64(value)
        return int_fn

    return impl_for


def _to_integer(float_fn, int_fn):
    """``round``: on a float, the rounded float converted as ``cvt.rzi.s64``."""

    def impl_for(value):
        if isinstance(value, types.Float):
            rounded = numba.njit(**_OPTIONS)(float_fn)
            return lambda value: to_int(rounded(value))
        return int_fn

    return impl_for


def floor(value):
    """``math.floor`` (compiled only)."""


def ceil(value):
    """``math.ceil`` (compiled only)."""


def trunc(value):
    """``math.trunc`` (compiled only)."""


def round_(value):
    """``round`` with one argument (compiled only)."""


def _float_round(value):
    return round(value, 0)


overload(floor, target="cpu")(_rounding(np.floor, lambda value: math.floor(value)))
overload(ceil, target="cpu")(_rounding(np.ceil, lambda value: math.ceil(value)))
overload(trunc, target="cpu")(_rounding(np.trunc, lambda value: math.trunc(value)))
overload(round_, target="cpu")(_to_integer(_float_round, lambda value: round(value)))


def stored_field(rec, name, value):
    """``value`` as it is stored into field ``name`` of record ``rec`` (compiled only)."""


@overload(stored_field, target="cpu", prefer_literal=True)
def _stored_field_impl(rec, name, value):
    if isinstance(rec, types.Record) and isinstance(name, types.StringLiteral):
        field = rec.typeof(name.literal_value)
        if isinstance(field, types.Integer) and isinstance(value, types.Float):
            convert = numba.njit(**_OPTIONS)(_saturating(field))
            return lambda rec, name, value: convert(value)
    return lambda rec, name, value: value

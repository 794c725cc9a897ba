"""The GPU answers that Numba's CPU code does not give, for compiled simulator kernels (:mod:`.compiled`).

Where the CPU's instruction differs from PTX's, the rewrite calls these instead, so a compiled
kernel computes what the Python simulator computes (and the GPU):

* shifts (``<<``, ``>>``): a count of 64 or more, or a negative one, gives 0 (-1 for a negative
  value shifted right), as PTX clamps the count; x86 takes the count modulo 64;
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


@overload(_count_mask, target="cpu")
def _count_mask_impl(count):
    if not isinstance(count, types.Integer):
        return lambda count: count
    ty = count
    return lambda count: count & ty(63)


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


@numba.njit(**_OPTIONS)
def to_int(value):
    """``int(x)``: an int64, a float converting as ``cvt.rzi.s64``."""
    return converted(numba.int64, value)


@numba.njit(**_OPTIONS)
def shl(value, count):
    result = value << _count_mask(count)
    if count < 0 or count >= 64:
        result = result ^ result
    return result


@numba.njit(**_OPTIONS)
def shr(value, count):
    result = value >> _count_mask(count)
    if count < 0 or count >= 64:
        zero = result ^ result
        result = ~zero if value < 0 else zero
    return result


def _to_integer(float_fn, int_fn):
    """``math.floor`` & co.: on a float, the rounded float converted as ``cvt.rzi.s64``."""

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


overload(floor, target="cpu")(_to_integer(lambda v: np.floor(v), lambda value: math.floor(value)))
overload(ceil, target="cpu")(_to_integer(lambda v: np.ceil(v), lambda value: math.ceil(value)))
overload(trunc, target="cpu")(_to_integer(lambda v: np.trunc(v), lambda value: math.trunc(value)))
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

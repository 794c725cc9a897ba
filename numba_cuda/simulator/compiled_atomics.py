"""``cuda.atomic.*`` in compiled simulator kernels (:mod:`.compiled`): plain read-modify-writes.

The compiled loop runs one thread at a time, in the Python simulator's order, so each operation
is atomic by construction.  The definitions are :mod:`.atomics`'s: the operand is first converted
to the array's element type (an integer wraps, a float truncates toward zero), ``max``/``min``
leave the element alone when either side is NaN, ``nanmax``/``nanmin`` ignore a NaN operand,
``inc``/``dec`` compare unsigned, ``cas`` takes 32- and 64-bit integer arrays only.  What these
refuse while Numba compiles them (an index that does not select one element, a bitwise operation
on floats, ``cas`` on another type) makes the kernel run in the Python simulator, which raises its
usual error.  Imported only when the compiled mode is used (it imports Numba's CPU target).
"""

import numba
from numba.core import errors, types
from numba.extending import overload

from .compiled_arith import _OPTIONS, _saturating
_CAS_TYPES = (types.int32, types.uint32, types.int64, types.uint64)


def _elem(ary, val):
    """``val`` as an element of ``ary`` (compiled only)."""


def _unsigned(ary, val):
    """``val`` as the unsigned integer of ``ary``'s element width (compiled only)."""


def _check_index(ary, idx):
    """Refuses (while compiling) an index that does not select exactly one element."""


def _check_cas(ary):
    """Refuses (while compiling) ``cas`` on arrays other than 32/64-bit integers."""


@overload(_elem, target="cpu")
def _elem_impl(ary, val):
    dtype = ary.dtype
    if isinstance(dtype, types.Integer) and isinstance(val, types.Float):
        convert = numba.njit(**_OPTIONS)(_saturating(dtype))  # cvt.rzi, as the GPU converts
        return lambda ary, val: convert(val)
    return lambda ary, val: dtype(val)


@overload(_unsigned, target="cpu")
def _unsigned_impl(ary, val):
    if not isinstance(ary.dtype, types.Integer):
        raise errors.TypingError("cuda.atomic.inc/dec need an integer array")
    utype = types.Integer.from_bitwidth(ary.dtype.bitwidth, signed=False)
    return lambda ary, val: utype(val)


@overload(_check_index, target="cpu")
def _check_index_impl(ary, idx):
    count = len(idx) if isinstance(idx, types.BaseTuple) else 1
    if count != ary.ndim:
        raise errors.TypingError(f"an atomic operation on a {ary.ndim}-d array needs {ary.ndim} indices")
    return lambda ary, idx: None


@overload(_check_cas, target="cpu")
def _check_cas_impl(ary):
    if ary.dtype not in _CAS_TYPES:
        raise errors.TypingError(f"cuda.atomic.cas on an array of {ary.dtype}")
    return lambda ary: None


@numba.njit(**_OPTIONS)
def add(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = old + v
    return old


@numba.njit(**_OPTIONS)
def sub(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = old - v
    return old


@numba.njit(**_OPTIONS)
def and_(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = old & v
    return old


@numba.njit(**_OPTIONS)
def or_(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = old | v
    return old


@numba.njit(**_OPTIONS)
def xor(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = old ^ v
    return old


@numba.njit(**_OPTIONS)
def exch(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    ary[idx] = v
    return old


@numba.njit(**_OPTIONS)
def max_(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    if old != old or v != v:  # NaN on either side: the element stays
        return old
    if old < v:
        ary[idx] = v
    return old


@numba.njit(**_OPTIONS)
def min_(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    if old != old or v != v:
        return old
    if old > v:
        ary[idx] = v
    return old


@numba.njit(**_OPTIONS)
def nanmax(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    if v != v:
        return old
    if old != old or old < v:
        ary[idx] = v
    return old


@numba.njit(**_OPTIONS)
def nanmin(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    if v != v:
        return old
    if old != old or old > v:
        ary[idx] = v
    return old


@numba.njit(**_OPTIONS)
def inc(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)  # converted first (a float as cvt.rzi), then compared unsigned
    old = ary[idx]
    if _unsigned(ary, old) >= _unsigned(ary, v):
        ary[idx] = 0
    else:
        ary[idx] = old + 1
    return old


@numba.njit(**_OPTIONS)
def dec(ary, idx, val):
    _check_index(ary, idx)
    v = _elem(ary, val)
    old = ary[idx]
    u_old = _unsigned(ary, old)
    if u_old == 0 or u_old > _unsigned(ary, v):
        ary[idx] = v
    else:
        ary[idx] = old - 1
    return old


@numba.njit(**_OPTIONS)
def cas(ary, idx, old, val):
    _check_cas(ary)
    _check_index(ary, idx)
    loaded = ary[idx]
    if loaded == _elem(ary, old):
        ary[idx] = _elem(ary, val)
    return loaded


@numba.njit(**_OPTIONS)
def compare_and_swap(ary, old, val):
    return cas(ary, 0, old, val)

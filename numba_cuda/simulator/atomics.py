"""``cuda.atomic.*``: read-modify-write on one array element, returning the old value.

Only one simulated thread executes at a time, so each operation is atomic by
construction; the results follow the GPU's definitions (wrap-around for
integers, ``inc``/``dec`` modulo semantics, NaN rules of ``max``/``min`` and
``nanmax``/``nanmin``).
"""

import math

import numpy as np

from .fixedwidth import as_stored, store


def _load(ary, idx):
    old = ary[idx]
    if isinstance(old, np.ndarray):
        raise IndexError(
            f"atomic operation on an array of {ary.ndim} dimensions needs an index for every "
            f"dimension, got {idx!r}"
        )
    return old


def _int_values(ary):
    return ary.dtype.kind in "iu"


def _operand(ary, val):
    """``val`` converted to the array's integer type first, as the GPU target does (a float
    truncates as ``cvt.rzi``, an integer wraps): ``atomic.max(uint32s, -1)`` compares
    0xFFFFFFFF, ``atomic.add(int32s, 0, -0.6)`` adds 0."""
    if ary.dtype.kind in "iu":
        return as_stored(ary.dtype, val)
    return val


def _put(ary, idx, value):
    try:
        ary[idx] = value
    except OverflowError:
        store(ary, idx, value)


def add(ary, idx, val):
    val = _operand(ary, val)
    old = _load(ary, idx)
    try:
        ary[idx] = old + val
    except OverflowError:
        store(ary, idx, int(old) + int(val))
    return old


def sub(ary, idx, val):
    val = _operand(ary, val)
    old = _load(ary, idx)
    try:
        ary[idx] = old - val
    except OverflowError:
        store(ary, idx, int(old) - int(val))
    return old


def _bitwise(op):
    def atomic_bitwise(ary, idx, val):
        if not _int_values(ary):
            raise TypeError(f"atomic bitwise operations need an integer array, got {ary.dtype}")
        val = _operand(ary, val)
        old = _load(ary, idx)
        store(ary, idx, op(int(old), int(val)))
        return old

    return atomic_bitwise


and_ = _bitwise(lambda a, b: a & b)
or_ = _bitwise(lambda a, b: a | b)
xor = _bitwise(lambda a, b: a ^ b)


def exch(ary, idx, val):
    val = _operand(ary, val)
    old = _load(ary, idx)
    _put(ary, idx, val)
    return old


def _isnan(x):
    return isinstance(x, (float, np.floating)) and math.isnan(x)


def max(ary, idx, val):  # noqa: A001 - public name of the kernel language
    val = _operand(ary, val)
    old = _load(ary, idx)
    if _isnan(old) or _isnan(val):
        return old  # max leaves the element alone when either side is NaN
    if old < val:
        _put(ary, idx, val)
    return old


def min(ary, idx, val):  # noqa: A001
    val = _operand(ary, val)
    old = _load(ary, idx)
    if _isnan(old) or _isnan(val):
        return old
    if old > val:
        _put(ary, idx, val)
    return old


def nanmax(ary, idx, val):
    val = _operand(ary, val)
    old = _load(ary, idx)
    if _isnan(val):
        return old
    if _isnan(old) or old < val:
        _put(ary, idx, val)
    return old


def nanmin(ary, idx, val):
    val = _operand(ary, val)
    old = _load(ary, idx)
    if _isnan(val):
        return old
    if _isnan(old) or old > val:
        _put(ary, idx, val)
    return old


def _unsigned(ary, x):
    bits = ary.dtype.itemsize * 8
    return int(x) & ((1 << bits) - 1)


def inc(ary, idx, val):
    """``old >= val ? 0 : old + 1`` (unsigned comparison), as CUDA's atomicInc; ``val``
    converted to the array's type first (a float as ``cvt.rzi``: -3.0 gives 0, not 2**32 - 3)."""
    val = _operand(ary, val)
    old = _load(ary, idx)
    if _unsigned(ary, old) >= _unsigned(ary, val):
        store(ary, idx, 0)
    else:
        store(ary, idx, int(old) + 1)
    return old


def dec(ary, idx, val):
    """``(old == 0 || old > val) ? val : old - 1`` (unsigned comparison), as CUDA's atomicDec;
    ``val`` converted as for :func:`inc`."""
    val = _operand(ary, val)
    old = _load(ary, idx)
    u_old = _unsigned(ary, old)
    if u_old == 0 or u_old > _unsigned(ary, val):
        store(ary, idx, int(val))
    else:
        store(ary, idx, int(old) - 1)
    return old


#: The element types ``cas``/``compare_and_swap`` take (the kernel language's typing: the GPU's
#: 32- and 64-bit integer compare-and-swap; a float array is refused when compiling).
_CAS_DTYPES = tuple(np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))


def _check_cas(qualname, ary):
    if ary.dtype not in _CAS_DTYPES:
        raise TypeError(
            f"{qualname}: arrays of {ary.dtype} are not supported; supported dtypes: "
            f"int32, uint32, int64, uint64 (the compiled kernel refuses the call too)"
        )


def cas(ary, idx, old, val):
    """Store ``val`` if the element equals ``old``; return the element as it was."""
    _check_cas("cuda.atomic.cas", ary)
    loaded = _load(ary, idx)
    old, val = _operand(ary, old), _operand(ary, val)
    if loaded == old:
        _put(ary, idx, val)
    return loaded


def compare_and_swap(ary, old, val):
    """``cas`` on the first element of a 1-D array (the older spelling)."""
    _check_cas("cuda.atomic.compare_and_swap", ary)
    return cas(ary, (0,) * ary.ndim, old, val)

"""``cuda.shared.array``, ``cuda.local.array`` and ``cuda.const.array_like``.

Shared arrays belong to the block: every call site gets one array per block
(created zero-filled on first use, so runs are deterministic), and the
``shape=0`` dynamic arrays of a block all view the launch's dynamic
shared-memory buffer.  The transformed kernel passes a call-site id; code the
transformer did not see (the OS-thread fallback) is keyed by the caller's
bytecode position instead.
"""

import sys

import numpy as np

from .threadstate import state

_DTYPES = {}

#: --- sanitizer hook: the running sanitized launch (:mod:`.sanitizer`), which hands out
#: checking views of shared and local arrays; None (always, unless NUMBA_CUDASIM_SANITIZE is set).
observer = None


def as_dtype(dtype):
    """A numpy dtype from a numpy type, dtype, string or Numba type."""
    try:
        return _DTYPES[dtype]
    except (KeyError, TypeError):
        pass
    if type(dtype).__module__.startswith("numba"):
        from numba.np.numpy_support import as_dtype as numba_as_dtype

        result = numba_as_dtype(dtype)
    else:
        result = np.dtype(dtype)
    try:
        _DTYPES[dtype] = result
    except TypeError:
        pass
    return result


def _shape(shape):
    if isinstance(shape, tuple):
        return tuple(int(s) for s in shape)
    return int(shape)


def _no_alignment(alignment, what):
    # any power of two, as the compiled target takes (wmma tiles want alignment=32); numpy
    # memory is not aligned further here (cuda.wmma checks offsets within the allocation)
    if alignment is not None and alignment != 0 and (
            not isinstance(alignment, int) or alignment < 0 or alignment & (alignment - 1)):
        raise ValueError(f"{what}: alignment must be a power of two, got {alignment!r}")


def shared_array_at(ctx, site, shape, dtype, alignment=None):
    """The block-shared array of call site ``site`` for the thread ``ctx``."""
    if ctx is None:
        raise RuntimeError("cuda.shared.array() can only be used inside a kernel")
    _no_alignment(alignment, "cuda.shared.array")
    shape = _shape(shape)
    arr = ctx.block.shared_array(site, shape, as_dtype(dtype))
    if observer is not None:  # sanitizer hook
        return observer.shared(ctx, site, arr, shape == 0 or shape == (0,))
    return arr


def shared_array(shape, dtype, alignment=None):
    """Dynamic entry point of ``cuda.shared.array`` (keyed by the caller's position)."""
    caller = sys._getframe(1)
    return shared_array_at(state.current, (caller.f_code, caller.f_lasti), shape, dtype, alignment)


def local_array(shape, dtype, alignment=None):
    """A fresh zero-filled per-thread array."""
    _no_alignment(alignment, "cuda.local.array")
    arr = np.zeros(_shape(shape), dtype=as_dtype(dtype))
    if observer is not None:  # sanitizer hook
        return observer.local(arr)
    return arr


_CONST = {}


def const_array_like(ary):
    """A read-only copy of ``ary`` standing for constant memory (cached per source array)."""
    key = id(ary)
    hit = _CONST.get(key)
    if hit is not None and hit[0] is ary:
        return hit[1]
    copy = np.array(ary, copy=True)
    copy.flags.writeable = False
    _CONST[key] = (ary, copy)
    return copy

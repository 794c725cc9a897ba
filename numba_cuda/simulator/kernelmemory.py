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


def check_alignment(alignment, what):
    """Refuse the ``alignment=`` values the compiler refuses, with its error type and wording
    (:func:`numba_cuda.lang.memory._check_alignment`): a positive power of two, or None."""
    if alignment is None:
        return None
    if isinstance(alignment, (bool, np.bool_)) or not isinstance(alignment, (int, np.integer)):
        from numba.core.errors import TypingError

        raise TypingError(f"{what}: alignment must be a constant integer, not {alignment!r}")
    value = int(alignment)
    if value <= 0 or value & (value - 1):
        from numba.core.errors import TypingError

        raise TypingError(f"{what}: alignment must be a positive power of two, not {value}")
    return value


def aligned_zeros(shape, dtype, alignment):
    """A zero-filled array whose data address is a multiple of ``alignment`` (a power of two)."""
    arr = np.zeros(shape, dtype=dtype)
    if alignment is None or arr.ctypes.data % alignment == 0:
        return arr
    nbytes = max(arr.nbytes, 1)
    raw = np.zeros(nbytes + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + arr.nbytes].view(dtype).reshape(arr.shape)


def shared_array_at(ctx, site, shape, dtype, alignment=None):
    """The block-shared array of call site ``site`` for the thread ``ctx``."""
    if ctx is None:
        raise RuntimeError("cuda.shared.array() can only be used inside a kernel")
    alignment = check_alignment(alignment, "cuda.shared.array")
    shape, dtype = _shape(shape), as_dtype(dtype)
    arr = ctx.block.shared_array(site, shape, dtype)
    if alignment is not None and arr.ctypes.data % alignment and site in ctx.block.static_shared:
        # made just now (a made array is aligned from then on): an aligned one instead, as the
        # compiler aligns the array's storage (the dynamic buffer's alignment is fixed, as on
        # the GPU, where alignment= does not apply to shape=0 arrays)
        arr = ctx.block.static_shared[site] = aligned_zeros(shape, dtype, alignment)
    if observer is not None:  # sanitizer hook
        return observer.shared(ctx, site, arr, shape == 0 or shape == (0,))
    return arr


def shared_array(shape, dtype, alignment=None):
    """Dynamic entry point of ``cuda.shared.array`` (keyed by the caller's position)."""
    caller = sys._getframe(1)
    return shared_array_at(state.current, (caller.f_code, caller.f_lasti), shape, dtype, alignment)


def local_array(shape, dtype, alignment=None):
    """A fresh zero-filled per-thread array."""
    alignment = check_alignment(alignment, "cuda.local.array")
    arr = aligned_zeros(_shape(shape), as_dtype(dtype), alignment)
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

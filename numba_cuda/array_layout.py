"""Layout helpers of Numba's ``cudadrv.devicearray`` that code written for it calls.

They look only at ``shape``, ``strides``, ``dtype`` and indexing, so they serve NumPy arrays,
device arrays and the simulator's arrays alike (``numba.cuda.cudadrv.devicearray`` re-exports
them on the GPU target and in the simulator).
"""


def array_core(ary):
    """``ary`` without its broadcast dimensions (those of stride 0 are indexed at 0):
    the part of memory a copy has to move."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary):
    """True if ``ary`` is C-contiguous once broadcast and 1-sized dimensions are ignored
    (the same answer as ``array_core(ary).flags["C_CONTIGUOUS"]``, without making a view)."""
    expected = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent > 1 and stride != 0:
            if stride != expected:
                return False
            expected *= extent
    return True


#: The message Numba raises when a copy needs one contiguous region.
errmsg_contiguous_buffer = (
    "Array contains non-contiguous buffer and cannot be transferred as a single memory "
    "region. Please ensure contiguous buffer with numpy .ascontiguousarray()"
)


def sentry_contiguous(ary):
    """Raise ``ValueError`` (Numba's message) unless ``ary``'s core is C or F contiguous: what
    Numba's ``auto_device`` requires of a host array before copying it."""
    core = array_core(ary)
    if not core.flags["C_CONTIGUOUS"] and not core.flags["F_CONTIGUOUS"]:
        raise ValueError(errmsg_contiguous_buffer)

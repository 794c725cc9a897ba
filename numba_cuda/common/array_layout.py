"""Array layout: shape, byte strides and item size; no memory, no device.

Arithmetic on layouts given as tuples (:func:`c_strides`, :func:`f_strides`, :func:`span`,
:func:`is_contiguous_layout`), shared by the real target's device arrays, the CUDA Array
Interface checks and the simulator; and the layout helpers of Numba's
``cudadrv.devicearray`` that code written for it calls (:func:`array_core`,
:func:`is_contiguous`, :func:`sentry_contiguous`), which look only at an array's ``shape``,
``strides``, ``dtype`` and indexing, so they serve NumPy arrays, device arrays and the
simulator's arrays alike (``numba.cuda.cudadrv.devicearray`` re-exports them on the GPU target
and in the simulator).
"""


# -- layouts as tuples ------------------------------------------------------------------
def c_strides(shape, itemsize):
    """The byte strides of a C-ordered array of ``shape``."""
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
    """The byte strides of a Fortran-ordered array of ``shape``."""
    strides = []
    step = itemsize
    for extent in shape:
        strides.append(step)
        step *= max(extent, 1)
    return tuple(strides)


def span(shape, strides, itemsize):
    """(lowest byte offset, highest byte offset + 1) touched by an array layout."""
    if any(extent == 0 for extent in shape):
        return 0, 0
    lo = hi = 0
    for extent, stride in zip(shape, strides):
        if stride < 0:
            lo += (extent - 1) * stride
        else:
            hi += (extent - 1) * stride
    return lo, hi + itemsize


def is_contiguous_layout(shape, strides, itemsize, order):
    """True if the layout is ``order`` ("C" or "F") contiguous by NumPy's rule (dimensions of
    extent 1 may have any stride; an empty array is contiguous).  Not Numba's
    :func:`is_contiguous`, which takes an array and ignores broadcast dimensions."""
    if any(extent == 0 for extent in shape):
        return True
    expect = itemsize
    dims = zip(shape, strides)
    for extent, stride in (reversed(list(dims)) if order == "C" else dims):
        if extent == 1:
            continue
        if stride != expect:
            return False
        expect *= extent
    return True


# -- Numba's cudadrv.devicearray helpers (arrays) ----------------------------------------
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

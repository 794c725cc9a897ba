"""Layout questions about strided arrays (host or device), as Numba's ``cudadrv.devicearray`` asks them.

Only shapes and strides are read, so these work alike for numpy arrays, our
device arrays and the simulator's; ``numba.cuda.cudadrv.devicearray``
re-exports them on both targets.
"""


def is_contiguous(ary):
    """True when ``ary``'s elements fill one C-ordered block, ignoring broadcast (stride 0)
    and length-1 dimensions."""
    expected = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent > 1 and stride != 0:
            if stride != expected:
                return False
            expected *= extent
    return True


def array_core(ary):
    """The part of a broadcast array that is repeated: index 0 of every stride-0 dimension
    (so a broadcast array becomes the smaller array it was made from)."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]

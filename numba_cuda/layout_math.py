"""Array layout arithmetic (shape, byte strides, item size): no memory, no device.

Shared by the real target's device arrays, the CUDA Array Interface checks
and the simulator.
"""


def c_strides(shape, itemsize):
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
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


def is_contiguous(shape, strides, itemsize, order):
    """numpy's contiguity rule (dimensions of extent 1 may have any stride)."""
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

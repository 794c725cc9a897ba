"""Layout math of arrays in device memory, shared by every module that makes or reads device
arrays (``devicearray``, ``memcopy``, ``array_interface``, ``dlpack``, ``interop``, ``transfers``).

Index arithmetic (slicing, views, transposes) is done by numpy on a *layout array*: an ndarray
whose data pointer is the device address and whose memory is never read.
"""

import numpy as np

from numba_cuda.common.array_layout import (  # noqa: F401 - here too
    c_strides,
    f_strides,
    is_contiguous_layout,
    span,
)

_NULL_BASE = 1 << 40  # stands in for a null device pointer in layout arrays


class _Layout:
    """Exposes an address + shape/strides/dtype through ``__array_interface__``."""

    __slots__ = ("__array_interface__",)

    def __init__(self, pointer, shape, strides, dtype):
        self.__array_interface__ = {
            "shape": tuple(shape), "strides": tuple(strides), "typestr": dtype.str,
            "descr": dtype.descr if dtype.fields is not None else [("", dtype.str)],
            "data": (pointer, False), "version": 3,
        }


def layout_array(pointer, shape, strides, dtype):
    """An ndarray describing device memory (never dereference it)."""
    base = pointer if pointer else _NULL_BASE
    arr = np.asarray(_Layout(base, shape, strides, dtype))
    if arr.dtype != dtype:  # structured dtypes come back as void: restore the real one
        arr = arr.view(dtype)
    return arr




def strides_like(shape, strides, itemsize):
    """Contiguous strides for ``shape`` that order the dimensions as ``strides`` do (smallest
    stride first, ties in dimension order; Numba's rule, after NumPy's ``empty_like``)."""
    out = [0] * len(shape)
    step = itemsize
    for dim in sorted(range(len(shape)), key=lambda d: strides[d]):
        out[dim] = step
        step *= shape[dim]
    return tuple(out)

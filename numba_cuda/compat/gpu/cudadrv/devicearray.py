"""Numba's ``cudadrv.devicearray``: device array classes and helpers."""

import numpy as np

from numba_cuda.runtime.devicearray import (  # noqa: F401
    DeviceNDArray,
    DeviceRecord,
    IpcArrayHandle,
    ManagedNDArray,
    MappedNDArray,
)
from numba_cuda.runtime.interop import is_cuda_array

DeviceNDArrayBase = DeviceNDArray

# Numba's module-level layout helpers (same objects on the GPU target and in the simulator).
from numba_cuda.common.array_layout import (  # noqa: E402,F401
    array_core, errmsg_contiguous_buffer, is_contiguous, sentry_contiguous)


def is_cuda_ndarray(obj):
    """True for numba-cuda device arrays."""
    return getattr(obj, "__cuda_ndarray__", False)


def verify_cuda_ndarray_interface(obj):
    if not is_cuda_ndarray(obj):
        raise TypeError(f"{type(obj).__name__} is not a numba-cuda device array")


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """``(device_array, converted)``: ``obj`` itself when already on the device, else a copy."""
    from numba_cuda.runtime import api

    if isinstance(obj, DeviceNDArray):
        return obj, False
    if is_cuda_array(obj):
        return api.as_cuda_array(obj), False
    if isinstance(obj, np.void):  # a record: a DeviceRecord, as in Numba
        return api.to_device(obj, stream=stream, copy=copy), True
    host = np.asarray(obj) if not isinstance(obj, np.ndarray) else obj
    sentry_contiguous(host)  # as Numba's auto_device (cuda.to_device copies any layout)
    return api.to_device(host, stream=stream, copy=copy), True


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array with ``ary``'s shape, strides and dtype."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


def from_record_like(rec, stream=0, gpu_data=None):
    """An uninitialised DeviceRecord of ``rec``'s (structured) dtype."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)

"""``numba.cuda.cudadrv.devicearray`` under the simulator."""

from numba_cuda.simulator.devicearray import (  # noqa: F401
    DeviceNDArray,
    DeviceRecord,
    ManagedNDArray,
    MappedNDArray,
    auto_device,
    device_array,
    device_array_like,
    from_cuda_array_interface,
    is_cuda_array,
    mapped_array,
    pinned_array,
    to_device,
)

DeviceNDArrayBase = DeviceNDArray
#: The simulator's device array class under NVIDIA's and Numba's name for it.
FakeCUDAArray = DeviceNDArray

# Numba's module-level layout helpers (same objects on the GPU target and in the simulator).
from numba_cuda.common.array_layout import (  # noqa: E402,F401
    array_core, errmsg_contiguous_buffer, is_contiguous, sentry_contiguous)


def is_cuda_ndarray(obj):
    """True for objects that are simulated device arrays."""
    return getattr(obj, "__cuda_memory__", False) is True


def verify_cuda_ndarray_interface(obj):
    """Raise ``AttributeError`` unless ``obj`` has the attributes of a device array."""
    for attr in ("shape", "strides", "dtype", "size"):
        if not hasattr(obj, attr):
            raise AttributeError(f"device array lacks the attribute {attr!r}")


def require_cuda_ndarray(obj):
    if not is_cuda_ndarray(obj):
        raise ValueError("require a cuda ndarray object")


def from_record_like(rec, stream=0, gpu_data=None):
    """A simulated DeviceRecord of ``rec``'s structured dtype (zero-filled; on the GPU target it
    is uninitialised device memory).  ``gpu_data`` (existing device memory) cannot be
    simulated."""
    import numpy as np

    if gpu_data is not None:
        from numba_cuda.simulator.unavailable import not_available

        raise not_available("from_record_like(..., gpu_data=...)")
    return DeviceRecord(np.zeros((), dtype=rec.dtype), stream)

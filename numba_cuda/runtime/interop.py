"""The CUDA Array Interface (version 3): checking, consuming, stream ordering.

:func:`numba_cuda.common.cuda_array_interface.parse_cuda_array_interface` (shared
with the simulator) checks a ``__cuda_array_interface__`` dict and normalises
it without touching a GPU.  Consumers then honour the producer's ``stream`` entry:
``as_cuda_array`` (no consumer stream known) synchronises that stream, and
kernel launches make their stream wait for it on the device (an event), so no
host synchronisation is needed there.
"""

from numba_cuda.runtime import dlpack
from numba_cuda.runtime.array_interface import (  # noqa: F401 - public here too
    ArrayInterface,
    kernel_params,
    order_after,
    parse_cuda_array_interface,
    synchronize_producer,
)
from numba_cuda.runtime.array_layout import span
from numba_cuda.runtime.devicearray import (  # noqa: F401 - public here too
    DeviceNDArray,
    _OffsetAllocation,
    from_cuda_array_interface,
)
from numba_cuda.runtime.devices import current_context
from numba_cuda.runtime.memory import DeviceAllocation

#: cuda.core's classes taken as arrays (class name -> kind), recognised by name in cuda.core's
#: modules: numba-cuda never imports cuda.core (an optional extra: ``numba-cuda[cuda-core]``).
_CUDA_CORE_ARRAYS = {"Buffer": "buffer", "StridedMemoryView": "view"}


def cuda_core_kind(obj):
    """``"buffer"`` for a ``cuda.core.Buffer`` (or subclass), ``"view"`` for a
    ``cuda.core.utils.StridedMemoryView``, else None."""
    for cls in type(obj).__mro__:
        if (cls.__module__ or "").startswith("cuda.core"):
            kind = _CUDA_CORE_ARRAYS.get(cls.__name__)
            if kind is not None:
                return kind
    return None


def _cuda_core_interface(obj, kind):
    """The CUDA Array Interface of a cuda.core Buffer (1-d ``uint8``, its ``size`` bytes at its
    ``handle``, as NVIDIA's numba-cuda types it) or StridedMemoryView (its ``shape``, its
    ``strides`` -- counts of elements, None when C-contiguous --, ``dtype``, ``ptr`` and
    ``readonly``)."""
    import numpy as np

    what = f"cuda.core {type(obj).__name__}"
    if kind == "buffer":
        # (not asked whether the GPU reaches it: for a Buffer that is a driver query, and the
        # GPU reaches what cuda.core allocates for it -- device, pinned, managed memory)
        return {"shape": (int(obj.size),), "typestr": "|u1", "data": (int(obj.handle), False),
                "strides": None, "version": 3}
    if not obj.is_device_accessible:  # a view records where its memory is
        raise TypeError(f"{what} views host memory the GPU cannot reach (is_device_accessible "
                        f"is False): copy it to device memory first (cuda.to_device)")
    if obj.dtype is None:
        raise TypeError(f"{what} has no dtype: make the view with dtype= to pass it to a kernel")
    dtype = np.dtype(obj.dtype)
    strides = None if obj.strides is None else tuple(int(s) * dtype.itemsize for s in obj.strides)
    return {"shape": tuple(int(n) for n in obj.shape), "typestr": dtype.str,
            "descr": dtype.descr, "data": (int(obj.ptr), bool(obj.readonly)),
            "strides": strides, "version": 3}


def from_cuda_core(obj):
    """A zero-copy DeviceNDArray over a cuda.core Buffer or StridedMemoryView (see
    :func:`_cuda_core_interface`); ``obj`` is kept alive by the array."""
    kind = cuda_core_kind(obj)
    if kind is None:
        raise TypeError(f"{type(obj).__name__} is not a cuda.core Buffer or StridedMemoryView")
    return from_cuda_array_interface(_cuda_core_interface(obj, kind), owner=obj, sync=False)


def is_cuda_array(obj):
    """True for objects exporting the CUDA Array Interface (device arrays, CuPy, PyTorch ...)."""
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    """A zero-copy DeviceNDArray view of ``obj``: a device array, an object exporting the
    CUDA Array Interface, a cuda.core Buffer or StridedMemoryView, or a DLPack producer whose
    data is on a CUDA device."""
    if isinstance(obj, DeviceNDArray):
        return obj
    desc = getattr(obj, "__cuda_array_interface__", None)
    if desc is not None:
        return from_cuda_array_interface(desc, owner=obj, sync=sync)
    if cuda_core_kind(obj) is not None:
        return from_cuda_core(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        if dlpack.is_cuda_device(obj.__dlpack_device__()):
            return from_dlpack(obj)
    raise TypeError(
        f"{type(obj).__name__} is not a CUDA array: it exports neither "
        f"__cuda_array_interface__ nor DLPack on a CUDA device (copy host data with "
        f"cuda.to_device)")


def from_dlpack(obj, stream=None):
    """A zero-copy DeviceNDArray over a DLPack producer whose data is on a CUDA device."""
    dev = obj.__dlpack_device__()
    if not dlpack.is_cuda_device(dev):
        raise BufferError(f"DLPack device {tuple(dev)} is not a CUDA device")
    consumer = 1 if stream is None else int(stream.handle_value if hasattr(stream, "handle_value")
                                            else stream)
    try:
        capsule = obj.__dlpack__(stream=consumer, max_version=dlpack.DLPACK_VERSION)
    except TypeError:  # producers older than DLPack 1.0 take no max_version
        capsule = obj.__dlpack__(stream=consumer)
    info, keeper = dlpack.consume_capsule(capsule, obj)
    lo, hi = span(info["shape"], info["strides"], info["dtype"].itemsize)
    ctx = current_context()
    data = DeviceAllocation(ctx, info["pointer"] + lo if hi > lo else info["pointer"], hi - lo,
                            owner=keeper)
    if lo < 0:
        data = _OffsetAllocation(data, -lo)
    return DeviceNDArray(info["shape"], info["strides"], info["dtype"], gpu_data=data)

"""Copies between host and device memory: ``to_device``, and copies into device arrays from
host or device values (the copying itself is in ``memcopy``).

``stream`` is a Stream, or 0/None for the default stream (then the
synchronous driver copies are used).
"""

import numpy as np

from numba_cuda.runtime import memcopy
from numba_cuda.runtime.array_layout import c_strides
from numba_cuda.runtime.devicearray import DeviceNDArray, DeviceRecord, device_source
from numba_cuda.runtime.memcopy import (  # noqa: F401 - public here too
    copy_device_to_device,
    device_to_host,
    memcpy_dtod,
    memcpy_dtoh,
    memcpy_htod,
)
from numba_cuda.common.unsupported import check_dtype


def to_device_array(dev, ary, stream=0):
    """Copy ``ary`` (host or device) into the device array ``dev`` (same shape and dtype)."""
    memcopy.to_device_array(dev, ary, stream, device_source(ary))


def assign(dev, value, stream=0):
    """``dev[...] = value``: value is a host scalar/array (broadcast to dev) or a device array."""
    memcopy.assign(dev, value, stream, device_source(value))


def to_device(obj, stream=0, copy=True, to=None):
    """A new device array holding ``obj`` (a host array or anything numpy accepts)."""
    if to is not None:
        if copy:
            to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    if isinstance(obj, np.void) and obj.dtype.fields is not None:
        rec = DeviceRecord(obj.dtype, stream=stream)
        if copy:
            host = np.array(obj)  # 0-d: the record's bytes
            memcpy_htod(rec.device_pointer_value, memcopy.host_pointer(host), host.nbytes, stream)
            if not (stream is None or stream == 0):
                stream.synchronize()  # the temporary host copy must outlive the transfer
        return rec
    host = np.asarray(obj)
    check_dtype(host.dtype)
    if host.flags["C_CONTIGUOUS"]:
        strides = host.strides if host.ndim else ()
    elif host.flags["F_CONTIGUOUS"]:
        strides = host.strides
    else:
        host = np.ascontiguousarray(host)
        strides = host.strides
    if any(s < 0 for s in strides) or host.size == 0:
        strides = c_strides(host.shape, host.dtype.itemsize)
    dev = DeviceNDArray(host.shape, strides, host.dtype, stream=stream)
    if copy and host.size and memcopy.CAPTURES and not memcopy._is_default(stream):
        from numba_cuda.runtime.graph_capture import check_host_source

        check_host_source(int(memcopy._handle(stream)), host, obj, "to_device")
    if copy and host.size:
        memcpy_htod(dev.device_pointer_value, memcopy.host_pointer(host), dev.nbytes, stream)
    return dev

"""Copies between host and device memory, on device arrays given by their attributes
(``shape``, ``strides``, ``dtype``, ``device_pointer_value`` ...): what ``DeviceNDArray``'s
``copy_to_host``/``copy_to_device``/``__setitem__`` and ``transfers`` use.

``stream`` is a Stream, or 0/None for the default stream (then the
synchronous driver copies are used).  Device arrays that are not contiguous
are read or written through the bytes they span: the span is copied as a
whole and the elements are picked (or merged) on the host.
"""

import numpy as np

from numba_cuda.runtime import cudriver
from numba_cuda.runtime.array_layout import span
from numba_cuda.runtime import graph_capture
from numba_cuda.runtime.graph_capture import CAPTURES
from numba_cuda.runtime.streams import stream_handle


def _is_default(stream):
    return stream is None or (not hasattr(stream, "handle") and stream == 0)


def _handle(stream):
    return stream_handle(stream)


def _memcpy(call, dst, src, nbytes, stream):
    """``cuMemcpy<call>`` on the default stream, ``cuMemcpy<call>Async`` on another one.
    ``dst``/``src`` are already in the binding's types (CUdeviceptr for device memory)."""
    drv = cudriver.driver()
    if CAPTURES:
        _check_capture(f"cuMemcpy{call}", stream)
    if _is_default(stream):
        name = f"cuMemcpy{call}"
        cudriver.check(getattr(drv, name)(dst, src, nbytes)[0], name)
    else:
        name = f"cuMemcpy{call}Async"
        cudriver.check(getattr(drv, name)(dst, src, nbytes, _handle(stream))[0], name)


def _check_capture(name, stream):
    """A copy while a stream captures a graph: refused unless it is asynchronous on a stream
    other than the legacy default one (``graphs`` says why)."""
    if _is_default(stream):
        graph_capture.check_synchronous(f"a copy with stream=0 ({name})")
    else:
        graph_capture.check_stream_work(int(_handle(stream)), f"a copy ({name}Async)")


def memcpy_htod(dst_ptr, src_ptr, nbytes, stream=0):
    if nbytes:
        _memcpy("HtoD", cudriver.driver().CUdeviceptr(dst_ptr), src_ptr, nbytes, stream)


def memcpy_dtoh(dst_ptr, src_ptr, nbytes, stream=0):
    if nbytes:
        _memcpy("DtoH", dst_ptr, cudriver.driver().CUdeviceptr(src_ptr), nbytes, stream)


def memcpy_dtod(dst_ptr, src_ptr, nbytes, stream=0):
    if nbytes:
        ptr = cudriver.driver().CUdeviceptr
        _memcpy("DtoD", ptr(dst_ptr), ptr(src_ptr), nbytes, stream)


def _context_of(dev):
    return getattr(getattr(dev, "gpu_data", None), "context", None)


def copy_device_to_device(dst, src, stream=0):
    """Copy the bytes of device array ``src`` into ``dst`` (same layout).  Between arrays of
    two devices this is a peer copy (``cuMemcpyPeer``: direct over NVLink/PCIe where the
    devices can access each other, staged by the driver otherwise)."""
    nbytes = dst.nbytes
    dst_ctx, src_ctx = _context_of(dst), _context_of(src)
    if dst_ctx is None or src_ctx is None or dst_ctx is src_ctx:
        memcpy_dtod(dst.device_pointer_value, src.device_pointer_value, nbytes, stream)
        return
    if not nbytes:
        return
    if CAPTURES:
        _check_capture("cuMemcpyPeer", stream)
    drv = cudriver.driver()
    args = (drv.CUdeviceptr(dst.device_pointer_value), dst_ctx.handle,
            drv.CUdeviceptr(src.device_pointer_value), src_ctx.handle, nbytes)
    if _is_default(stream):
        cudriver.check(drv.cuMemcpyPeer(*args)[0], "cuMemcpyPeer")
    else:
        cudriver.check(drv.cuMemcpyPeerAsync(*args, _handle(stream))[0], "cuMemcpyPeerAsync")


def host_pointer(arr):
    return arr.__array_interface__["data"][0]


def _no_host_step(stream, what):
    if CAPTURES and not _is_default(stream):
        graph_capture.check_no_host_step(int(_handle(stream)), what)


def _sync(stream):
    if not _is_default(stream):
        stream.synchronize()


def _span_bytes(dev, stream):
    """(host uint8 buffer holding the bytes ``dev`` spans, byte offset of element 0 in it)."""
    lo, hi = span(dev.shape, dev.strides, dev.dtype.itemsize)
    buf = np.empty(hi - lo, dtype=np.uint8)
    memcpy_dtoh(host_pointer(buf), dev.device_pointer_value + lo, hi - lo, stream)
    return buf, -lo


def _check_same(dev, host):
    if host.shape != dev.shape:
        raise ValueError(f"shape mismatch: device array {dev.shape}, host array {host.shape}")
    if host.dtype != dev.dtype:
        raise TypeError(f"dtype mismatch: device array {dev.dtype}, host array {host.dtype}")


def device_to_host(dev, ary=None, stream=0):
    """Copy ``dev`` to ``ary`` (or to a new array with ``dev``'s layout); return it."""
    contiguous = dev.is_c_contiguous() or dev.is_f_contiguous()
    if ary is None:
        if contiguous:
            order = "C" if dev.is_c_contiguous() else "F"
            ary = np.empty(dev.shape, dtype=dev.dtype, order=order)
            memcpy_dtoh(host_pointer(ary), dev.device_pointer_value, dev.nbytes, stream)
            return ary
        _no_host_step(stream, "copy_to_host of a non-contiguous device array")
        buf, offset = _span_bytes(dev, stream)
        _sync(stream)
        return np.ndarray(dev.shape, dtype=dev.dtype, buffer=buf, offset=offset,
                          strides=dev.strides)
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"copy_to_host needs a numpy array to copy into, got {type(ary).__name__}")
    _check_same(dev, ary)
    if not ary.flags["WRITEABLE"]:
        raise ValueError("copy_to_host: the destination array is read-only")
    if contiguous and ary.strides == dev.strides:
        memcpy_dtoh(host_pointer(ary), dev.device_pointer_value, dev.nbytes, stream)
        return ary
    _no_host_step(stream, "copy_to_host into a host array of another layout")
    ary[...] = device_to_host(dev, None, stream)
    return ary


def to_device_array(dev, ary, stream=0, src=None):
    """Copy ``ary`` (host or device) into the device array ``dev`` (same shape and dtype).
    ``src``: ``ary`` as a device array when it is device-side (``devicearray.device_source``),
    else None."""
    if src is not None:
        if src.shape != dev.shape or src.dtype != dev.dtype:
            raise ValueError(f"copy_to_device: source {src.shape} {src.dtype} does not match "
                             f"destination {dev.shape} {dev.dtype}")
        if src.strides == dev.strides and (dev.is_c_contiguous() or dev.is_f_contiguous()):
            copy_device_to_device(dev, src, stream)
            return
        _no_host_step(stream, "copy_to_device between device arrays of two layouts")
        assign(dev, device_to_host(src, None, stream), stream)
        return
    host = np.asarray(ary)
    if host.dtype != dev.dtype and host.shape == dev.shape:
        raise TypeError(f"copy_to_device: dtype mismatch, device array {dev.dtype}, "
                        f"host array {host.dtype}")
    if host.shape != dev.shape:
        raise ValueError(f"copy_to_device: shape mismatch, device array {dev.shape}, "
                         f"host array {host.shape}")
    assign(dev, host, stream)


def assign(dev, value, stream=0, src=None):
    """``dev[...] = value``: value is a host scalar/array (broadcast to dev) or a device array
    (then ``src`` is it as a device array: ``devicearray.device_source``)."""
    if src is not None:
        if src.shape == dev.shape and src.dtype == dev.dtype and src.strides == dev.strides \
                and (dev.is_c_contiguous() or dev.is_f_contiguous()):
            copy_device_to_device(dev, src, stream)
            return
        _no_host_step(stream, "assigning between device arrays of two layouts")
        value = device_to_host(src, None, stream)
    host = np.broadcast_to(np.asarray(value, dtype=dev.dtype), dev.shape)
    if dev.size == 0:
        return
    if dev.is_c_contiguous():
        data = np.ascontiguousarray(host)
    elif dev.is_f_contiguous():
        data = np.asfortranarray(host)
    else:
        # Strided destination: read the bytes it spans, merge, write them back.
        _no_host_step(stream, "a copy into a non-contiguous device array")
        buf, offset = _span_bytes(dev, stream)
        _sync(stream)
        merged = np.ndarray(dev.shape, dtype=dev.dtype, buffer=buf, offset=offset,
                            strides=dev.strides)
        merged[...] = host
        lo = -offset
        memcpy_htod(dev.device_pointer_value + lo, host_pointer(buf), buf.nbytes, stream)
        _sync(stream)
        return
    if CAPTURES and not _is_default(stream):
        graph_capture.check_host_source(int(_handle(stream)), data, value,
                                        "a copy to a device array")
    # A temporary (pageable) host copy may go away at once: the driver stages pageable
    # sources before cuMemcpyHtoDAsync returns.
    memcpy_htod(dev.device_pointer_value, host_pointer(data), dev.nbytes, stream)

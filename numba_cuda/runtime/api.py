"""The runtime part of the public ``numba.cuda`` API (see ``numba_cuda/_exports.py``).

Importing this module does not touch the driver; the first call that needs
one raises :class:`numba_cuda.errors.CudaSupportError` when there is none.
"""

import contextlib

import numpy as np

from numba_cuda.runtime import cudriver, current_streams, devicearray, devices, streams, transfers
from numba_cuda.common.unsupported import check_dtype
from numba_cuda.runtime import typing as _typing  # noqa: F401 - registers numba.typeof
from numba_cuda.runtime.devicearray import DeviceNDArray, ManagedNDArray, MappedNDArray
from numba_cuda.runtime.graphs import Graph
from numba_cuda.runtime.interop import as_cuda_array, from_cuda_array_interface, is_cuda_array

__all__ = [
    "is_available", "detect", "gpus", "list_devices", "select_device", "get_current_device",
    "current_context", "close", "require_context", "to_device", "device_array",
    "device_array_like", "pinned_array", "pinned_array_like", "mapped_array",
    "mapped_array_like", "managed_array", "pinned", "mapped", "stream", "default_stream",
    "per_thread_default_stream", "legacy_default_stream", "external_stream", "event",
    "synchronize", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
    "DeviceNDArray", "profile_start", "profile_stop", "profiling", "defer_cleanup",
    "event_elapsed_time", "from_dlpack", "is_supported_version", "cuda_error", "open_ipc_array",
    "graph", "Graph",
]

# -- devices and contexts ------------------------------------------------------------
gpus = devices.gpus


def is_available():
    """True when an NVIDIA driver is installed and reports at least one GPU."""
    return cudriver.is_available()


def list_devices():
    """Every CUDA device (raises CudaSupportError without a driver)."""
    return list(devices.devices())


def select_device(device_id):
    """Make ``device_id`` the current device of this thread; returns the device."""
    return devices.select_device(device_id)


def get_current_device():
    return devices.get_current_device()


def current_context(devnum=None):
    """The current thread's context (``devnum``: select that device first)."""
    if devnum is not None:
        devices.select_device(devnum)
    return devices.current_context()


def require_context(fn):
    """Decorator: make sure a context is current before ``fn`` runs."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        devices.current_context()
        return fn(*args, **kwargs)
    return wrapper


def close():
    """Release the contexts numba-cuda holds (see ``devices.close``)."""
    devices.close()


def is_supported_version():
    """True when the CUDA runtime of the toolkit in use is of a supported major (12, 13)."""
    from numba_cuda.runtime.cudart import runtime

    return runtime.is_supported_version()


def cuda_error():
    """The error that keeps CUDA from being used in this process (a CudaSupportError), or None
    when the driver initialised."""
    from numba_cuda.errors import CudaSupportError

    try:
        cudriver.driver()
    except CudaSupportError as exc:
        return exc
    return None


def detect():
    """Print the CUDA devices and whether each is supported; True when all are.

    Without a driver or GPU it prints why and returns False.
    """
    from numba_cuda.runtime.probe import probe_devices, probe_driver

    driver = probe_driver()
    if driver["error"]:
        print(f"CUDA is not available: {driver['error']}")
        return False
    found = probe_devices()
    print(f"Found {len(found)} CUDA devices")
    if not found:
        print("The NVIDIA driver reports no CUDA device.")
        return False
    supported = 0
    for dev in found:
        ok = dev.get("supported", False)
        supported += bool(ok)
        print(f"id {dev['id']:<3} {dev['name']!s:>40} {'[SUPPORTED]' if ok else '[NOT SUPPORTED]'}")
        print(f"{'Compute Capability:':>46} {dev['compute_capability']}")
        if dev.get("uuid"):
            print(f"{'UUID:':>46} {dev['uuid']}")
        if dev.get("total_memory"):
            print(f"{'Memory:':>46} {dev['total_memory'] / 2**30:.1f} GiB")
        if not ok:
            print(f"{'Reason:':>46} compute capability {dev['compute_capability']} is older "
                  f"than the installed toolkit supports")
    print("Summary:")
    print(f"\t{supported}/{len(found)} devices are supported")
    return supported == len(found)


# -- memory ------------------------------------------------------------------------------
def _shape_strides(shape, dtype, strides, order):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    dtype = np.dtype(dtype)
    check_dtype(dtype)
    if strides is None:
        if order == "C":
            strides = devicearray.c_strides(shape, dtype.itemsize)
        elif order == "F":
            strides = devicearray.f_strides(shape, dtype.itemsize)
        else:
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    return shape, dtype, tuple(strides)


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a host array (or anything numpy accepts) to a new device array.

    ``to``: copy into that existing device array instead.
    """
    return transfers.to_device(obj, stream=stream, copy=copy, to=to)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array."""
    shape, dtype, strides = _shape_strides(shape, dtype, strides, order)
    return DeviceNDArray(shape, strides, dtype, stream=stream)


def _like_order(ary):
    """Numba's order for ``*_like``: F for arrays only F-contiguous, else C."""
    flags = ary.flags
    return "F" if flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"] else "C"


def _like_strides(ary):
    """Strides of a contiguous array laid out like ``ary`` (its dimensions in the same order
    of stride), or None when the order's default strides already are (Numba's rule)."""
    flags = ary.flags
    if flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"] or ary.ndim <= 1:
        return None
    return devicearray.strides_like(ary.shape, ary.strides, ary.dtype.itemsize)


def device_array_like(ary, stream=0):
    """An uninitialised device array with ``ary``'s shape and dtype, contiguous, its dimensions
    laid out in ``ary``'s order (a strided view keeps its axis order, as in Numba)."""
    return device_array(ary.shape, ary.dtype, strides=_like_strides(ary), order=_like_order(ary),
                        stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A numpy array in page-locked host memory (fast, asynchronous copies)."""
    from numba_cuda.runtime.memory import host_array

    shape, dtype, strides = _shape_strides(shape, dtype, strides, order)
    lo, hi = devicearray.span(shape, strides, dtype.itemsize)
    alloc = devices.current_context().memhostalloc(hi - lo)
    return host_array(alloc, shape, dtype, strides)


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, strides=_like_strides(ary), order=_like_order(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A numpy array in page-locked host memory that kernels can also address directly."""
    from numba_cuda.runtime.memory import host_array

    shape, dtype, strides = _shape_strides(shape, dtype, strides, order)
    lo, hi = devicearray.span(shape, strides, dtype.itemsize)
    alloc = devices.current_context().memhostalloc(hi - lo, mapped=True, portable=portable, wc=wc)
    arr = host_array(alloc, shape, dtype, strides, cls=MappedNDArray)
    arr._cuda_memory = alloc
    return arr


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, strides=_like_strides(ary), order=_like_order(ary),
                        stream=stream, portable=portable, wc=wc)


class _ManagedMemory:
    """Managed memory seen from the host (host and device pointers are equal)."""

    def __init__(self, allocation):
        self.allocation = allocation
        self.host_pointer = allocation.device_pointer_value
        self.device_pointer_value = allocation.device_pointer_value
        self.size = allocation.size

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1",
                "data": (self.host_pointer, False), "version": 3}

    def as_bytes_array(self):
        return np.asarray(self)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """A numpy array in managed (unified) memory, usable on the host and in kernels."""
    from numba_cuda.runtime.memory import host_array

    shape, dtype, strides = _shape_strides(shape, dtype, strides, order)
    lo, hi = devicearray.span(shape, strides, dtype.itemsize)
    alloc = devices.current_context().memallocmanaged(max(hi - lo, 1),
                                                      attach_global=attach_global)
    mem = _ManagedMemory(alloc)
    arr = host_array(mem, shape, dtype, strides, cls=ManagedNDArray)
    arr._cuda_memory = mem
    return arr


def _host_extent(ary):
    ary = np.asarray(ary)
    lo, hi = devicearray.span(ary.shape, ary.strides, ary.dtype.itemsize)
    return ary, ary.__array_interface__["data"][0] + lo, hi - lo


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock the given host arrays for the duration of the block."""
    ctx = devices.current_context()
    held = []
    for ary in arylist:
        ary, start, size = _host_extent(ary)
        if size:
            held.append(ctx.mempin(ary, start, size))
    try:
        yield
    finally:
        for alloc in held:
            alloc_free(alloc)


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Page-lock and map the given host arrays; yields device arrays viewing them."""
    from numba_cuda.runtime.memory import DeviceAllocation

    stream = kws.get("stream", 0)
    ctx = devices.current_context()
    held, views = [], []
    for ary in arylist:
        ary, start, size = _host_extent(ary)
        alloc = ctx.mempin(ary, start, max(size, 1), mapped=True)
        held.append(alloc)
        lo, _hi = devicearray.span(ary.shape, ary.strides, ary.dtype.itemsize)
        data = DeviceAllocation(ctx, alloc.device_pointer_value, size, owner=alloc)
        if lo:
            data = devicearray._OffsetAllocation(data, -lo)
        views.append(DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream,
                                   gpu_data=data))
    try:
        yield views[0] if len(views) == 1 else views
    finally:
        for alloc in held:
            alloc_free(alloc)


def alloc_free(alloc):
    """Release a host registration/allocation now rather than at collection (whichever
    memory manager made it)."""
    alloc.free()


@contextlib.contextmanager
def defer_cleanup():
    """Hold every pending free (the memory manager's too) until the block ends."""
    with devices.current_context().defer_cleanup():
        yield


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Open a CUDA IPC memory handle another process shared (its 64 bytes: bytes or a
    sequence of ints) as a device array of ``shape``/``dtype`` (``strides`` default:
    C-contiguous); closed when the block ends."""
    from numba_cuda.runtime.ipc import IpcHandle, binding_handle

    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    ipc = IpcHandle(None, binding_handle(handle), size, offset=offset)
    array = ipc.open_array(devices.current_context(), shape, dtype, strides)
    try:
        yield array
    finally:
        ipc.close()


def from_dlpack(obj):
    """A zero-copy device array over a DLPack producer on a CUDA device."""
    from numba_cuda.runtime.interop import from_dlpack as _from_dlpack

    return _from_dlpack(obj)


# -- streams and events --------------------------------------------------------------
def stream():
    """A new stream on the current device."""
    return devices.current_context().create_stream()


def default_stream():
    """The default stream (the per-thread one with NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1)."""
    return current_streams.current_default_stream()


def legacy_default_stream():
    return devices.current_context().special_stream(streams.LEGACY_DEFAULT)


def per_thread_default_stream():
    return devices.current_context().special_stream(streams.PER_THREAD_DEFAULT)


def external_stream(ptr):
    """Wrap a stream created elsewhere (an int ``cudaStream_t``); it is not destroyed here."""
    return current_streams.external_stream(ptr)


def event(timing=True):
    """A new event; ``timing=False`` for a cheaper event that cannot time."""
    return devices.current_context().create_event(timing=timing)


event_elapsed_time = streams.event_elapsed_time


# -- CUDA graphs ----------------------------------------------------------------------------
def graph(stream=None, mode="global"):
    """A CUDA graph: ``with cuda.graph(stream) as g:`` captures the launches, copies and memsets
    issued on ``g.stream``; ``g.launch()`` replays them, ``with g.update():`` captures new
    parameters.  See :mod:`numba_cuda.runtime.graphs`."""
    return Graph(stream, mode)


def synchronize():
    """Wait for all work on the current device to finish."""
    devices.current_context().synchronize()


# -- profiling --------------------------------------------------------------------------
def profile_start():
    """Start the CUDA profiler's collection (Nsight / nvprof ``--profile-from-start off``)."""
    drv = cudriver.driver()
    with devices.current_context().active():
        cudriver.call(drv.cuProfilerStart)


def profile_stop():
    drv = cudriver.driver()
    with devices.current_context().active():
        cudriver.call(drv.cuProfilerStop)


@contextlib.contextmanager
def profiling():
    """Profile the block (``profile_start``/``profile_stop``)."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()

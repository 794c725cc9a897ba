"""Device and host allocations, and their deferred deallocation.

An allocation object owns one driver allocation; when it is garbage
collected its free is queued on its context's :class:`PendingDeallocations`
rather than run at once (freeing synchronises the device, so it is batched),
and the queue is flushed when it holds too many entries or bytes, before an
allocation that would otherwise fail, and on ``synchronize``.  Frees are never
attempted while the interpreter shuts down: the driver releases the memory
with the process.
"""

import contextlib
import os
import sys
import threading
import weakref

from numba_cuda.errors import DriverError
from numba_cuda.runtime import cudriver
from numba_cuda.runtime.memory_pointers import MemoryPointer, PinnedMemory


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


#: Flush pending frees when more than this many are queued (Numba's setting of the same name;
#: ``numba.core.config.CUDA_DEALLOCS_COUNT`` takes precedence when Numba defines it) ...
MAX_PENDING_COUNT = _env_int("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", 10)
#: ... or when they add up to more than this fraction of the device's memory
#: (``numba.core.config.CUDA_DEALLOCS_RATIO``).
MAX_PENDING_RATIO = _env_float("NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", 0.2)


def _limits():
    from numba.core import config

    return (getattr(config, "CUDA_DEALLOCS_COUNT", MAX_PENDING_COUNT),
            getattr(config, "CUDA_DEALLOCS_RATIO", MAX_PENDING_RATIO))


class PendingDeallocations:
    """A context's queue of frees waiting to run.

    ``memory_capacity`` is the device's memory in bytes; the queue is flushed when
    it holds more than ``NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT`` frees or more than
    ``NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO`` of that memory (read at each free, from
    ``numba.core.config`` as Numba does).
    """

    def __init__(self, context_handle, memory_capacity):
        self._context_handle = context_handle
        self._queue = []
        self._bytes = 0
        self._disabled = 0
        # re-entrant: a finalizer the garbage collector runs inside add()/clear() queues here
        self._lock = threading.RLock()
        self.memory_capacity = memory_capacity

    @property
    def _max_pending_bytes(self):
        return int(self.memory_capacity * _limits()[1])

    @property
    def _size(self):
        return self._bytes

    def add(self, free, handle, size):
        count, ratio = _limits()
        with self._lock:
            self._queue.append((free, handle, size))
            self._bytes += size
            full = (len(self._queue) > count
                    or self._bytes > int(self.memory_capacity * ratio))
        if full:
            self.clear()

    @property
    def is_disabled(self):
        return self._disabled > 0

    def clear(self):
        """Run the queued frees now (unless inside ``disable()``)."""
        if self._disabled or sys.is_finalizing():
            return
        with self._lock:
            queue, self._queue, self._bytes = self._queue, [], 0
        if not queue:
            return
        drv = cudriver.driver()
        # The frees run with the owning context current, whatever this thread uses.
        pushed = drv.cuCtxPushCurrent(self._context_handle)[0] == drv.CUresult.CUDA_SUCCESS
        try:
            for free, handle, _size in queue:
                try:
                    free(handle)
                except Exception:  # noqa: BLE001 - a failed free must not break the caller
                    pass
        finally:
            if pushed:
                drv.cuCtxPopCurrent()

    @contextlib.contextmanager
    def disable(self):
        """Hold every free until the block ends (``cuda.defer_cleanup()``)."""
        self._disabled += 1
        try:
            yield
        finally:
            self._disabled -= 1
        if not self._disabled:
            self.clear()

    def __len__(self):
        return len(self._queue)

    @property
    def pending_bytes(self):
        return self._bytes


def _queue_free(ctx_ref, free, handle, size):
    """Finalizer body: queue ``free(handle)`` on the context, if it still lives."""
    if sys.is_finalizing():
        return
    ctx = ctx_ref()
    if ctx is None or ctx.closed:
        return
    ctx.deallocations.add(free, handle, size)


class DeviceAllocation(MemoryPointer):
    """Device memory: ``device_pointer_value`` (int), ``size`` (bytes), ``context``.

    The default memory manager's allocations (a :class:`MemoryPointer` whose free is
    deferred).  Owning allocations free their memory when collected; views
    (``view(start, stop)``) keep their parent alive.  ``owner`` keeps alive
    whatever object the memory belongs to (a CuPy array, a DLPack capsule ...).
    """

    def __init__(self, context, pointer, size, owner=None, free=None):
        self.context = context
        self.device_pointer_value = int(pointer)
        self.size = self._cuda_memsize_ = int(size)
        self._owner = owner
        self.is_managed = free is not None
        self.refct = 1
        self._finalizer = None
        if free is not None:
            fin = weakref.finalize(self, _queue_free, weakref.ref(context), free,
                                   self.device_pointer_value, self.size)
            fin.atexit = False
            self._finalizer = fin

    @property
    def device_pointer(self):
        return cudriver.driver().CUdeviceptr(self.device_pointer_value)

    @property
    def handle(self):
        return self.device_pointer

    def view(self, start, stop=None):
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"view [{start}:{stop}] outside an allocation of {self.size} bytes")
        return DeviceAllocation(self.context, self.device_pointer_value + start, stop - start,
                                owner=self)

    def free(self):
        """Free now (rather than when collected)."""
        if self._finalizer is not None and self._finalizer.alive:
            _obj, _func, args, _kwargs = self._finalizer.detach()
            _ctx_ref, free, handle, _size = args
            free(handle)

    def __int__(self):
        return self.device_pointer_value

    def __repr__(self):
        return f"<DeviceAllocation {self.device_pointer_value:#x} ({self.size} bytes)>"


class HostAllocation(PinnedMemory):
    """Page-locked host memory (pinned, mapped or registered), exposed to numpy.

    ``host_pointer`` is the host address; for mapped memory
    ``device_pointer_value`` is its device address (else None).
    """

    def __init__(self, context, host_pointer, size, device_pointer=None, owner=None, free=None):
        self.context = context
        self.host_pointer = int(host_pointer)
        self.size = int(size)
        self.device_pointer_value = None if device_pointer is None else int(device_pointer)
        self.owned = owner
        self.handle = self.host_pointer
        self.is_managed = free is not None
        self._finalizer = None
        if free is not None:
            fin = weakref.finalize(self, _queue_free, weakref.ref(context), free,
                                   self.host_pointer, self.size)
            fin.atexit = False
            self._finalizer = fin

    def free(self):
        """Release now (unregister or free at once, not deferred: a registration must be
        lifted before the same memory can be pinned again)."""
        if self._finalizer is not None and self._finalizer.alive:
            _obj, _func, args, _kwargs = self._finalizer.detach()
            _ctx_ref, free, handle, _size = args
            free(handle)


def host_array(allocation, shape, dtype, strides=None, order="C", cls=None):
    """A numpy array (``cls`` subclass, optional) over a HostAllocation; keeps it alive."""
    import numpy as np

    dtype = np.dtype(dtype)
    raw = allocation.as_bytes_array()
    arr = np.ndarray(shape, dtype=dtype, buffer=raw, strides=strides, order=order)
    if cls is not None:
        arr = arr.view(cls)
    return arr


def is_out_of_memory(exc):
    return isinstance(exc, DriverError) and exc.code == "CUDA_ERROR_OUT_OF_MEMORY"

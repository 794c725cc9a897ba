"""Memory objects of the External Memory Management (EMM) interface.

A memory manager (:mod:`numba_cuda.runtime.memory_managers`) hands these to
the runtime: :class:`MemoryPointer` for device memory (``memalloc``),
:class:`PinnedMemory` and :class:`MappedMemory` for page-locked host memory
(``memhostalloc``/``mempin``), :class:`ManagedMemory` for managed memory.
They are the classes Numba documents for EMM plugins (``numba.cuda.MemoryPointer``
...), with the same constructor arguments and attributes; the runtime's own
allocations (:class:`numba_cuda.runtime.memory.DeviceAllocation`) are
MemoryPointers too, so device arrays accept either.

Lifetime: the buffer lives as long as the pointer object.  ``finalizer`` (a
callable with no arguments) runs once, when the pointer is garbage collected
or ``free()`` is called; views (``view(start, stop)``) keep their parent
alive.  Numba's reference count (``refct``, ``own()``) is kept for code that
reads it, but nothing here frees on it: Python's references already decide.
"""

import ctypes
import weakref

__all__ = ["MemoryPointer", "AutoFreePointer", "PinnedMemory", "MappedMemory", "ManagedMemory",
           "pointer_value", "device_extents", "device_memset"]


def pointer_value(pointer):
    """The address held by ``pointer`` as an int: an int, a binding ``CUdeviceptr``, a
    ``ctypes.c_void_p``, or a memory object with ``device_pointer_value``."""
    if pointer is None:
        return 0
    if isinstance(pointer, int):
        return pointer
    if isinstance(pointer, ctypes.c_void_p):
        return pointer.value or 0
    value = getattr(pointer, "device_pointer_value", None)
    if isinstance(value, int):
        return value
    try:
        return int(pointer)  # cuda.bindings pointer types
    except TypeError:
        raise TypeError(f"{type(pointer).__name__} is not a pointer (expected an int, a "
                        f"CUdeviceptr or a ctypes.c_void_p)") from None


def _context_itself(context):
    """Plugins written for Numba pass ``weakref.proxy(ctx)``: keep the context itself, so that
    identity checks (``mem.context is ctx``) and hashing work."""
    if isinstance(context, (weakref.ProxyType, weakref.CallableProxyType)):
        return getattr(context, "referent", context)
    return context


def _cu_device_pointer(address):
    from cuda.bindings.driver import CUdeviceptr

    return CUdeviceptr(address)


class MemoryPointer:
    """Device memory owned by this object, freed by ``finalizer`` when it is collected.

    :param context: the context the memory was allocated in
    :param pointer: the device address (int, ``CUdeviceptr`` or ``ctypes.c_void_p``); kept as
        given in ``device_pointer``/``handle``; ``device_pointer_value`` is its int value
    :param size: the size in bytes
    :param owner: an object that owns the memory (kept alive); plugins leave it None
    :param finalizer: called with no arguments when the memory is to be freed
    """

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = _context_itself(context)
        self.device_pointer = pointer
        self.handle = pointer
        self.device_pointer_value = pointer_value(pointer)
        self.size = int(size)
        self._cuda_memsize_ = self.size
        self.is_managed = finalizer is not None
        self.refct = 1
        self._owner = owner
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    @property
    def owner(self):
        """The object whose lifetime holds the memory (this pointer unless a view)."""
        return self if self._owner is None else self._owner

    def own(self):
        """A reference that keeps the memory alive: the pointer itself (lifetime follows
        Python's references)."""
        return self

    def free(self):
        """Free the memory now (run the finalizer) rather than when the pointer is collected."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()

    def memset(self, byte, count=None, stream=0):
        """Set ``count`` bytes (default: all) to ``byte``; asynchronously on ``stream``."""
        device_memset(self, byte, self.size if count is None else count, stream)

    def view(self, start, stop=None):
        """The bytes ``[start, stop)`` of this memory; the view keeps this pointer alive."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"view [{start}:{stop}] outside memory of {self.size} bytes")
        if not self.device_pointer_value:
            if stop != start:
                raise RuntimeError("non-empty view of a null pointer")
            return self
        return MemoryPointer(self.context, _cu_device_pointer(self.device_pointer_value + start),
                             stop - start, owner=self.owner)

    @property
    def device_ctypes_pointer(self):
        return self.device_pointer

    def __int__(self):
        return self.device_pointer_value

    def __repr__(self):
        return f"<{type(self).__name__} {self.device_pointer_value:#x} ({self.size} bytes)>"


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer whose memory is freed once no reference to it remains (Numba's
    name; every MemoryPointer behaves so here)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


class ManagedMemory(AutoFreePointer):
    """Managed (unified) memory: the same address works on the host and the device."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        super().__init__(context, pointer, size, finalizer=finalizer)
        self.host_pointer = self.device_pointer_value

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.host_pointer, False),
                "version": 3}

    def as_bytes_array(self):
        import numpy as np

        return np.asarray(self)

    def __buffer__(self, flags):
        """The bytes as a buffer (``numpy.ndarray(buffer=mem)``, Python 3.12 and newer)."""
        return memoryview(self.as_bytes_array())


class PinnedMemory:
    """Page-locked host memory (``memhostalloc`` without mapping, or ``mempin``).

    :param context: the context it was allocated or registered in
    :param pointer: the host address
    :param size: the size in bytes
    :param owner: for ``mempin``, the object owning the memory (kept alive)
    :param finalizer: called with no arguments to release the memory
    """

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = _context_itself(context)
        self.owned = owner
        self.size = int(size)
        self.host_pointer = pointer_value(pointer)
        self.handle = pointer
        self.is_managed = finalizer is not None
        self._finalizer = weakref.finalize(self, finalizer) if finalizer is not None else None

    def own(self):
        return self

    def free(self):
        """Release now rather than when collected."""
        if self._finalizer is not None and self._finalizer.alive:
            self._finalizer()

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.host_pointer, False),
                "version": 3}

    def as_bytes_array(self):
        import numpy as np

        return np.asarray(self)

    def __buffer__(self, flags):
        """The bytes as a buffer (``numpy.ndarray(buffer=mem)``, Python 3.12 and newer)."""
        return memoryview(self.as_bytes_array())


class MappedMemory(AutoFreePointer):
    """Page-locked host memory mapped into the device's address space: ``host_pointer`` is
    its host address, ``device_pointer_value`` its device address (asked of the driver)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        from numba_cuda.runtime import cudriver

        self.owned = owner
        self.host_pointer = pointer_value(pointer)
        drv = cudriver.driver()
        devptr = cudriver.call(drv.cuMemHostGetDevicePointer, self.host_pointer, 0)
        super().__init__(context, devptr, size, finalizer=finalizer)
        self.handle = pointer

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.host_pointer, False),
                "version": 3}

    def as_bytes_array(self):
        import numpy as np

        return np.asarray(self)

    def __buffer__(self, flags):
        """The bytes as a buffer (``numpy.ndarray(buffer=mem)``, Python 3.12 and newer)."""
        return memoryview(self.as_bytes_array())


def device_extents(devmem):
    """``(begin, end)`` (binding ``CUdeviceptr`` values, end exclusive) of the whole driver
    allocation that device memory ``devmem`` (a pointer object or device array) lies in."""
    from numba_cuda.runtime import cudriver

    address = _device_address(devmem)
    drv = cudriver.driver()
    begin, size = cudriver.call(drv.cuMemGetAddressRange, drv.CUdeviceptr(address))
    return begin, drv.CUdeviceptr(int(begin) + int(size))


def _device_address(devmem):
    gpu_data = getattr(devmem, "gpu_data", None)
    if gpu_data is not None:  # a device array
        return pointer_value(gpu_data.device_pointer_value)
    if getattr(devmem, "__cuda_memory__", False):
        return pointer_value(devmem.device_pointer_value)
    desc = getattr(devmem, "__cuda_array_interface__", None)
    if desc is not None:  # mapped and managed arrays, other libraries' arrays
        return int(desc["data"][0])
    raise TypeError(f"{type(devmem).__name__} is not CUDA device memory")


def device_memset(dst, val, size, stream=0):
    """Set ``size`` bytes of device memory ``dst`` (a pointer object or device array) to the
    byte ``val``; asynchronously on ``stream`` (Numba's ``cudadrv.driver.device_memset``)."""
    from numba_cuda.runtime import cudriver

    drv = cudriver.driver()
    address = drv.CUdeviceptr(_device_address(dst))
    if stream:
        handle = stream.handle if hasattr(stream, "handle") else drv.CUstream(int(stream))
        cudriver.call(drv.cuMemsetD8Async, address, int(val), int(size), handle)
    else:
        cudriver.call(drv.cuMemsetD8, address, int(val), int(size))

"""The memory objects an External Memory Management (EMM) plugin returns, without a driver.

:class:`MemoryPointer` (device memory, ``memalloc``), :class:`AutoFreePointer`,
:class:`ManagedMemory`, :class:`PinnedMemory` and :class:`MappedMemory` (page-locked host
memory, ``memhostalloc``/``mempin``) with the constructor arguments and attributes Numba
documents.  This module holds what needs no GPU: the pointer and size, the owner and the
finalizer, the host bytes of host-visible memory.  The GPU runtime
(:mod:`numba_cuda.runtime.memory_pointers`) subclasses these classes with what needs the
driver (``view``, ``memset``, the device address of mapped memory); the simulator uses them as
they are (its device memory is host memory, so mapped memory's device address is its host
address).

Lifetime: the buffer lives as long as the pointer object.  ``finalizer`` (a callable with no
arguments) runs once, when the object is garbage collected or ``free()`` is called.  Numba's
reference count (``refct``, ``own()``) is kept for code that reads it, but nothing here frees
on it: Python's references already decide.
"""

import ctypes
import weakref

__all__ = ["MemoryPointer", "AutoFreePointer", "PinnedMemory", "MappedMemory", "ManagedMemory",
           "HostBytes", "pointer_value", "context_itself"]


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


def context_itself(context):
    """Plugins written for Numba pass ``weakref.proxy(ctx)``: keep the context itself, so that
    identity checks (``mem.context is ctx``) and hashing work."""
    if isinstance(context, (weakref.ProxyType, weakref.CallableProxyType)):
        return getattr(context, "referent", context)
    return context


def _finalize(obj, finalizer):
    return weakref.finalize(obj, finalizer) if finalizer is not None else None


class HostBytes:
    """Host-visible memory (``host_pointer``, ``size``) as a NumPy array of bytes."""

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
        self.context = context_itself(context)
        self.device_pointer = pointer
        self.handle = pointer
        self.device_pointer_value = pointer_value(pointer)
        self.size = int(size)
        self._cuda_memsize_ = self.size
        self.is_managed = finalizer is not None
        self.refct = 1
        self._owner = owner
        self._finalizer = _finalize(self, finalizer)

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


class ManagedMemory(HostBytes, AutoFreePointer):
    """Managed (unified) memory: the same address works on the host and the device."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        super().__init__(context, pointer, size, finalizer=finalizer)
        self.host_pointer = self.device_pointer_value


class PinnedMemory(HostBytes):
    """Page-locked host memory (``memhostalloc`` without mapping, or ``mempin``).

    :param context: the context it was allocated or registered in
    :param pointer: the host address
    :param size: the size in bytes
    :param owner: for ``mempin``, the object owning the memory (kept alive)
    :param finalizer: called with no arguments to release the memory
    """

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context_itself(context)
        self.owned = owner
        self.size = int(size)
        self.host_pointer = pointer_value(pointer)
        self.handle = pointer
        self.is_managed = finalizer is not None
        self._finalizer = _finalize(self, finalizer)

    def own(self):
        return self

    def free(self):
        """Release now rather than when collected."""
        if self._finalizer is not None and self._finalizer.alive:
            self._finalizer()


class MappedMemory(HostBytes, AutoFreePointer):
    """Page-locked host memory mapped into the device's address space: ``host_pointer`` is
    its host address, ``device_pointer_value`` its device address (:meth:`device_address_of`
    the host address)."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        self.host_pointer = pointer_value(pointer)
        super().__init__(context, self.device_address_of(self.host_pointer), size,
                         finalizer=finalizer)
        self.handle = pointer

    def device_address_of(self, host_pointer):
        """The device address of mapped host memory: the host address where device memory is
        host memory (the simulator); the GPU runtime asks the driver."""
        return host_pointer

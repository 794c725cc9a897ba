"""CUDA IPC: sharing device memory with another process on the same machine.

The exporting process gets an :class:`IpcHandle` from its memory manager
(``ctx.get_ipc_handle(memory)``, or ``device_array.get_ipc_handle()`` for an
:class:`IpcArrayHandle`); the handle pickles (the driver's 64-byte
``CUipcMemHandle``, the size, the offset into the allocation and the source
device's PCI identity) and the importing process opens it:

- directly (``cuIpcOpenMemHandle``) when its device is the source device or
  can access it as a peer;
- staged otherwise: opened on the source device, copied into a new allocation
  on the importing device.

A handle cannot be opened in the process that exported it (the driver
refuses), nor twice without closing it in between (``ValueError``, as in
Numba).  IPC needs Linux.

This module sits below contexts and devices (memory managers make IpcHandles):
it reaches other devices through the driver only.  ``IpcArrayHandle`` lives
with the device arrays, ``cuda.open_ipc_array`` with the public API.
"""

import ctypes
import sys

from numba_cuda.runtime import cudriver
from numba_cuda.runtime.memory_pointers import MemoryPointer, device_extents

__all__ = ["IpcHandle", "GetIpcHandleMixin", "handle_bytes", "handle_from_bytes",
           "supports_ipc", "register_array_type"]

#: CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
_LAZY_ENABLE_PEER_ACCESS = 1
#: bytes in a CUipcMemHandle (CU_IPC_HANDLE_SIZE)
HANDLE_SIZE = 64


def supports_ipc():
    """CUDA IPC works on Linux only."""
    return sys.platform.startswith("linux")


def handle_bytes(handle):
    """The 64 bytes of a binding ``CUipcMemHandle`` (what travels to the other process)."""
    return ctypes.string_at(handle.getPtr(), HANDLE_SIZE)


def handle_from_bytes(raw):
    """A binding ``CUipcMemHandle`` holding the 64 bytes ``raw``."""
    from cuda.bindings.driver import CUipcMemHandle

    raw = bytes(raw)
    if len(raw) != HANDLE_SIZE:
        raise ValueError(f"a CUDA IPC memory handle is {HANDLE_SIZE} bytes, got {len(raw)}")
    handle = CUipcMemHandle()
    ctypes.memmove(handle.getPtr(), raw, HANDLE_SIZE)
    return handle


def binding_handle(handle):
    """A ``CUipcMemHandle`` from one, or from its 64 bytes (bytes, bytearray, ints)."""
    from cuda.bindings.driver import CUipcMemHandle

    if isinstance(handle, CUipcMemHandle):
        return handle
    return handle_from_bytes(handle)


# The device-array class IpcHandle.open_array builds (set by numba_cuda.runtime.devicearray,
# which sits above this module: arrays allocate in contexts, whose managers make IpcHandles).
_array_type = None


def register_array_type(cls):
    global _array_type
    _array_type = cls


def _device_identity(drv, device):
    attr = drv.CUdevice_attribute
    return {key: int(cudriver.call(drv.cuDeviceGetAttribute,
                                   getattr(attr, f"CU_DEVICE_ATTRIBUTE_{key.upper()}"), device))
            for key in ("pci_domain_id", "pci_bus_id", "pci_device_id")}


def _device_with_identity(identity):
    """The driver's ``CUdevice`` whose PCI identity is ``identity``."""
    drv = cudriver.driver()
    for ordinal in range(int(cudriver.call(drv.cuDeviceGetCount))):
        device = cudriver.call(drv.cuDeviceGet, ordinal)
        if _device_identity(drv, device) == identity:
            return device
    raise RuntimeError(f"no CUDA device in this process has the PCI identity {identity} of the "
                       f"device the IPC handle was made on (check CUDA_VISIBLE_DEVICES)")


def _open(handle):
    """cuIpcOpenMemHandle in the current context: the device address of the mapping."""
    drv = cudriver.driver()
    return int(cudriver.call(drv.cuIpcOpenMemHandle, binding_handle(handle),
                             _LAZY_ENABLE_PEER_ACCESS))


def _close(address):
    drv = cudriver.driver()
    cudriver.call(drv.cuIpcCloseMemHandle, drv.CUdeviceptr(address))


class _DirectOpening:
    """The handle opened with cuIpcOpenMemHandle in ``context``."""

    def __init__(self, parent, context):
        with context.active():
            address = _open(parent.handle)
        self.context = context
        # unmapped by close(), not by a finalizer: the importer decides when
        self.mapped = MemoryPointer(context, address, parent.offset + parent.size)
        self.memory = self.mapped.view(parent.offset)

    def close(self):
        with self.context.active():
            _close(self.mapped.device_pointer_value)


class _StagedOpening:
    """The handle opened in its source device's primary context and copied into new memory
    of ``context`` (devices that cannot access each other's memory)."""

    def __init__(self, parent, context):
        drv = cudriver.driver()
        source = _device_with_identity(parent.source_info)
        self.memory = context.memalloc(parent.size)
        source_ctx = cudriver.call(drv.cuDevicePrimaryCtxRetain, source)
        try:
            cudriver.call(drv.cuCtxPushCurrent, source_ctx)
            try:
                address = _open(parent.handle)
                try:
                    if parent.size:
                        cudriver.call(drv.cuMemcpyDtoD,
                                      drv.CUdeviceptr(self.memory.device_pointer_value),
                                      drv.CUdeviceptr(address + parent.offset), parent.size)
                finally:
                    _close(address)
            finally:
                cudriver.call(drv.cuCtxPopCurrent)
        finally:
            drv.cuDevicePrimaryCtxRelease(source)

    def close(self):
        pass  # the copy is ordinary memory of the importing context


class IpcHandle:
    """A CUDA IPC handle of (part of) an allocation; picklable.

    :param base: the exported memory (kept alive); None in an importing process
    :param handle: the driver's ``CUipcMemHandle``
    :param size: the size in bytes of the memory shared
    :param source_info: the PCI identity of the source device (a dict), or None
    :param offset: where the memory shared starts in the allocation the handle is of
    """

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle
        self.size = int(size)
        self.source_info = source_info
        self.offset = int(offset)
        self._impl = None

    def _sentry_source_info(self):
        if self.source_info is None:
            raise RuntimeError("IPC handle doesn't have source info")

    def can_access_peer(self, context):
        """True when ``context``'s device can open the handle directly."""
        self._sentry_source_info()
        if self.source_info == context.device.get_device_identity():
            return True
        source = _device_with_identity(self.source_info)
        drv = cudriver.driver()
        return bool(cudriver.call(drv.cuDeviceCanAccessPeer, context.device.handle, source))

    def _open_with(self, opening, context):
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._impl is not None:
            raise ValueError("IpcHandle is already opened")
        self._impl = opening(self, context)
        return self._impl.memory

    def open_direct(self, context):
        """Map the shared memory into ``context`` (cuIpcOpenMemHandle); a MemoryPointer."""
        return self._open_with(_DirectOpening, context)

    def open_staged(self, context):
        """Copy the shared memory into a new allocation in ``context`` (devices that are not
        peers); a MemoryPointer."""
        self._sentry_source_info()
        return self._open_with(_StagedOpening, context)

    def open(self, context):
        """The shared memory in ``context``: mapped when possible, else staged."""
        if self.source_info is None or self.can_access_peer(context):
            return self.open_direct(context)
        return self.open_staged(context)

    def open_array(self, context, shape, dtype, strides=None):
        """Like ``open``, as a device array (``strides`` default: C-contiguous)."""
        import numpy as np

        if _array_type is None:
            raise RuntimeError("IpcHandle.open_array needs numba_cuda.runtime.devicearray "
                               "(import numba.cuda first)")
        return _array_type(shape, strides, np.dtype(dtype), gpu_data=self.open(context))

    def close(self):
        """Unmap the shared memory (after ``open``)."""
        if self._impl is None:
            raise ValueError("IpcHandle not opened")
        self._impl.close()
        self._impl = None

    def __reduce__(self):
        return (_rebuild_ipc_handle, (type(self), handle_bytes(binding_handle(self.handle)),
                                      self.size, self.source_info, self.offset))

    def __repr__(self):
        state = "opened" if self._impl is not None else "closed"
        return f"<IpcHandle of {self.size} bytes at offset {self.offset} ({state})>"


def _rebuild_ipc_handle(cls, raw, size, source_info, offset):
    return cls(None, handle_from_bytes(raw), size, source_info=source_info, offset=offset)


class GetIpcHandleMixin:
    """``get_ipc_handle`` through the driver: an IPC handle of the allocation's base address
    (``cuMemGetAddressRange``), with the offset of ``memory`` into it."""

    def get_ipc_handle(self, memory):
        base, _end = device_extents(memory)
        drv = cudriver.driver()
        with self.context.active():
            handle = cudriver.call(drv.cuIpcGetMemHandle, base)
        offset = memory.device_pointer_value - int(base)
        source_info = self.context.device.get_device_identity()
        return IpcHandle(memory, handle, memory.size, source_info, offset=offset)

"""Memory managers (EMM plugins) on the GPU runtime, and which one contexts use.

The interface is :class:`numba_cuda.common.emm.BaseCUDAMemoryManager`.  Here:

- :class:`HostOnlyCUDAMemoryManager`: implements the host side (page-locked,
  mapped and managed memory), ``reset`` and ``defer_cleanup``; a plugin that
  only allocates device memory (RAPIDS RMM's) subclasses it and implements
  ``memalloc``, ``initialize``, ``get_memory_info``, ``get_ipc_handle`` and
  ``interface_version``;
- :class:`~numba_cuda.runtime.ipc.GetIpcHandleMixin` (in ``ipc``): ``get_ipc_handle``
  through the driver (``cuIpcGetMemHandle`` of the allocation's base);
- :class:`NumbaCUDAMemoryManager`: numba-cuda's own manager, used unless
  another is selected: ``cuMemAlloc`` with frees deferred on the context's
  queue (``ctx.deallocations``).

Selection: :func:`set_memory_manager` (``cuda.set_memory_manager``), else
``NUMBA_CUDA_MEMORY_MANAGER=<module>`` (the module's ``_numba_memory_manager``),
read when the first context is created.  A context keeps the manager it was
created with (``cuda.close()`` and a new context pick up a new selection).
"""

import contextlib

from numba_cuda.common.emm import BaseCUDAMemoryManager, MemoryInfo, check_plugin
from numba_cuda.errors import DriverError
from numba_cuda.runtime import cudriver
from numba_cuda.runtime.ipc import GetIpcHandleMixin
from numba_cuda.runtime.memory import (
    DeviceAllocation,
    HostAllocation,
    PendingDeallocations,
    is_out_of_memory,
)

__all__ = ["HostOnlyCUDAMemoryManager", "NumbaCUDAMemoryManager",
           "set_memory_manager", "memory_manager_class"]


def _free_device(pointer):
    drv = cudriver.driver()
    drv.cuMemFree(drv.CUdeviceptr(pointer))


def _free_host(pointer):
    cudriver.driver().cuMemFreeHost(pointer)


def _unregister_host(pointer):
    cudriver.driver().cuMemHostUnregister(pointer)


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Base class of plugins that implement device allocation only.

    ``allocations`` is a dict a plugin may use to keep its buffers alive (it is
    cleared on ``reset``); ``deallocations`` is the context's queue of deferred
    frees.  Plugins overriding ``reset`` or ``defer_cleanup`` call ``super()``'s.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}
        queue = getattr(self.context, "deallocations", None) if self.context is not None else None
        self.deallocations = queue if queue is not None else PendingDeallocations(None, 0)

    # -- allocation through the driver -------------------------------------------------
    def _attempt_allocation(self, allocator):
        """``allocator()``; when it fails for lack of memory, flush the deferred frees and
        try once more."""
        try:
            return allocator()
        except DriverError as exc:
            if not is_out_of_memory(exc):
                raise
            self.deallocations.clear()
            return allocator()

    def _driver_allocation(self, fn, size, *extra):
        """Run the driver allocation ``fn(size, *extra)`` in the context; its pointer."""
        ctx = self.context

        def allocate():
            with ctx.active():
                return cudriver.call(fn, size, *extra)
        try:
            return self._attempt_allocation(allocate)
        except DriverError as exc:
            if is_out_of_memory(exc):
                with ctx.active():
                    free, total = cudriver.call(cudriver.driver().cuMemGetInfo)
                raise DriverError(
                    f"out of memory on CUDA device {ctx.device.id}: {fn.__name__} of {size} "
                    f"bytes failed with {int(free)} of {int(total)} bytes free (free unused "
                    f"device arrays, or allocate less)", code=exc.code) from None
            raise

    # -- host memory ---------------------------------------------------------------------
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Page-locked host memory; ``mapped`` also maps it into the device's address space."""
        size = max(int(size), 1)
        drv = cudriver.driver()
        flags = 0
        if mapped:
            flags |= drv.CU_MEMHOSTALLOC_DEVICEMAP
        if portable:
            flags |= drv.CU_MEMHOSTALLOC_PORTABLE
        if wc:
            flags |= drv.CU_MEMHOSTALLOC_WRITECOMBINED
        host = int(self._driver_allocation(drv.cuMemHostAlloc, size, flags))
        dptr = None
        if mapped:
            with self.context.active():
                dptr = int(cudriver.call(drv.cuMemHostGetDevicePointer, host, 0))
        return HostAllocation(self.context, host, size, device_pointer=dptr, free=_free_host)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock existing host memory (``owner`` is kept alive); unregistered when collected."""
        drv = cudriver.driver()
        flags = drv.CU_MEMHOSTREGISTER_DEVICEMAP if mapped else 0
        with self.context.active():
            cudriver.call(drv.cuMemHostRegister, int(pointer), int(size), flags)
            dptr = None
            if mapped:
                dptr = int(cudriver.call(drv.cuMemHostGetDevicePointer, int(pointer), 0))
        return HostAllocation(self.context, pointer, size, device_pointer=dptr, owner=owner,
                              free=_unregister_host)

    def memallocmanaged(self, size, attach_global=True):
        """Managed (unified) memory: the pointer works on host and device."""
        size = int(size)
        if size == 0:
            return DeviceAllocation(self.context, 0, 0)
        drv = cudriver.driver()
        flag = (drv.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL if attach_global
                else drv.CUmemAttach_flags.CU_MEM_ATTACH_HOST)
        ptr = self._driver_allocation(drv.cuMemAllocManaged, size, int(flag))
        return DeviceAllocation(self.context, int(ptr), size, free=_free_device)

    # -- state ---------------------------------------------------------------------------
    def reset(self):
        """Drop the buffers kept in ``allocations`` and run the deferred frees."""
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        """Hold the deferred frees until the block ends."""
        with self.deallocations.disable():
            yield


class NumbaCUDAMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """numba-cuda's own memory manager: ``cuMemAlloc``, frees deferred on the context's queue
    (flushed when it holds too much, before an allocation that would fail, on synchronize)."""

    def initialize(self):
        """The context's deallocation queue is already sized for the device: nothing to do."""

    def memalloc(self, size):
        size = int(size)
        if size == 0:
            return DeviceAllocation(self.context, 0, 0)
        drv = cudriver.driver()
        ptr = self._driver_allocation(drv.cuMemAlloc, size)
        return DeviceAllocation(self.context, int(ptr), size, free=_free_device)

    def get_memory_info(self):
        drv = cudriver.driver()
        with self.context.active():
            free, total = cudriver.call(drv.cuMemGetInfo)
        return MemoryInfo(int(free), int(total))

    @property
    def interface_version(self):
        from numba_cuda.common.emm import EMM_INTERFACE_VERSION

        return EMM_INTERFACE_VERSION


#: The memory manager class new contexts use (None: not chosen yet).
_memory_manager = None


def set_memory_manager(mm_plugin):
    """Use the EMM plugin class ``mm_plugin`` for contexts created from now on.

    Raises RuntimeError when the plugin implements another interface version.
    Contexts that already exist keep their manager: call it before the first
    CUDA use, or ``cuda.close()`` first.
    """
    global _memory_manager
    check_plugin(mm_plugin)
    _memory_manager = mm_plugin


def _configured_module():
    from numba_cuda.runtime.user_settings import memory_manager_module

    return memory_manager_module()


def memory_manager_class():
    """The manager class for a new context: the one set, else NUMBA_CUDA_MEMORY_MANAGER's."""
    global _memory_manager
    if _memory_manager is not None:
        return _memory_manager
    name = _configured_module()
    if name == "default":
        return NumbaCUDAMemoryManager
    import importlib

    try:
        module = importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - any failure to import the plugin is reported
        raise RuntimeError(
            f"Failed to use memory manager from {name}: NUMBA_CUDA_MEMORY_MANAGER names a "
            f"module that could not be imported ({type(exc).__name__}: {exc}); install it or "
            f"unset NUMBA_CUDA_MEMORY_MANAGER") from exc
    plugin = getattr(module, "_numba_memory_manager", None)
    if plugin is None:
        raise RuntimeError(
            f"Failed to use memory manager from {name}: the module defines no "
            f"_numba_memory_manager (it must name the plugin class, e.g. "
            f"_numba_memory_manager = MyManager)")
    try:
        check_plugin(plugin)
    except Exception as exc:  # noqa: BLE001
        raise RuntimeError(f"Failed to use memory manager from {name}: {exc}") from exc
    _memory_manager = plugin
    return plugin

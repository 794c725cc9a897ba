"""External Memory Management and IPC names under the simulator.

Simulated device arrays are numpy arrays in host memory: no memory manager
is ever asked for memory, and there is no other process to share memory
with.  So that code defining or selecting an EMM plugin imports and runs
unchanged, the plugin interface is the real one (:mod:`numba_cuda.common.emm`),
``set_memory_manager`` checks the plugin as on a GPU (and warns that the
simulator will not call it), and the memory classes can be constructed (they are
:mod:`numba_cuda.common.emm_memory`'s, the part of the GPU target's that needs no driver).
What needs a GPU (host allocations of ``HostOnlyCUDAMemoryManager``, IPC)
raises :class:`~numba_cuda.simulator.dispatcher.NotAvailableInSimulator`.
Numba's own simulator has none of these names.
"""

import contextlib
import warnings

from ..common.emm import BaseCUDAMemoryManager, MemoryInfo, check_plugin  # noqa: F401
from ..common.emm_memory import MappedMemory, MemoryPointer, PinnedMemory  # noqa: F401 - constructible
from .unavailable import not_available

#: The EMM and IPC names that both ``numba.cuda`` (:mod:`..api`) and
#: ``numba.cuda.cudadrv.driver`` (:mod:`numba_cuda.compat.simulator.cudadrv.driver`) export, as on the GPU
#: (``open_ipc_array`` is ``numba.cuda``'s only).
__all__ = [
    "BaseCUDAMemoryManager",
    "GetIpcHandleMixin",
    "HostOnlyCUDAMemoryManager",
    "IpcHandle",
    "MappedMemory",
    "MemoryInfo",
    "MemoryPointer",
    "PinnedMemory",
    "set_memory_manager",
]


class PendingDeallocations:
    """``ctx.deallocations`` of the simulated context: nothing is ever deferred."""

    def clear(self):
        """Nothing to free: simulated memory is numpy's."""

    @contextlib.contextmanager
    def disable(self):
        yield

    def __len__(self):
        return 0


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Base class of device-only EMM plugins (never called by the simulator)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}
        self.deallocations = PendingDeallocations()

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        raise not_available("page-locked host allocation through a memory manager")

    def mempin(self, owner, pointer, size, mapped=False):
        raise not_available("pinning host memory through a memory manager")

    def memallocmanaged(self, size, attach_global=True):
        raise not_available("managed allocation through a memory manager")

    def reset(self):
        self.allocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        yield


class GetIpcHandleMixin:
    """``get_ipc_handle`` through the driver: needs a GPU."""

    def get_ipc_handle(self, memory):
        raise not_available("CUDA IPC")


class IpcHandle:
    """A CUDA IPC handle; opening one needs a GPU."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle
        self.size = size
        self.source_info = source_info
        self.offset = offset

    def open(self, context):
        raise not_available("opening a CUDA IPC handle")

    open_direct = open_staged = open

    def open_array(self, context, shape, dtype, strides=None):
        raise not_available("opening a CUDA IPC handle")

    def close(self):
        raise not_available("closing a CUDA IPC handle")


_memory_manager = None


def set_memory_manager(mm_plugin):
    """Check ``mm_plugin`` as the GPU target does; the simulator then never calls it."""
    global _memory_manager
    check_plugin(mm_plugin)
    _memory_manager = mm_plugin
    warnings.warn(
        f"the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) keeps device arrays in host memory and "
        f"does not call the memory manager {mm_plugin.__qualname__}; it is used on a GPU only",
        RuntimeWarning, stacklevel=2)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    raise not_available("cuda.open_ipc_array (CUDA IPC)")
    yield  # pragma: no cover - a generator, for the context-manager protocol

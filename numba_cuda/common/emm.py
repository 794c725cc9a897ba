"""External Memory Management (EMM): the plugin interface.

A memory manager ("EMM plugin") is a class that allocates device memory for
numba-cuda, as Numba documents it: one instance per context, created as
``Plugin(context=ctx)``; numba-cuda calls ``initialize()`` before the first
allocation, ``memalloc(size)`` for every device array, ``get_memory_info()``
for ``ctx.get_memory_info()``, ``get_ipc_handle(memory)`` for IPC, ``reset()``
when the context is reset or closed, and enters ``defer_cleanup()`` for
``cuda.defer_cleanup()``.  Select one with ``cuda.set_memory_manager(cls)`` or
``NUMBA_CUDA_MEMORY_MANAGER=<module>`` (the module defines
``_numba_memory_manager``).

This module holds only the interface (no driver, no runtime), so the GPU
runtime (:mod:`numba_cuda.runtime.memory_managers`, which adds the
implementations) and the simulator share it.
"""

import abc
import collections

#: The version of the EMM plugin interface this package implements.
EMM_INTERFACE_VERSION = 1

MemoryInfo = collections.namedtuple("MemoryInfo", ["free", "total"])
MemoryInfo.__doc__ = """Free and total memory of a device, in bytes (``.free``, ``.total``)."""


class BaseCUDAMemoryManager(abc.ABC):
    """Abstract base class of EMM plugins: subclasses implement every method below.

    Constructed by numba-cuda as ``cls(context=ctx)`` for each context; the
    context is ``self.context``.
    """

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError(
                "Memory manager requires a context: memory managers are created by numba-cuda "
                "as cls(context=ctx) for each CUDA context (select one with "
                "cuda.set_memory_manager(cls))")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """Allocate ``size`` bytes of device memory in the context; return a MemoryPointer."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped, portable, wc):
        """Allocate page-locked host memory; return a MappedMemory (``mapped``) or PinnedMemory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped):
        """Page-lock ``size`` bytes of existing host memory at ``pointer`` (owned by ``owner``);
        return a MappedMemory (``mapped``) or PinnedMemory."""

    @abc.abstractmethod
    def initialize(self):
        """Prepare the manager for use in its context (called before the first allocation)."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle for the allocation ``memory`` (a MemoryPointer) belongs to."""

    @abc.abstractmethod
    def get_memory_info(self):
        """``MemoryInfo(free, total)`` in bytes; may raise NotImplementedError (pools)."""

    @abc.abstractmethod
    def reset(self):
        """Free everything allocated in the context."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager during which no memory is freed."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """The EMM interface version the plugin implements (1)."""


def check_plugin(mm_plugin):
    """Raise unless ``mm_plugin`` is a memory-manager class implementing this interface version."""
    if not isinstance(mm_plugin, type):
        raise TypeError(
            f"set_memory_manager expects a memory manager class (a subclass of "
            f"numba.cuda.BaseCUDAMemoryManager), got {type(mm_plugin).__name__}")
    version = mm_plugin(context=None).interface_version
    if version != EMM_INTERFACE_VERSION:
        raise RuntimeError(
            f"EMM Plugin interface has version {version} - version {EMM_INTERFACE_VERSION} "
            f"required (the plugin {mm_plugin.__qualname__} implements another version of "
            f"the External Memory Management interface)")

"""Compiled kernels as the dispatcher hands them out: with the queries that need a GPU.

``LaunchableKernel`` is the compiler's ``CompiledKernel`` plus ``max_cooperative_grid_blocks``
(the driver's occupancy for a cooperative launch) and ``_codelibrary`` (NVIDIA's name for the
kernel's code library, whose ``get_cufunc()`` is the kernel loaded on the current device: cuDF
sizes blocks with it and ``Context.get_max_potential_block_size``); the disk cache's
``CachedKernel`` has both too (``RuntimeQueries``).
"""

from ..compiler.kernel import CompiledKernel
from .device_cc import launch_cc


def loaded_on_current_device(kernel):
    """``kernel`` (a ``CompiledKernel`` or cached kernel) loaded in the current context, for
    the current device's compute capability: a ``numba_cuda.runtime.launch.LoadedKernel``
    (``handle``: its ``CUfunction``).  Needs a GPU: without a driver it raises
    ``CudaSupportError``."""
    from ..runtime.launch import load_kernel

    return load_kernel(kernel.image(launch_cc()))


def max_cooperative_grid_blocks(kernel, blockdim, dynsmemsize=0):
    """The most blocks of ``blockdim`` threads (with ``dynsmemsize`` bytes of dynamic shared
    memory) that a cooperative launch of ``kernel`` (a ``CompiledKernel`` or cached kernel) can
    have on the current device: the driver's occupancy (blocks per multiprocessor) times the
    multiprocessor count.  Needs a GPU: without a driver it raises ``CudaSupportError``."""
    return loaded_on_current_device(kernel).max_cooperative_grid_blocks(blockdim, dynsmemsize)


class KernelCodeLibrary:
    """``kernel._codelibrary``: the kernel's code library (every attribute of its ``library``:
    ``get_asm_str``, ``get_llvm_str`` ...) plus ``get_cufunc()``, the kernel loaded on the current
    device (see ``loaded_on_current_device``), which ``Context.get_max_potential_block_size``
    and ``get_active_blocks_per_multiprocessor`` take."""

    def __init__(self, kernel):
        self._kernel = kernel

    def get_cufunc(self):
        return loaded_on_current_device(self._kernel)

    def __getattr__(self, name):
        if name == "_kernel":  # (not yet set: a copy being made)
            raise AttributeError(name)
        return getattr(self._kernel.library, name)

    def __repr__(self):
        return f"<code library of {self._kernel!r}>"


class RuntimeQueries:
    """Mixin of a compiled or cached kernel: the queries that need the runtime."""

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """See ``max_cooperative_grid_blocks`` in this module (needs a GPU)."""
        return max_cooperative_grid_blocks(self, blockdim, dynsmemsize)

    @property
    def _codelibrary(self):
        return KernelCodeLibrary(self)


class LaunchableKernel(RuntimeQueries, CompiledKernel):
    """A ``CompiledKernel`` made by the dispatcher (see the module docstring)."""

    #: compiled for one launch configuration (numba_cuda.launchconfig): set by the dispatcher
    launch_config_sensitive = False

"""Compiled kernels as the dispatcher hands them out: with the queries that need a GPU.

``LaunchableKernel`` is the compiler's ``CompiledKernel`` plus ``max_cooperative_grid_blocks``
(the driver's occupancy for a cooperative launch); the disk cache's ``CachedKernel`` has it too.
"""

from ..compiler.kernel import CompiledKernel
from .device_cc import launch_cc


def max_cooperative_grid_blocks(kernel, blockdim, dynsmemsize=0):
    """The most blocks of ``blockdim`` threads (with ``dynsmemsize`` bytes of dynamic shared
    memory) that a cooperative launch of ``kernel`` (a ``CompiledKernel`` or cached kernel) can
    have on the current device: the driver's occupancy (blocks per multiprocessor) times the
    multiprocessor count.  Needs a GPU: without a driver it raises ``CudaSupportError``."""
    from ..runtime.launch import load_kernel

    return load_kernel(kernel.image(launch_cc())).max_cooperative_grid_blocks(blockdim, dynsmemsize)


class CooperativeGridQuery:
    """Mixin: ``max_cooperative_grid_blocks`` for a compiled or cached kernel."""

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """See ``max_cooperative_grid_blocks`` in this module (needs a GPU)."""
        return max_cooperative_grid_blocks(self, blockdim, dynsmemsize)


class LaunchableKernel(CooperativeGridQuery, CompiledKernel):
    """A ``CompiledKernel`` made by the dispatcher (see the module docstring)."""

    #: compiled for one launch configuration (numba_cuda.launchconfig): set by the dispatcher
    launch_config_sensitive = False

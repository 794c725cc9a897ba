"""Validation of ``kernel[griddim, blockdim, stream, dynamic_shared_bytes]``.

The limits are those of the simulated device (:mod:`.devices`), which are the
limits of every current NVIDIA GPU.
"""

import numbers

from ..errors import LaunchConfigError
from ..common.launch_dims import normalize_dims

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024


def normalize(griddim, blockdim, sharedmem=0):
    """Return ``(griddim, blockdim)`` as 3-tuples, or raise :class:`LaunchConfigError`."""
    grid = normalize_dims(griddim, "griddim")
    block = normalize_dims(blockdim, "blockdim")
    for axis, d, limit in zip("xyz", grid, MAX_GRID_DIM):
        if d > limit:
            raise LaunchConfigError(f"griddim.{axis} = {d} exceeds the device limit of {limit}")
    for axis, d, limit in zip("xyz", block, MAX_BLOCK_DIM):
        if d > limit:
            raise LaunchConfigError(f"blockdim.{axis} = {d} exceeds the device limit of {limit}")
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise LaunchConfigError(
            f"blockdim {block} has {threads} threads per block, more than the device limit of "
            f"{MAX_THREADS_PER_BLOCK} (MAX_THREADS_PER_BLOCK)"
        )
    if not isinstance(sharedmem, numbers.Integral) or sharedmem < 0:
        raise LaunchConfigError(
            f"dynamic shared memory must be a non-negative number of bytes, got {sharedmem!r}"
        )
    if sharedmem > MAX_SHARED_MEMORY_PER_BLOCK:
        raise LaunchConfigError(
            f"dynamic shared memory of {int(sharedmem)} bytes exceeds the device limit of "
            f"{MAX_SHARED_MEMORY_PER_BLOCK} bytes per block (MAX_SHARED_MEMORY_PER_BLOCK)"
        )
    return grid, block

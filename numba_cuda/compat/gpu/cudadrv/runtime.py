"""Numba's ``cudadrv.runtime``: the CUDA runtime version (``numba_cuda.runtime.cudart``)."""

from numba_cuda.runtime.cudart import Runtime, get_version, runtime  # noqa: F401

"""``numba.cuda.cudadrv.drvapi``: ctypes types of CUDA driver handles; the very module
:mod:`numba_cuda.driver_ctypes`."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.driver_ctypes")

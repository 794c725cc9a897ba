"""``numba.cuda.cudadrv.enums``: the CUDA driver API's constants; the very module
:mod:`numba_cuda.driver_enums`."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.driver_enums")

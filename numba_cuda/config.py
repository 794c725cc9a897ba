"""``numba.cuda.config``: Numba's ``numba.core.config`` (NVIDIA's numba-cuda reads its settings through ``numba.cuda.core.config``, also that module); the very same module."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba.core.config")

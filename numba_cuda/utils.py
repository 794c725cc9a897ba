"""``numba.cuda.utils``: Numba's ``numba.core.utils`` (NVIDIA's numba-cuda ships a copy of it here); the very same module."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba.core.utils")

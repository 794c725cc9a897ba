"""``numba.cuda.itanium_mangler``: Numba's ``numba.core.itanium_mangler`` (NVIDIA's numba-cuda ships a copy of it here); the very same module."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba.core.itanium_mangler")

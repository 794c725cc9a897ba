"""``numba.cuda.serialize``: Numba's ``numba.core.serialize`` (``dumps``, ``_rebuild_reduction`` ...; NVIDIA's numba-cuda ships a copy of it here); the very same module."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba.core.serialize")

"""``numba.cuda.datamodel``: Numba's ``numba.core.datamodel`` (NVIDIA's numba-cuda ships a copy of it here); the very same modules."""

from numba_cuda._aliases import alias_package

alias_package(__name__, "numba.core.datamodel")

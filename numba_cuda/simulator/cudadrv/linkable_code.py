"""``numba.cuda.cudadrv.linkable_code``: ``LinkableCode``, ``CUSource``, ``PTXSource`` ...

NVIDIA's numba-cuda's path for the in-memory ``link=`` items; the very module
:mod:`numba_cuda.linking.linkable`.
"""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.linking.linkable")

"""Registries for third-party typing and lowering of CUDA-only functions.

Old Numba code extends the CUDA target with ``numba.cuda.cudadecl.registry``
(``@registry.register_global(fn)`` on a typing template) and
``numba.cuda.cudaimpl.lower`` (``@lower(fn, types...)``); NVIDIA's numba-cuda
kept both.  These are those registries: a kernel-language family like the
others, installed by the CUDA typing and target contexts only (not the CPU's),
and picked up by every compile after registration.
"""

from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import Registry as TypingRegistry

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.extension_registries")

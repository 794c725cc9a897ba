"""``numba.cuda.cudaimpl``: where old Numba code registers lowering for CUDA-only functions.

``registry`` is :data:`numba_cuda.lang.extension_registries.lowering_registry` (installed by the
CUDA target context only); ``lower``, ``lower_attr``, ``lower_constant`` are its decorators.
"""

from numba_cuda.lang.extension_registries import lowering_registry as registry

lower = registry.lower
lower_attr = registry.lower_getattr
lower_constant = registry.lower_constant

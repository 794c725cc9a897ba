"""``numba.cuda.cudadecl``: where old Numba code registers typing for CUDA-only functions.

``registry`` is :data:`numba_cuda.lang.extension_registries.typing_registry` (installed by the
CUDA typing context only); ``register``, ``register_attr``, ``register_global`` are its
decorators.
"""

from numba_cuda.lang.extension_registries import typing_registry as registry

register = registry.register
register_attr = registry.register_attr
register_global = registry.register_global

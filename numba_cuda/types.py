"""``numba.cuda.types``: Numba's types, plus the CUDA-specific ones.

In NVIDIA's numba-cuda this module is a copy of ``numba.core.types`` with the
CUDA types added, and ``from numba.cuda import float32, void, ...`` re-exports
its ``__all__``; in old Numba it held ``Dim3`` and ``GridGroup``.  Here every
``numba.core.types`` name is Numba's own object (``numba.cuda.types.float32 is
numba.types.float32``), and the CUDA types are ours:

* ``bfloat16``: the type of ``cuda.bf16.bfloat16`` values;
* ``Dim3``: the class of the types of ``cuda.threadIdx``, ``blockIdx``, ``blockDim``, ``gridDim``;
* ``GridGroup`` / ``grid_group``: the class and the type of ``cuda.cg.this_grid()``.
"""

from numba.core.types import *  # noqa: F401,F403
from numba.core import types as _numba_types

from ._exports import NUMBA_TYPE_NAMES

#: The names ``from numba.cuda import float32, ...`` gets from here.
__all__ = list(NUMBA_TYPE_NAMES)

# name -> (module, attribute): imported on first use, so that importing this module costs
# nothing beyond Numba's types (the simulator imports it too).
_CUDA_TYPES = {
    "bfloat16": ("numba_cuda.lang.bf16", "bfloat16"),
    "Dim3": ("numba_cuda.lang.indexing", "Dim3Type"),
    "GridGroup": ("numba_cuda.lang.cg", "GridGroupType"),
    "grid_group": ("numba_cuda.lang.cg", "grid_group"),
}


def __getattr__(name):
    where = _CUDA_TYPES.get(name)
    if where is not None:
        import importlib

        value = getattr(importlib.import_module(where[0]), where[1])
    else:
        try:
            value = getattr(_numba_types, name)  # Array, UniTuple, CPointer, NPDatetime ...
        except AttributeError:
            raise AttributeError(f"module 'numba.cuda.types' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_CUDA_TYPES) | set(dir(_numba_types)))

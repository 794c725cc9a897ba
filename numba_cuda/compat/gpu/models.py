"""``numba.cuda.models`` of Numba's built-in CUDA target and NVIDIA's numba-cuda: data models for
the CUDA target only.

``register_model(SomeType)(SomeModel)`` gives ``SomeType`` its model in the CUDA target's data
model manager (``cuda_data_manager``) and nowhere else, as the peers' ``register_model`` (a
``functools.partial`` of Numba's ``register`` over their ``cuda_data_manager``) does; Numba's
default manager, which the CPU target uses and the CUDA manager falls back to, keeps its models.
The model classes are Numba's own (``StructModel``, ``PrimitiveModel`` ..., all of
``numba.core.datamodel.models`` as ``models``).  Registering does not build the CUDA contexts: a
registration made before them waits for the manager (``compiler.target_context``).
"""

from numba.core import types  # noqa: F401
from numba.core.datamodel import models  # noqa: F401
from numba.core.datamodel.manager import DataModelManager  # noqa: F401
from numba.core.datamodel.models import PrimitiveModel, StructModel  # noqa: F401
from numba.core.datamodel.registry import register  # noqa: F401

from numba_cuda.compiler import target_context as _target_context


def register_model(fetypecls):
    """Decorator: ``@register_model(MyType)`` on a data model class registers it for the CUDA
    target (returns the class)."""
    def wraps(handler):
        _target_context.register_cuda_model(fetypecls, handler)
        return handler

    return wraps


def __getattr__(name):
    if name == "cuda_data_manager":  # the CUDA target's manager (built on first use)
        return _target_context.cuda_data_model_manager()
    raise AttributeError(f"module 'numba.cuda.models' has no attribute {name!r}")

"""The Numba type and data model of CUDA vector values (``VectorType``, one per class).

Below both ``vector_values`` (the host classes, whose ``_numba_type_`` asks ``numba_type_of``)
and ``vectortypes`` (typing and lowering), so that neither imports the other.
"""

import functools

from numba.core import types
from numba.core.datamodel import models
from numba.core.extending import register_model


class VectorType(types.Type):
    """The Numba type of a CUDA vector type's values (``float32x4`` ...)."""

    def __init__(self, pyclass):
        self.pyclass = pyclass
        self.base_type = getattr(types, pyclass.__name__.rsplit("x", 1)[0])
        self.num_elements = pyclass.num_elements
        self.fields = tuple(pyclass.__slots__)  # x, y, z, w: as many as it has
        super().__init__(name=pyclass.__name__)

    @property
    def user_facing_object(self):
        """The class used in kernels (``cuda.float32x4``), as NVIDIA's ``VectorType`` names it."""
        return self.pyclass

    @property
    def attr_names(self):
        """The component names (``("x", "y", "z", "w")`` for a 4-vector)."""
        return self.fields

    @property
    def argument_members(self):
        """``(name, type)`` of each component: what a kernel argument of this type is made of
        (the runtime's argument packer passes them one by one)."""
        return tuple((f, self.base_type) for f in self.fields)


@register_model(VectorType)
class VectorModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [(f, fe_type.base_type) for f in fe_type.fields])


@functools.lru_cache(maxsize=None)
def numba_type_of(pyclass):
    """The ``VectorType`` of a vector class (``float32x4`` ...), made once per class."""
    return VectorType(pyclass)

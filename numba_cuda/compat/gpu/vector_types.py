"""``numba.cuda.vector_types.vector_types`` on the GPU target: the CUDA vector types by name, as
NVIDIA's numba-cuda has them (in the simulator the path is ``numba_cuda.simulator.vector_types``).

One entry per vector type under its ``<base>x<n>`` name (``"float32x4"``; the C names such as
``float4`` are in ``entry.user_facing_object.aliases``): the Numba type of the vector type's
values (usable in signatures and typing templates), with ``name``, ``num_elements``,
``base_type`` (the Numba type of the components), ``attr_names`` and ``user_facing_object`` (the
``cuda.float32x4`` class used in kernels); the simulator's entries are its classes, which have
the same attributes (``base_type`` a NumPy scalar type).
"""

from numba_cuda.lang.stubs import VECTOR_TYPES as _CLASSES
from numba_cuda.lang.vectortype_model import numba_type_of as _numba_type_of

vector_types = {name: _numba_type_of(cls) for name, cls in _CLASSES.items() if name == cls.__name__}

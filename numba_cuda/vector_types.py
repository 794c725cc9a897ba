"""``numba.cuda.vector_types.vector_types``: the CUDA vector types by name, as NVIDIA's
numba-cuda tabulates them (``numba.cuda.simulator.vector_types`` in the simulator).

One entry per vector type under its ``<base>x<n>`` name (``"float32x4"``; the C names such as
``float4`` are in ``entry.user_facing_object.aliases``): ``name``, ``num_elements``,
``base_type`` (the NumPy scalar type of the components) and ``user_facing_object`` (the
``cuda.float32x4`` class used in kernels).
"""

import numba_cuda

if numba_cuda.USE_SIMULATOR:
    from numba_cuda.simulator.vector_types import vector_types  # noqa: F401
else:
    from numba_cuda.lang.stubs import VECTOR_TYPES as _CLASSES
    from numba_cuda.vector_type_table import table

    vector_types = table(_CLASSES)

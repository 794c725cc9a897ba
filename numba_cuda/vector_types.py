"""``numba.cuda.vector_types.vector_types``: the CUDA vector types by name, as NVIDIA's
numba-cuda tabulates them (``numba.cuda.simulator.vector_types`` in the simulator).

One entry per vector type under its ``<base>x<n>`` name (``"float32x4"``; the C names such as
``float4`` are in ``entry.user_facing_object.aliases``): ``name``, ``num_elements``,
``base_type`` (the NumPy scalar type of the components) and ``user_facing_object`` (the
``cuda.float32x4`` class used in kernels).
"""

from collections import namedtuple

#: An entry of :data:`vector_types`.
VectorTypeEntry = namedtuple("VectorTypeEntry",
                             ["name", "num_elements", "base_type", "user_facing_object"])


def table(classes):
    """``{name: VectorTypeEntry}`` for a ``{public name: class}`` mapping (aliases skipped)."""
    return {name: VectorTypeEntry(name, cls.num_elements, cls.base_type, cls)
            for name, cls in classes.items() if name == cls.__name__}


def _classes():
    import numba_cuda

    if numba_cuda.USE_SIMULATOR:
        from numba_cuda.simulator.vectortypes import VECTOR_TYPES
    else:
        from numba_cuda.lang.stubs import VECTOR_TYPES
    return VECTOR_TYPES


vector_types = table(_classes())

"""The entries of ``numba.cuda.vector_types.vector_types`` (GPU target and simulator alike)."""

from collections import namedtuple

#: One vector type: its ``<base>x<n>`` name, component count, NumPy component type and class.
VectorTypeEntry = namedtuple("VectorTypeEntry",
                             ["name", "num_elements", "base_type", "user_facing_object"])


def table(classes):
    """``{name: VectorTypeEntry}`` for a ``{public name: class}`` mapping (aliases skipped)."""
    return {name: VectorTypeEntry(name, cls.num_elements, cls.base_type, cls)
            for name, cls in classes.items() if name == cls.__name__}

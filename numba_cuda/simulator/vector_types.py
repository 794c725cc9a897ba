"""``numba.cuda.simulator.vector_types.vector_types``: the simulator's vector types by name
(``<base>x<n>`` names, aliases left out), each the simulator's class with ``name``,
``num_elements``, ``base_type``, ``attr_names`` and ``user_facing_object`` (itself), as in
NVIDIA's simulator."""

from .vectortypes import VECTOR_TYPES

vector_types = {name: cls for name, cls in VECTOR_TYPES.items() if name == cls.__name__}

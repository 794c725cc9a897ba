"""``numba.cuda.simulator.vector_types`` (Numba's module path): the simulated vector types.

``vector_types`` maps each canonical name (``float32x4`` ...) to its class; the
classes live in :mod:`.vectortypes`.
"""

from .vectortypes import VECTOR_TYPES as _VECTOR_TYPES

vector_types = {name: cls for name, cls in _VECTOR_TYPES.items() if cls.__name__ == name}

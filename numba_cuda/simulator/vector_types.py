"""``numba.cuda.simulator.vector_types.vector_types``: the simulator's vector types by name
(entries as in :mod:`numba_cuda.vector_types`)."""

from ..vector_type_table import table
from .vectortypes import VECTOR_TYPES

vector_types = table(VECTOR_TYPES)

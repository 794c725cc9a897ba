"""``numba.cuda.simulator.vector_types.vector_types``: the simulator's vector types by name
(entries as in :mod:`numba_cuda.vector_types`)."""

from ..vector_types import table
from .vectortypes import VECTOR_TYPES

vector_types = table(VECTOR_TYPES)

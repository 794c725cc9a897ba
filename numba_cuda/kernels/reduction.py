"""``numba.cuda.kernels.reduction``: ``Reduce`` (``cuda.reduce``), where Numba kept it.

The class of the target in use: :mod:`numba_cuda.ufuncs.reduction` on the GPU, the simulator's
under ``NUMBA_ENABLE_CUDASIM=1``.
"""

import numba_cuda
from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.simulator.reduction" if numba_cuda.USE_SIMULATOR
             else "numba_cuda.ufuncs.reduction")

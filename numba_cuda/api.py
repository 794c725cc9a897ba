"""``numba.cuda.api``: the host API module of Numba and NVIDIA's numba-cuda (``to_device``,
``device_array``, ``stream``, ``detect`` ...).

The very module that serves them for the target in use: :mod:`numba_cuda.runtime.api` on the
GPU, :mod:`numba_cuda.simulator.api` under ``NUMBA_ENABLE_CUDASIM=1``.
"""

import numba_cuda
from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.simulator.api" if numba_cuda.USE_SIMULATOR
             else "numba_cuda.runtime.api")

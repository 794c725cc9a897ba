"""``numba.cuda.decorators``: where old Numba code imports ``jit`` and ``declare_device``.

The very module that defines them for the target in use: :mod:`numba_cuda.compiler.api` on the
GPU, :mod:`numba_cuda.simulator.api` under ``NUMBA_ENABLE_CUDASIM=1``.
"""

import numba_cuda
from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.simulator.api" if numba_cuda.USE_SIMULATOR
             else "numba_cuda.compiler.api")

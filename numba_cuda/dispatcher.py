"""``numba.cuda.dispatcher``: where old Numba code finds ``CUDADispatcher``.

The very module that defines the kernel dispatcher for the target in use (the compiler's on the
GPU, the simulator's under ``NUMBA_ENABLE_CUDASIM=1``).
"""

import numba_cuda
from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.simulator.dispatcher" if numba_cuda.USE_SIMULATOR
             else "numba_cuda.compiler.dispatcher")

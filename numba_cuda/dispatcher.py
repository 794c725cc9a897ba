"""``numba.cuda.dispatcher``: where old Numba code finds ``CUDADispatcher``.

On the GPU, the class of ``@cuda.jit`` kernels (:class:`numba_cuda.dispatch.dispatcher.
CUDADispatcher`); under ``NUMBA_ENABLE_CUDASIM=1``, the simulator's kernel class, so
``isinstance(kernel, CUDADispatcher)`` holds on both targets.
"""

import numba_cuda

if numba_cuda.USE_SIMULATOR:
    from numba_cuda.simulator.dispatcher import SimKernel as CUDADispatcher  # noqa: F401
else:
    from numba_cuda.dispatch.dispatcher import CUDADispatcher  # noqa: F401

"""``numba.cuda.dispatcher`` under the simulator: where old Numba code finds ``CUDADispatcher``.

The simulator's kernel class (:class:`numba_cuda.simulator.dispatcher.SimKernel`) under that
name, so ``isinstance(kernel, CUDADispatcher)`` holds as on the GPU target (where the path is
:mod:`numba_cuda.dispatch.dispatcher` itself).
"""

from numba_cuda.simulator.dispatcher import SimKernel as CUDADispatcher  # noqa: F401

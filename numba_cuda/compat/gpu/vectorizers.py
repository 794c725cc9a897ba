"""``numba.cuda.vectorizers``: where Numba's ``vectorize``/``guvectorize`` find the CUDA target.

``numba.np.ufunc`` imports ``CUDAVectorize`` and ``CUDAGUFuncVectorize`` from this module the
first time ``target="cuda"`` is used.  They live in :mod:`numba_cuda.ufuncs`; they run on the
GPU, or in the simulator under ``NUMBA_ENABLE_CUDASIM=1``.
"""

from numba_cuda.ufuncs.gufunc import CUDAGUFunc, CUDAGUFuncVectorize  # noqa: F401
from numba_cuda.ufuncs.vectorize import CUDAUFunc, CUDAVectorize  # noqa: F401

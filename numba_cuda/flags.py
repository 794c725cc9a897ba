"""``numba.cuda.flags``: compiler flags, where NVIDIA's numba-cuda keeps them: ``Flags`` (Numba's
``numba.core.compiler.Flags``) and ``CUDAFlags`` (the CUDA target's)."""

from numba.core.compiler import Flags  # noqa: F401

from numba_cuda.compiler.target import CUDAFlags  # noqa: F401

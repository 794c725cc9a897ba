"""``numba.cuda.descriptor`` (Numba's module path): the CUDA target descriptor, ``cuda_target``.

A thin alias of :mod:`numba_cuda.compiler.target`, where the descriptor lives.
"""

from numba_cuda.compiler.target import CUDATarget, cuda_target  # noqa: F401

CUDATargetDesc = CUDATarget

"""``numba.cuda.target``: the CUDA typing and target contexts, where old Numba code imports
them (``CUDATypingContext``, ``CUDATargetContext``, ``CUDACallConv``)."""

from numba_cuda.compiler.target_context import CUDACallConv, CUDATargetContext  # noqa: F401
from numba_cuda.compiler.typing_context import CUDATypingContext  # noqa: F401

"""``numba.cuda.descriptor``: the CUDA target descriptor (``cuda_target``, ``CUDATarget``),
where NVIDIA's numba-cuda keeps it; the very module :mod:`numba_cuda.compiler.target`."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.compiler.target")

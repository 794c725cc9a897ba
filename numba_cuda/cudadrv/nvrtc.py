"""``numba.cuda.cudadrv.nvrtc``: NVRTC (CUDA C++ to PTX/LTO-IR/cubin).

The path Numba and NVIDIA's numba-cuda use; the very module :mod:`numba_cuda.linking.nvrtc`
(``compile_source``, ``nvrtc_version`` ...).
"""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.linking.nvrtc")

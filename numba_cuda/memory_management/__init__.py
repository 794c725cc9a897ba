"""``numba.cuda.memory_management``: the device NRT's runtime side (NVIDIA's numba-cuda's path).

``rtsys`` reads and switches the allocation counters of the device NRT that kernels compiled
with ``NUMBA_CUDA_ENABLE_NRT=1`` use to create arrays; see :mod:`.nrt`.
"""

from .nrt import rtsys  # noqa: F401

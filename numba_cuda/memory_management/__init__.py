"""``numba.cuda.memory_management``: where NVIDIA's numba-cuda keeps its device NRT.

This package has no device-side NRT (Numba's reference-counted runtime): kernels that would
allocate (lists, dicts, new arrays inside a kernel) are refused when they are compiled.  The
path exists so code that reads the NRT's allocation counters keeps importing; see
:mod:`.nrt`.
"""

from .nrt import rtsys  # noqa: F401

"""The installed ``cuda.core``'s version, as flags (``numba.cuda._compat`` in NVIDIA's numba-cuda).

``CUDA_CORE_VERSION``: the release as a tuple of ints (``(1, 2, 2)``), ``None`` without
cuda-core; ``CUDA_CORE_GT_0_6`` (0.6 or newer: NVIDIA's spelling) and ``CUDA_CORE_GE_1_0``
are False then.  Read from the package metadata: cuda.core is not imported.  numba-cuda
itself needs no cuda-core: it recognises cuda.core's objects by their protocols.
"""

import re as _re
from importlib import metadata as _metadata


def release(text):
    """``"1.2.2"`` -> ``(1, 2, 2)``; ``"0.6.0rc1"`` -> ``(0, 6, 0)``."""
    return tuple(int(part) for part in _re.findall(r"\d+", _re.match(r"[\d.]*", text).group()))


def _installed():
    try:
        return release(_metadata.version("cuda-core"))
    except _metadata.PackageNotFoundError:
        return None


CUDA_CORE_VERSION = _installed()
CUDA_CORE_GT_0_6 = CUDA_CORE_VERSION is not None and CUDA_CORE_VERSION >= (0, 6)
CUDA_CORE_GE_1_0 = CUDA_CORE_VERSION is not None and CUDA_CORE_VERSION >= (1, 0)

"""``numba.cuda.cudadrv`` on the GPU target: the modules of Numba's package of that name.

Thin modules over the real ones in ``numba_cuda.runtime``, ``numba_cuda.toolkit``
and ``numba_cuda.compiler``: ``driver``, ``devicearray``, ``devices``, ``runtime``, ``libs``,
``nvvm``, ``error``; ``enums``, ``drvapi``, ``nvrtc`` and ``linkable_code`` are rows of their own
in the compat table (:data:`numba_cuda.compat.table.ROWS`).  Submodules load on first attribute
access (``cudadrv.libs.test()`` works after ``from numba.cuda import cudadrv``), through their
``numba_cuda.cudadrv.<name>`` path.
"""

import importlib as _importlib

_SUBMODULES = ("driver", "devicearray", "runtime", "libs", "nvvm", "error", "devices",
               "enums", "drvapi", "nvrtc", "linkable_code", "dummyarray")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"numba_cuda.cudadrv.{name}")
    raise AttributeError(f"module 'numba_cuda.cudadrv' has no attribute {name!r}")

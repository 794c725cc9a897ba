"""Compatibility modules for code written against Numba's ``numba.cuda.cudadrv``.

Thin modules over the real ones in ``numba_cuda.runtime``, ``numba_cuda.toolkit``
and ``numba_cuda.compiler``: ``driver``, ``devicearray``, ``runtime``, ``libs``,
``nvvm``, ``error``, ``enums``, ``drvapi``, ``nvrtc``, ``linkable_code``.  Submodules load on first attribute access
(``cudadrv.libs.test()`` works after ``from numba.cuda import cudadrv``).
"""

import importlib as _importlib

_SUBMODULES = ("driver", "devicearray", "runtime", "libs", "nvvm", "error", "devices",
               "enums", "drvapi", "nvrtc", "linkable_code")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

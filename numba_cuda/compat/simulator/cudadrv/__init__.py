"""``numba.cuda.cudadrv`` (and ``numba.cuda.simulator.cudadrv``) under the simulator: the
compatibility modules existing code imports.

``devicearray``, ``devices``, ``driver``, ``error``, ``libs``, ``nvvm``, ``runtime`` are the
simulator's; ``enums``, ``drvapi``, ``nvrtc``, ``linkable_code`` and ``dummyarray`` are rows of their own in the
compat table, the same modules as on the GPU target.
"""

import importlib as _importlib

# Submodules load on first attribute access, as in the real target's cudadrv (Numba's
# `numba -s` does `from numba.cuda import cudadrv; cudadrv.libs.test()`), through their
# numba_cuda.simulator.cudadrv.<name> path.
_SUBMODULES = ("devicearray", "devices", "driver", "error", "libs", "nvvm", "runtime",
               "enums", "drvapi", "nvrtc", "linkable_code", "dummyarray")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"numba_cuda.simulator.cudadrv.{name}")
    raise AttributeError(f"module 'numba_cuda.simulator.cudadrv' has no attribute {name!r}")

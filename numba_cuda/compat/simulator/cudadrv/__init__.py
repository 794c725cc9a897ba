"""``numba.cuda.cudadrv`` (and ``numba.cuda.simulator.cudadrv``) under the simulator: the
compatibility modules existing code imports."""

import importlib as _importlib

# Submodules load on first attribute access, as in the real target's cudadrv:
# Numba's `numba -s` does `from numba.cuda import cudadrv; cudadrv.libs.test()`.
_SUBMODULES = ("devicearray", "devices", "driver", "error", "libs", "nvvm", "runtime")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

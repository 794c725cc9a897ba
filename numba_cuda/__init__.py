"""numba-cuda: the CUDA target for Numba.

Importing this package is cheap: the public names (``cuda.jit``,
``cuda.to_device``, ``cuda.threadIdx`` ...) are resolved on first use, and
toolkit discovery, the driver and the compiler are only touched when a name
that needs them is used.  ``import numba.cuda`` loads this package through the
redirector (``_numba_cuda_redirector``).

``NUMBA_ENABLE_CUDASIM=1`` (read once, at import) swaps in the pure-Python
simulator for the whole public API.
"""

import importlib as _importlib
import os as _os
import sys as _sys

from ._version import __version__

#: What Numba's ``numba -s`` prints as the CUDA target implementation.
implementation = "numba-cuda"

#: NVIDIA's numba-cuda also runs without Numba and says so here; this package always has Numba.
HAS_NUMBA = True


def _env_flag(name, default="0"):
    return _os.environ.get(name, default).strip().lower() not in ("", "0", "false", "no", "off")


#: True when this process runs the simulator instead of the real GPU target.
USE_SIMULATOR = _env_flag("NUMBA_ENABLE_CUDASIM")
if USE_SIMULATOR:
    implementation = "numba-cuda (simulator)"
    # numba.cuda.cudadrv.* resolve to the simulator's modules (cheap: no imports).
    from .simulator import install_module_replacements as _install_sim_modules

    _install_sim_modules()
# numba.cuda.bf16 / numba.cuda.fp16 as modules (the namespaces cuda.bf16 / cuda.fp16 are)
from ._aliases import install_namespace_modules as _install_namespaces  # noqa: E402

_install_namespaces(USE_SIMULATOR)


def _export_table():
    return _importlib.import_module(__name__ + "._exports")


def _resolve(name):
    exports = _export_table()

    if USE_SIMULATOR:
        module = _importlib.import_module(exports.SIMULATOR_API)
        try:
            return getattr(module, name)
        except AttributeError:
            pass
    else:
        modname = exports.GPU.get(name)
        if modname is not None:
            return getattr(_importlib.import_module(modname), name)
    # Fall back to a submodule: cuda.random, cuda.cudadrv, cuda.testing ...
    try:
        return _importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module 'numba.cuda' has no attribute {name!r}")


_MISSING = set()  # names already found to be neither exports nor submodules


def __getattr__(name):
    if name.startswith("_") or name in _MISSING:
        raise AttributeError(f"module 'numba.cuda' has no attribute {name!r}")
    try:
        value = _resolve(name)
    except AttributeError:
        # Numba probes e.g. ``hasattr(cuda, "name")`` for every ``cuda.x(...)`` call it
        # compiles; do not search for a submodule again each time.
        _MISSING.add(name)
        raise
    globals()[name] = value
    return value


def __dir__():
    names = set(globals())
    names.update(_export_table().GPU)
    return sorted(names)


def _alias_as_numba_cuda():
    """Make ``numba.cuda`` this package even where no ``.pth`` ran (``python -S``,
    ``pip install --target``)."""
    try:
        import _numba_cuda_redirector as redirector
    except ImportError:
        redirector = None
    if redirector is not None:
        if redirector.enabled():
            redirector.install()
            redirector.alias_existing()
        return
    if not _env_flag("NUMBA_CUDA_REDIRECT", "1"):
        return
    # The redirector module ships beside this package; without it (a broken
    # install) alias what we can by hand.
    if "numba.cuda" not in _sys.modules:
        import numba

        _sys.modules["numba.cuda"] = numba.cuda = _sys.modules[__name__]


_alias_as_numba_cuda()

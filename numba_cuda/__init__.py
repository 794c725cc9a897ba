"""numba-cuda: the CUDA target for Numba.

Importing this package is cheap: the public names (``cuda.jit``,
``cuda.to_device``, ``cuda.threadIdx`` ...) are resolved on first use, and
toolkit discovery, the driver and the compiler are only touched when a name
that needs them is used.  ``import numba.cuda`` loads this package through the
redirector (``_numba_cuda_redirector``).

``NUMBA_ENABLE_CUDASIM=1`` (read once, at import) swaps in the pure-Python
simulator for the whole public API.  Importing refuses a Numba outside the
releases this package is tested against (``_TESTED_NUMBA``; ``NumbaVersionError``).
"""

import importlib as _importlib
import sys as _sys

from ._version import __version__
from .common import collection_pause as _collection_pause
from .common.env_flags import env_flag as _env_flag  # the one rule for on/off variables

#: What Numba's ``numba -s`` prints as the CUDA target implementation.
implementation = "numba-cuda"

#: NVIDIA's numba-cuda also runs without Numba and says so here; this package always has Numba.
HAS_NUMBA = True


#: The Numba releases this package is tested against, as (major, minor): at least the first, below
#: the second.  pyproject.toml and the recipe declare the same range (tests/packaging checks it);
#: the lowest-versions job tests the bottom, the normal job the top (scripts/run-tests).  The
#: compiler re-implements steps of Numba's lowering (statement and operator lowering, integer
#: powers) and imports private Numba names, so another Numba could compile wrong code silently.
_TESTED_NUMBA = ((0, 68), (0, 69))

#: Set to 1 to import with a Numba outside ``_TESTED_NUMBA`` (a warning instead of the error).
_ALLOW_UNTESTED_NUMBA = "NUMBA_CUDA_ALLOW_UNTESTED_NUMBA"


def _numba_version():
    """The installed Numba's version string, or None when there is no Numba to ask.

    Free when Numba is imported (``from numba import cuda`` imports it first); otherwise read
    without importing Numba: from the ``"version"`` line of its ``_version.py`` (versioneer's,
    in every release), else from the distribution's metadata (``importlib.metadata`` loads the
    ``email`` parser, ~20 ms, which toolkit discovery alone never needs)."""
    numba = _sys.modules.get("numba")
    version = getattr(numba, "__version__", None) if numba is not None else None
    if version:
        return version
    version = _numba_version_file()
    if version:
        return version
    from importlib import metadata

    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return None  # no Numba installed: importing it fails later with ModuleNotFoundError


def _numba_version_file():
    """The version in the installed Numba's ``_version.py``, or None (no Numba, another layout)."""
    from .common.package_versions import version_in_file

    return version_in_file("numba")


def _major_minor(version):
    """``"0.68.1"`` -> ``(0, 68)``, ``"0.69.0rc1"`` -> ``(0, 69)``; None when it does not start
    with two numbers (``"0+unknown"``).  (``packaging`` is not a dependency, and ``re`` not
    worth importing for this.)"""
    numbers = []
    for part in version.split(".")[:2]:
        digits = part[:len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            return None
        numbers.append(int(digits))
    return tuple(numbers) if len(numbers) == 2 else None


def _check_numba_version(version):
    """Refuse (or, with NUMBA_CUDA_ALLOW_UNTESTED_NUMBA=1, warn about) a Numba outside
    ``_TESTED_NUMBA``.  ``version`` is a version string such as ``"0.68.1"`` or None (no Numba)."""
    if version is None:
        return
    (low, below) = _TESTED_NUMBA
    release = _major_minor(version)
    if release is not None and low <= release < below:
        return
    tested = f">={low[0]}.{low[1]},<{below[0]}.{below[1]}"
    problem = (
        f"numba-cuda {__version__} is tested with Numba {tested}, and Numba {version} is installed. "
        "numba-cuda's compiler re-implements steps of Numba's lowering, so with another Numba "
        "release kernels could compile to wrong code without any error.")
    if _env_flag(_ALLOW_UNTESTED_NUMBA):
        import warnings

        warnings.warn(f"{problem} {_ALLOW_UNTESTED_NUMBA} is set: importing anyway.",
                      RuntimeWarning, stacklevel=3)
        return
    from .errors import NumbaVersionError

    raise NumbaVersionError(
        f'{problem} Install a tested Numba: pip install "numba{tested}" (conda: conda install '
        f'"numba {tested}"), or set {_ALLOW_UNTESTED_NUMBA}=1 to import anyway, with a warning.')


_check_numba_version(_numba_version())


#: True when this process runs the simulator instead of the real GPU target.
USE_SIMULATOR = _env_flag("NUMBA_ENABLE_CUDASIM", False)
if USE_SIMULATOR:
    implementation = "numba-cuda (simulator)"

# The old and peer module paths (numba.cuda.cudadrv.driver, numba.cuda.core.config ...): one
# finder serves the compat table, with the simulator's column under NUMBA_ENABLE_CUDASIM=1.
# Cheap: the table is data; nothing it names is imported until its path is.
from .compat import install as _install_compat  # noqa: E402

_install_compat(USE_SIMULATOR)

# numba.cuda.errors.normalize_kernel_dimensions (both peers'): the launches' check, from the
# common floor, which imports ``errors`` (so ``errors`` cannot import it)
from . import errors as _errors  # noqa: E402
from .common import launch_dims as _launch_dims  # noqa: E402

_errors.normalize_kernel_dimensions = _launch_dims.normalize_kernel_dimensions


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
    # The first ``cuda.x`` imports the layer behind it (``cuda.compile_ptx``: the compiler and
    # dispatch modules, ~100k long-lived objects): a collection then is a full one, ~10 ms
    # spent scanning what stays alive.  The collector is paused for the import, as for a
    # compile, and what the import made goes to the oldest generation unscanned.
    try:
        with _collection_pause.paused():
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
    if not _env_flag("NUMBA_CUDA_REDIRECT", True):
        return
    # The redirector module ships beside this package; without it (a broken
    # install) alias what we can by hand.
    if "numba.cuda" not in _sys.modules:
        import numba

        _sys.modules["numba.cuda"] = numba.cuda = _sys.modules[__name__]


_alias_as_numba_cuda()

if "numba.core.config" in _sys.modules:  # ``import numba.cuda``: Numba is loaded already
    # numba.core.config.CUDA_ENABLE_NRT / CUDA_NRT_STATS exist from the start, as with NVIDIA's
    # package (code reads and sets them before compiling anything).
    from .common.unsupported import install_nrt_settings as _install_nrt_settings

    _install_nrt_settings(_sys.modules["numba.core.config"])

"""Make ``numba.cuda`` (and every ``numba.cuda.X``) load ``numba_cuda``.

Imported at interpreter start by ``numba_cuda_redirector.pth``.  It installs a
meta-path finder that answers for the exact ``numba.cuda`` prefix by importing
the matching ``numba_cuda`` module and handing back *that same module
object*, so ``numba.cuda is numba_cuda`` and ``numba.cuda.X is
numba_cuda.X``: never two copies of one module.

Rules:

* ``NUMBA_CUDA_REDIRECT=0`` (or ``false``/``no``/``off``) turns the redirect
  off; Numba's built-in ``numba.cuda`` is then used.
* Nothing here may break ``import numba``: if ``numba_cuda`` fails to import,
  a warning says why and the import falls through to Numba's built-in target.
* Only names equal to ``numba.cuda`` or starting with ``numba.cuda.`` are
  redirected (``foo.numba.cuda`` and ``numba.cudax`` are not).

This module imports nothing heavy at start-up; ``numba_cuda`` itself is only
imported when ``numba.cuda`` is.
"""

import gc
import os
import sys

#: How many objects the collector's permanent generation held when Python started, before any
#: program code could ``gc.freeze()`` its own (CPython 3.12 starts with a few hundred there):
#: ``numba_cuda.common.collection_pause`` may hand those back to the collector, never a program's.
STARTUP_FREEZE_COUNT = gc.get_freeze_count()

SOURCE = "numba.cuda"
TARGET = "numba_cuda"
ENV_SWITCH = "NUMBA_CUDA_REDIRECT"


def enabled():
    """True unless ``NUMBA_CUDA_REDIRECT`` is set to a false value.

    The rule of ``numba_cuda.common.env_flags`` (not imported: this runs when Python starts):
    unset or empty means the default (on); ``0``/``false``/``no``/``off`` (any case) off."""
    value = os.environ.get(ENV_SWITCH, "").strip().lower()
    return value not in ("0", "false", "no", "off")


def _target_name(fullname):
    if fullname == SOURCE:
        return TARGET
    if fullname.startswith(SOURCE + "."):
        return TARGET + fullname[len(SOURCE):]
    return None


class _AliasLoader:
    """Loader whose module *is* an already-imported ``numba_cuda`` module.

    The import system stamps the alias spec (name ``numba.cuda``) onto the
    module it loads; :meth:`exec_module` puts the module's own spec back, so
    that ``importlib.reload(numba.cuda)`` (which reloads by ``__spec__.name``)
    re-executes ``numba_cuda`` through its real loader, and the alias entry in
    ``sys.modules`` stays where it is.
    """

    def __init__(self, module):
        self._module = module
        self._own_spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        if self._own_spec is not None and getattr(module, "__spec__", None) is not self._own_spec:
            try:
                module.__spec__ = self._own_spec
            except AttributeError:
                pass


class NumbaCudaRedirector:
    """Meta-path finder mapping ``numba.cuda[.X]`` onto ``numba_cuda[.X]``."""

    # Set when importing numba_cuda failed once: from then on the built-in is
    # used for the whole process, so the two targets are never mixed.
    failed = False

    def find_spec(self, fullname, path=None, target=None):
        target_name = _target_name(fullname)
        if target_name is None or self.failed:
            return None
        if fullname != SOURCE:
            # Submodules follow whatever numba.cuda turned out to be.
            parent = sys.modules.get(SOURCE)
            if parent is None or parent is not sys.modules.get(TARGET):
                return None
        import importlib
        import importlib.util

        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as exc:
            if fullname != SOURCE and exc.name == target_name:
                return None  # plain "No module named numba.cuda.X"
            return self._fail(fullname, exc)
        except Exception as exc:  # noqa: BLE001 - anything, never break numba
            if fullname == SOURCE:
                return self._fail(fullname, exc)
            raise
        # numba_cuda may have registered itself under ``fullname`` while it was
        # being imported (alias_existing).  Leave the entry to the import system:
        # if it is present, importlib re-executes the module's *own* spec and
        # creates a second copy of it.  Not during a reload (``target`` is the
        # module being reloaded): the import system needs the entry then.
        if target is None and sys.modules.get(fullname) is module:
            del sys.modules[fullname]
        spec = importlib.util.spec_from_loader(
            fullname, _AliasLoader(module), is_package=hasattr(module, "__path__")
        )
        return spec

    def _fail(self, fullname, exc):
        import warnings

        type(self).failed = True
        sys.modules.pop(TARGET, None)
        warnings.warn(
            f"numba-cuda could not be imported ({type(exc).__name__}: {exc}); "
            f"'{fullname}' falls back to Numba's built-in CUDA target. "
            f"Set {ENV_SWITCH}=0 to silence this by always using the built-in.",
            RuntimeWarning,
            stacklevel=2,
        )
        return None


def install():
    """Put the finder first on ``sys.meta_path`` (idempotent)."""
    for finder in sys.meta_path:
        if isinstance(finder, NumbaCudaRedirector) or type(finder).__name__ == "NumbaCudaRedirector":
            return finder
    finder = NumbaCudaRedirector()
    sys.meta_path.insert(0, finder)
    return finder


def alias_existing():
    """Register already-imported ``numba_cuda`` modules under ``numba.cuda``.

    Called by ``numba_cuda`` itself, for processes where the ``.pth`` did not
    run and ``numba_cuda`` was imported directly.
    """
    target = sys.modules.get(TARGET)
    numba = sys.modules.get("numba")
    if target is None or numba is None:
        return  # a later ``import numba.cuda`` goes through the finder
    current = sys.modules.get(SOURCE)
    if current is not None and current is not target:
        return  # the built-in was imported first; leave it alone
    for name, module in list(sys.modules.items()):
        if name == TARGET or name.startswith(TARGET + "."):
            sys.modules.setdefault(SOURCE + name[len(TARGET):], module)
    if getattr(numba, "cuda", None) is not target:
        try:
            numba.cuda = target
        except Exception:  # noqa: BLE001
            pass


def _main():
    try:
        if enabled():
            install()
    except Exception:  # noqa: BLE001 - a .pth must never break start-up
        pass


_main()

"""The compat yard: every import path kept for code written elsewhere, in one table.

Code written for Numba's built-in ``numba.cuda`` and for NVIDIA's numba-cuda imports modules by
paths this package does not lay out as they did (``numba.cuda.cudadrv.driver``,
``numba.cuda.core.config``, ``numba.cuda.stubs``, ``numba.cuda.dispatcher`` ...).  Each such
path is one row of :data:`.table.ROWS` (its module on the GPU target, and in the simulator), and
one meta-path finder (:class:`CompatFinder`, here) serves them all: importing a row's path
imports the row's target for the target in use and hands back *that module object*
(``numba.cuda.core.config is numba.core.config``), never a second copy with its own classes and
state.  The modules of compat code -- names arranged as an old module had them -- live in
:mod:`.gpu` and :mod:`.simulator`.

Nothing else in the package imports this package (an import-linter contract in
pyproject.toml): ``numba_cuda/__init__.py`` calls :func:`install` once, and the rest of the
package reaches an old path, where it must, by its name (``numba_cuda.cudadrv``) through the
finder.  Importing this package is cheap: the table is read on the first import of a
``numba_cuda`` submodule, and nothing it names is imported until its path is.
"""

import sys

_PREFIX = "numba_cuda."
_OWN = "numba_cuda.compat"

#: Rooms and face modules that hold no row (a test checks it against the table): some are
#: imported when the package is (``numba_cuda.common.env_flags``, ``numba_cuda.errors`` ...),
#: and the finder passes them by without reading the table, so importing the package reads it
#: not at all.
ROOMS_WITHOUT_ROWS = tuple(f"numba_cuda.{room}." for room in (
    "common", "compiler", "dispatch", "runtime", "toolkit", "lang", "linking", "caching",
    "memory_management", "ufuncs", "errors", "_version", "_exports", "types", "extending"))


class _SameModuleLoader:
    """Loader whose module is an already-imported module (the row's target).

    The import system stamps the alias spec onto the module it loads; :meth:`exec_module` puts
    the module's own spec back, so ``importlib.reload`` re-executes the module under its own
    name and ``__spec__.name`` keeps naming the real module.
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


class CompatFinder:
    """Answers the paths of the compat table with their targets' module objects."""

    def __init__(self, simulator):
        self.simulator = simulator
        self._target_of = None

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX) or fullname == _OWN or fullname.startswith(_OWN + "."):
            return None  # (the yard's own modules are never rows: the table loads through here)
        if (fullname + ".").startswith(ROOMS_WITHOUT_ROWS):
            return None
        if self._target_of is None:
            from . import table

            column = table.SIMULATOR if self.simulator else table.GPU
            self._target_of = lambda name: table.target_of(name, column)
        real_name = self._target_of(fullname)
        if real_name is None:
            return None
        import importlib
        import importlib.util

        if ":" in real_name:  # an object serving as the module (``numba.cuda.bf16``)
            from .table import resolve

            module = resolve(real_name)
            return importlib.util.spec_from_loader(
                fullname, _SameModuleLoader(module), is_package=hasattr(module, "__path__"))
        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if exc.name == real_name:
                return None  # "No module named numba_cuda.<path>", as for any missing module
            raise
        _add_names(real_name, module)
        return importlib.util.spec_from_loader(
            fullname, _SameModuleLoader(module), is_package=hasattr(module, "__path__"))


def _add_names(real_name, module):
    from .table import ADDED_NAMES

    added = ADDED_NAMES.get(real_name)
    if added is not None:
        import importlib

        holder = importlib.import_module(added[0])
        for name in added[1]:
            if not hasattr(module, name):
                setattr(module, name, getattr(holder, name))


def install(simulator):
    """Put the finder on ``sys.meta_path`` for the GPU target, or for the simulator when
    ``simulator`` is true.

    Idempotent: a finder of ours already there (``numba_cuda`` imported again, e.g. reloaded)
    is replaced, so exactly one serves the table.  It goes first: ahead of the path finder,
    which would otherwise load a target's files a second time under the alias name.
    """
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__qualname__ != "CompatFinder"
                        or getattr(type(f), "__module__", None) != __name__]
    finder = CompatFinder(simulator)
    sys.meta_path.insert(0, finder)
    return finder

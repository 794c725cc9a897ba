"""The one meta-path finder of the compat yard: it serves :data:`numba_cuda.compat.table.ROWS`.

``import numba_cuda.<old path>`` (``numba.cuda.<old path>`` through the redirector) imports the
row's target for the target in use and hands back *that module object*: ``numba.cuda.core.config
is numba.core.config``, never a second copy with its own classes and state.  Nothing is imported
until a path of a row is.
"""

import sys

from .table import GPU, SIMULATOR, target_of

_PREFIX = "numba_cuda."


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
        self.column = SIMULATOR if simulator else GPU

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        real_name = target_of(fullname, self.column)
        if real_name is None:
            return None
        import importlib
        import importlib.util

        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if exc.name == real_name:
                return None  # "No module named numba_cuda.<path>", as for any missing module
            raise
        return importlib.util.spec_from_loader(
            fullname, _SameModuleLoader(module), is_package=hasattr(module, "__path__"))


def install(simulator):
    """Put the finder on ``sys.meta_path`` for the GPU target or the simulator.

    Idempotent: a finder of ours already there (``numba_cuda`` imported again, e.g. reloaded)
    is replaced, so exactly one serves the table.  It goes first: ahead of the path finder,
    which would otherwise load a target's files a second time under the alias name.
    """
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__qualname__ != "CompatFinder"
                        or getattr(type(f), "__module__", None) != __name__]
    finder = CompatFinder(simulator)
    sys.meta_path.insert(0, finder)
    return finder

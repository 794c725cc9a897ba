"""One module object under two names: the import paths kept for code written elsewhere.

Code written against NVIDIA's numba-cuda imports Numba's own modules through
``numba.cuda`` (``numba.cuda.core.config``, ``numba.cuda.typing.templates``,
``numba.cuda.np.numpy_support`` ...: there they are copies of Numba's), and old
Numba code imports modules that moved (``numba.cuda.stubs``).  Each such path
is a module here that calls :func:`alias_module` or :func:`alias_package`, so
the path yields *the very module object* of the real one (never a copy, never
a second module with its own classes and state).
"""

import importlib
import importlib.abc
import importlib.util
import sys


def alias_module(name, target):
    """Make the module being imported as ``name`` be ``target`` (a module name).

    Call it from the alias module's body: ``alias_module(__name__, "numba.core.utils")``.
    """
    module = importlib.import_module(target)
    sys.modules[name] = module
    return module


class _SameModuleLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


class PackageAliasFinder(importlib.abc.MetaPathFinder):
    """Answers ``<alias>.X.Y`` with the already-importable ``<target>.X.Y`` module object."""

    def __init__(self, alias, target):
        self.alias = alias
        self.target = target

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(self.alias + "."):
            return None
        real_name = self.target + fullname[len(self.alias):]
        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if exc.name == real_name:
                return None  # "No module named <alias>.X", as for any missing module
            raise
        return importlib.util.spec_from_loader(
            fullname, _SameModuleLoader(module),
            is_package=hasattr(module, "__path__"))


def alias_package(name, target):
    """Make package ``name`` and every ``name.X...`` be ``target`` and ``target.X...``."""
    module = alias_module(name, target)
    if not any(isinstance(f, PackageAliasFinder) and f.alias == name for f in sys.meta_path):
        # Before the path finder, which would otherwise load target's files a second time
        # under the alias name (the aliased package's __path__ is target's folder).
        sys.meta_path.insert(0, PackageAliasFinder(name, target))
    return module


#: Modules that moved inside this package: the old name -> the module it is now.  Importing the
#: old name (code written against it, pickles that name its classes or functions) yields the
#: module itself, through :class:`MovedModuleFinder` (installed by ``numba_cuda/__init__.py``).
MOVED_MODULES = {
    "numba_cuda.args": "numba_cuda.common.args",
    "numba_cuda.array_layout": "numba_cuda.common.array_layout",
    "numba_cuda.cuda_array_interface": "numba_cuda.common.cuda_array_interface",
    "numba_cuda.emm": "numba_cuda.common.emm",
    "numba_cuda.emm_memory": "numba_cuda.common.emm_memory",
    "numba_cuda.error_record": "numba_cuda.common.error_record",
    "numba_cuda.launch_dims": "numba_cuda.common.launch_dims",
    "numba_cuda.pickling": "numba_cuda.common.pickling",
    "numba_cuda.unsupported": "numba_cuda.common.unsupported",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers each old name of :data:`MOVED_MODULES` with the module object of its new one."""

    def find_spec(self, fullname, path=None, target=None):
        real_name = MOVED_MODULES.get(fullname)
        if real_name is None:
            return None
        module = importlib.import_module(real_name)
        return importlib.util.spec_from_loader(fullname, _KeepSpecLoader(module))


class _KeepSpecLoader(_SameModuleLoader):
    """Hands out the module itself and leaves its ``__spec__`` its own (the import system sets
    the old name's spec on it before ``exec_module``)."""

    def __init__(self, module):
        super().__init__(module)
        self._spec = module.__spec__

    def exec_module(self, module):
        module.__spec__ = self._spec


def install_moved_modules():
    """Put one :class:`MovedModuleFinder` on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())

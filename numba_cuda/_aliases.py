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
        if not fullname.startswith(self.alias + ".") or fullname in PATHS:
            return None
        real_name = self.target + fullname[len(self.alias):]
        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if exc.name == real_name:
                return None  # "No module named <alias>.X", as for any missing module
            raise
        _add_names(real_name, module)
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


#: Old/peer module paths that have no file of their own: ``path -> the real module``.  The
#: same on both targets (under the simulator too: these modules are target-neutral).
PATHS = {
    # NVIDIA's gufunc scheduling classes (GUFuncEngine); ours are in the gufunc room.
    "numba_cuda.deviceufunc": "numba_cuda.ufuncs.schedule",
    # NVIDIA's cuda.core version flags (CUDA_CORE_GE_1_0 ...).
    "numba_cuda._compat": "numba_cuda.runtime.cuda_core_version",
    # Numba's/NVIDIA's toolkit-path queries (get_cuda_paths, _get_libdevice_path_decision ...).
    "numba_cuda.cuda_paths": "numba_cuda.toolkit.cuda_paths",
    # Numba's/NVIDIA's array-view model (Array.from_desc, extents), on both targets.
    "numba_cuda.cudadrv.dummyarray": "numba_cuda.runtime.array_views",
}

#: Names a module of an aliased package gains when it is reached through the alias
#: (``real module -> (module holding them, names)``): NVIDIA's numba-cuda keeps CUDA's call
#: conventions in its copy of ``numba.core.callconv``, so ``numba.cuda.core.callconv`` (the
#: very module ``numba.core.callconv``) also offers ``CUDACallConv`` and ``CUDACABICallConv``.
ADDED_NAMES = {
    "numba.core.callconv": ("numba_cuda.compiler.callconv", ("CUDACallConv", "CUDACABICallConv")),
}


def _add_names(real_name, module):
    added = ADDED_NAMES.get(real_name)
    if added is not None:
        holder = importlib.import_module(added[0])
        for name in added[1]:
            if not hasattr(module, name):
                setattr(module, name, getattr(holder, name))


class _OwnSpecLoader(_SameModuleLoader):
    """Hands back the real module and leaves it its own ``__spec__`` (the import system
    stamps the alias's onto it; ``importlib.reload`` reloads by ``__spec__.name``)."""

    def create_module(self, spec):
        self._own_spec = getattr(self._module, "__spec__", None)
        return self._module

    def exec_module(self, module):
        if self._own_spec is not None:
            module.__spec__ = self._own_spec


class PathAliasFinder(importlib.abc.MetaPathFinder):
    """Answers each path of :data:`PATHS` with the very module object of its real module."""

    def find_spec(self, fullname, path=None, target=None):
        real_name = PATHS.get(fullname)
        if real_name is None:
            return None
        module = importlib.import_module(real_name)
        return importlib.util.spec_from_loader(
            fullname, _OwnSpecLoader(module), is_package=hasattr(module, "__path__"))


def install_path_aliases():
    """Put :class:`PathAliasFinder` on ``sys.meta_path`` (once; cheap: imports nothing)."""
    if not any(isinstance(f, PathAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, PathAliasFinder())

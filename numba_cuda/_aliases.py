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


#: ``numba_cuda.<name>`` -> (module, attribute) of a namespace object importable as a module
#: (``import numba.cuda.bf16``), on the GPU target and in the simulator (attribute None: the
#: module itself).
NAMESPACE_MODULES = {
    "numba_cuda.bf16": (("numba_cuda.lang.stubs", "bf16"), ("numba_cuda.simulator.bfloat16", "bf16")),
    "numba_cuda.fp16": (("numba_cuda.lang.stubs", "fp16"), ("numba_cuda.simulator.kernelapi", "fp16")),
    "numba_cuda.fp8": (("numba_cuda.lang.fp8", None), ("numba_cuda.simulator.fp8", None)),
    # NVIDIA's private module of its bf16 bindings (its tests import nv_bfloat16 & co. from it)
    "numba_cuda._internal": (("numba_cuda._aliases", "_INTERNAL_PACKAGE"),) * 2,
    "numba_cuda._internal.cuda_bf16": (("numba_cuda.lang.bf16", "peer_internal_module"),
                                       ("numba_cuda.simulator.bfloat16", "peer_internal_module")),
}
_INTERNAL_PACKAGE = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("numba.cuda._internal", loader=None, is_package=True))


class NamespaceModuleFinder(importlib.abc.MetaPathFinder):
    """Answers ``import numba_cuda.bf16`` & co. with the namespace object ``cuda.bf16`` is."""

    def __init__(self, simulator):
        self.simulator = simulator

    def find_spec(self, fullname, path=None, target=None):
        where = NAMESPACE_MODULES.get(fullname)
        if where is None:
            return None
        modname, attr = where[1 if self.simulator else 0]
        module = importlib.import_module(modname)
        if attr is not None:
            module = getattr(module, attr)
            if callable(module):
                module = module()
        return importlib.util.spec_from_loader(fullname, _SameModuleLoader(module),
                                               is_package=hasattr(module, "__path__"))


def install_namespace_modules(simulator):
    if not any(isinstance(f, NamespaceModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, NamespaceModuleFinder(simulator))

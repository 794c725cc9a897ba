"""Import ``cuda.bindings.nvvm`` without importing cuda-pathfinder for nothing.

cuda-bindings' NVVM layer (``cuda.bindings._internal.nvvm``, CUDA 12 and 13 alike) imports
``load_nvidia_dynamic_lib`` from cuda-pathfinder when it is imported, but calls it only for a
function that ``dlsym(RTLD_DEFAULT, ...)`` does not find.  :func:`~.loading.load_library` has
loaded the libNVVM that discovery chose with ``RTLD_GLOBAL`` before that import, so every
function is found that way and the searcher is never called: importing cuda-pathfinder (~30
modules, 30-40 ms, most of a first compile's share of cuda-bindings) only binds a name.

:func:`import_nvvm` therefore imports the NVVM layer while a stand-in module holds
``cuda.pathfinder``'s place in ``sys.modules``.  Its ``load_nvidia_dynamic_lib``, and any
other name asked of it, imports the real cuda-pathfinder and answers from it, so a libNVVM
the bindings must look up themselves (another copy already loaded without ``RTLD_GLOBAL``,
Windows, which has no ``RTLD_DEFAULT``) is found exactly as before.  The stand-in leaves
``sys.modules`` as soon as the import is done: a later ``import cuda.pathfinder`` gets the
real package.  Nothing is deferred when cuda-pathfinder is already imported, or with
``NUMBA_CUDA_DEFER_PATHFINDER=0``.
"""

import importlib
import os
import sys
import types

PATHFINDER = "cuda.pathfinder"

#: Set on the stand-in, to tell it from the real package.
STAND_IN_MARK = "_numba_cuda_stand_in"


def _real_pathfinder():
    """The real cuda-pathfinder, imported now if it is not yet (the stand-in, if still in
    ``sys.modules``, leaves it first: the import would find it there)."""
    current = sys.modules.get(PATHFINDER)
    if current is not None and getattr(current, STAND_IN_MARK, False):
        if sys.modules.get(PATHFINDER) is current:
            sys.modules.pop(PATHFINDER, None)
    return importlib.import_module(PATHFINDER)


def load_nvidia_dynamic_lib(libname):
    """What the stand-in gives the bindings: cuda-pathfinder's own search, imported when the
    bindings need it."""
    return _real_pathfinder().load_nvidia_dynamic_lib(libname)


def _stand_in_attribute(name):
    # the module's __getattr__ (PEP 562): a name the bindings of another version might import
    if name.startswith("__"):  # hasattr(module, "__file__") and the like: no import for those
        raise AttributeError(name)
    return getattr(_real_pathfinder(), name)


def _stand_in():
    module = types.ModuleType(PATHFINDER, "numba-cuda's stand-in for cuda.pathfinder while "
                                          "cuda.bindings.nvvm is imported (see "
                                          "numba_cuda.toolkit.nvvm_bindings)")
    module.load_nvidia_dynamic_lib = load_nvidia_dynamic_lib
    module.__getattr__ = _stand_in_attribute
    setattr(module, STAND_IN_MARK, True)
    return module


def deferring():
    """True unless ``NUMBA_CUDA_DEFER_PATHFINDER`` is ``0`` (or ``false``, ``no``, ``off``)."""
    value = os.environ.get("NUMBA_CUDA_DEFER_PATHFINDER", "").strip().lower()
    return value not in ("0", "false", "no", "off")


def import_nvvm():
    """``cuda.bindings.nvvm``, imported (once) with cuda-pathfinder's import deferred until the
    bindings call it.  Call it after ``load_library("nvvm")`` has loaded libNVVM."""
    module = sys.modules.get("cuda.bindings.nvvm")
    if module is not None:
        return module
    if PATHFINDER in sys.modules or not deferring():
        from cuda.bindings import nvvm

        return nvvm
    stand_in = _stand_in()
    sys.modules[PATHFINDER] = stand_in
    try:
        from cuda.bindings import nvvm
    finally:
        if sys.modules.get(PATHFINDER) is stand_in:
            sys.modules.pop(PATHFINDER, None)
    return nvvm

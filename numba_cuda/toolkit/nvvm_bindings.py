"""Import ``cuda.bindings.nvvm`` without importing cuda-pathfinder for nothing.

cuda-bindings' NVVM layer (``cuda.bindings._internal.nvvm``, CUDA 12 and 13 alike) imports
``load_nvidia_dynamic_lib`` from cuda-pathfinder when it is imported, but calls it only for a
function that ``dlsym(RTLD_DEFAULT, ...)`` does not find.  :func:`~.loading.load_library` has
loaded the libNVVM that discovery chose with ``RTLD_GLOBAL`` before that import, so every
function is found that way and the searcher is never called: importing cuda-pathfinder (~30
modules, 30-40 ms, most of a first compile's share of cuda-bindings) only binds a name.

:func:`import_nvvm` therefore imports the NVVM layer while a stand-in module holds
``cuda.pathfinder``'s place in ``sys.modules``.  Its ``load_nvidia_dynamic_lib`` answers for
the libNVVM ``load_library`` loaded with that library's handle (the bindings ask when they
look up a function it does not export: CUDA 12's libNVVM and the newer cuda-bindings 12.9
releases, which look up ``nvvmLLVMVersion``); for anything else, and for any other name asked
of the stand-in, it imports the real cuda-pathfinder and answers from it, so a libNVVM the
bindings must find themselves (another copy already loaded without ``RTLD_GLOBAL``, which
``load_library`` adopts without a handle of its own) is found exactly as before.  The stand-in
leaves ``sys.modules`` as soon as the import is done: a later ``import cuda.pathfinder`` gets
the real package.  Nothing is deferred when cuda-pathfinder is already imported, or with
``NUMBA_CUDA_DEFER_PATHFINDER=0``.
"""

import contextlib
import importlib
import sys
import threading
import types

from ..common.env_flags import env_flag

PATHFINDER = "cuda.pathfinder"

#: Set on the stand-in, to tell it from the real package.
STAND_IN_MARK = "_numba_cuda_stand_in"


def _leave(stand_in):
    """Take ``stand_in`` out of ``sys.modules`` if it still holds cuda.pathfinder's place."""
    if sys.modules.get(PATHFINDER) is stand_in:
        sys.modules.pop(PATHFINDER, None)


def _real_pathfinder():
    """The real cuda-pathfinder, imported now if it is not yet (the stand-in, if still in
    ``sys.modules``, leaves it first: the import would find it there)."""
    current = sys.modules.get(PATHFINDER)
    if getattr(current, STAND_IN_MARK, False):
        _leave(current)
    return importlib.import_module(PATHFINDER)


#: The libraries the stand-in's searcher answered from ``load_library``'s own handle, in order.
answered = []

#: ``{name: (path, handle)}``: what :func:`import_nvvm` was told ``load_library`` loaded.
_loaded_by_us = {}


class LoadedLibrary:
    """The searcher's answer (cuda-pathfinder's ``LoadedDL``) for a library ``load_library``
    loaded: its path and the handle the bindings read (``_handle_uint``).  Any other field is
    cuda-pathfinder's own answer for the library, asked for then."""

    def __init__(self, libname, path, handle):
        self._libname = libname
        self.abs_path = path
        self._handle_uint = handle

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real_pathfinder().load_nvidia_dynamic_lib(self._libname), name)

    def __repr__(self):
        return f"LoadedLibrary({self._libname!r}, {self.abs_path!r}, handle={self._handle_uint:#x})"


def load_nvidia_dynamic_lib(libname):
    """What the stand-in gives the bindings.  For a library that ``load_library`` loaded, its
    handle: the bindings ask only for a function ``dlsym(RTLD_DEFAULT)`` did not find, which
    is a function that library does not have (CUDA 12's libNVVM lacks ``nvvmLLVMVersion``, which
    the newer cuda-bindings 12.9 releases look up), and pathfinder would find the same library
    (it is loaded).  Otherwise cuda-pathfinder's own search, imported now."""
    got = _loaded_by_us.get(libname)
    if got is not None:
        answered.append(libname)
        return LoadedLibrary(libname, *got)
    return _real_pathfinder().load_nvidia_dynamic_lib(libname)


def _stand_in():
    """A module for ``cuda.pathfinder``'s place in ``sys.modules`` while this thread imports the
    bindings' NVVM layer: ``load_nvidia_dynamic_lib`` (above), and for any other name the real
    package's, imported then (a name the bindings of another version import; ``__version__``
    ... if another thread imports cuda.pathfinder meanwhile).  It is not a package for this
    thread (no ``__path__``: the import of the layer asks, to look for submodules named in its
    ``from cuda.pathfinder import ...``); for another thread ``__path__`` is the real package's,
    so that a submodule import meanwhile works."""
    importer = threading.get_ident()

    def __getattr__(name):  # PEP 562: only names the module lacks
        if name == "__path__" and threading.get_ident() == importer:
            raise AttributeError(name)
        return getattr(_real_pathfinder(), name)

    module = types.ModuleType(PATHFINDER, "numba-cuda's stand-in for cuda.pathfinder while "
                                          "cuda.bindings.nvvm is imported (see "
                                          "numba_cuda.toolkit.nvvm_bindings)")
    module.load_nvidia_dynamic_lib = load_nvidia_dynamic_lib
    module.__getattr__ = __getattr__
    setattr(module, STAND_IN_MARK, True)
    return module


def deferring():
    """``NUMBA_CUDA_DEFER_PATHFINDER``, on by default (``common.env_flags``' rule)."""
    return env_flag("NUMBA_CUDA_DEFER_PATHFINDER", default=True)


@contextlib.contextmanager
def pathfinder_deferred():
    """While the block runs, the stand-in holds ``cuda.pathfinder``'s place in ``sys.modules``
    (and leaves it afterwards), unless cuda-pathfinder is already imported or
    :func:`deferring` is off.  Yields whether it does."""
    if PATHFINDER in sys.modules or not deferring():
        yield False
        return
    stand_in = _stand_in()
    sys.modules[PATHFINDER] = stand_in
    try:
        yield True
    finally:
        _leave(stand_in)


def import_nvvm(loaded=None):
    """``cuda.bindings.nvvm``, imported (once) with cuda-pathfinder's import deferred until the
    bindings call it.  ``loaded``: ``(path, handle)`` of the libNVVM ``load_library`` loaded
    (``loading.loaded_handle("nvvm")``), None if it adopted another package's copy; the
    stand-in's searcher answers with it."""
    if loaded is not None:
        _loaded_by_us["nvvm"] = loaded
    else:
        _loaded_by_us.pop("nvvm", None)
    module = sys.modules.get("cuda.bindings.nvvm")
    if module is not None:
        return module
    with pathfinder_deferred():
        from cuda.bindings import nvvm
    return nvvm

"""Load the chosen toolkit libraries so that cuda-bindings uses exactly them.

cuda-bindings finds NVVM, NVRTC and nvJitLink through cuda-pathfinder, whose
first step is "is a library with this soname already loaded in the
process?".  Loading the discovered file by absolute path (``RTLD_GLOBAL``)
before the bindings' first call therefore pins the bindings to it.  After
loading, the library's own version call is checked against the toolkit's
CUDA major.  (cuda-bindings' NVVM layer then finds every function with
``dlsym(RTLD_DEFAULT, ...)``: ``nvvm_bindings`` imports it without cuda-pathfinder.)
"""

import ctypes
import os
import re
import sys
import threading
import warnings

from numba_cuda.errors import ToolkitError

from .discovery import ToolkitWarning, fix_command, _fix_major, current_environment
from .layouts import DESCRIPTIONS

LOADABLE = ("nvvm", "nvrtc", "cudart", "nvjitlink")

#: File-name families per library, to spot other copies in /proc/self/maps.
_FAMILY = {
    "nvvm": re.compile(r"libnvvm\.so"),
    "nvrtc": re.compile(r"libnvrtc\.so"),
    "cudart": re.compile(r"libcudart\.so"),
    "nvjitlink": re.compile(r"libnvJitLink\.so"),
}

#: Text every file name of a family contains (skips parsing the map when it is absent).
_FAMILY_TEXT = {"nvvm": "libnvvm", "nvrtc": "libnvrtc", "cudart": "libcudart",
                "nvjitlink": "libnvJitLink"}

_lock = threading.RLock()
_loaded = {}  # name -> (path, handle)


def mapped_files(pattern=None, contains=None):
    """Absolute paths of the files mapped into this process (Linux), optionally filtered by
    ``pattern`` (a regex searched in the file name); ``contains`` is text every wanted name
    contains, which makes the common "no such file" answer cheap (the map of a process with
    Numba loaded has hundreds of lines)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    if contains is not None and contains not in text:
        return []
    out = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            path = parts[5].replace(" (deleted)", "")
            if (pattern is None or pattern.search(os.path.basename(path))) and path not in out:
                out.append(path)
    return out


def _real(path):
    return os.path.normcase(os.path.realpath(path))


def _fail(name, text, cause=None, damaged=None):
    """Raise the ToolkitError for ``name``; ``damaged``: the component whose file is unusable
    (its fix reinstalls the package that holds it)."""
    from . import get_toolkit
    from .discovery import reinstall_command

    tk = get_toolkit()
    if damaged is not None:
        fix = reinstall_command(damaged)
    else:
        fix = fix_command(tk.environment or "venv",
                          _fix_major(tk.cuda_major, current_environment()), name)
    exc = ToolkitError(f"{text}\nFix: {fix}\nRun `numba-cuda sysinfo` for the full report.")
    exc.component = name
    exc.fix = fix
    if cause is not None:
        raise exc.with_cause(cause) from None
    raise exc


def _other_copies(name, path):
    """Files of the same library family already mapped, other than ``path``."""
    if not sys.platform.startswith("linux"):
        return []
    mine = _real(path)
    return [p for p in mapped_files(_FAMILY[name], _FAMILY_TEXT[name]) if _real(p) != mine
            and "builtins" not in os.path.basename(p) and ".alt." not in os.path.basename(p)]


def load_library(name):
    """dlopen the chosen ``name`` library by absolute path; return its path.

    ``name`` is one of ``"nvvm"``, ``"nvrtc"``, ``"nvjitlink"``, ``"cudart"``.
    Raises :class:`numba_cuda.errors.ToolkitError` when it is missing, fails
    to load, or reports a CUDA major different from the toolkit's.
    """
    if name not in LOADABLE:
        raise ValueError(f"load_library() loads {', '.join(LOADABLE)}, not {name!r}")
    with _lock:
        from . import get_toolkit

        tk = get_toolkit()
        comp = tk.require(name)
        path = comp.path
        if name in _loaded and _loaded[name][0] == path:
            return path

        before = _other_copies(name, path)
        if before:
            return _adopt_existing(tk, comp, before[0])

        folder = os.path.dirname(path)
        if sys.platform.startswith("win"):
            try:
                os.add_dll_directory(folder)
            except (AttributeError, OSError):
                pass
            mode = 0
        else:
            mode = os.RTLD_GLOBAL | getattr(os, "RTLD_NOW", 2)
        # a damaged file kills the process when loaded (SIGBUS), a stranger loads but is not
        # the library: read it first (cheap, cached)
        from .validation import library_problem

        problem = library_problem(name, path)
        if problem is not None:
            _fail(name, f"{DESCRIPTIONS[name]} at {path} (from {comp.source}) {problem}; it was "
                        "not loaded. Reinstall the package that provides it.", damaged=comp)
        if name == "nvrtc":
            _preload_nvrtc_builtins(folder, mode)
        try:
            handle = ctypes.CDLL(path, mode=mode)
        except OSError as exc:
            _fail(name, f"{DESCRIPTIONS[name]} at {path} (from {comp.source}) could not be loaded: "
                        f"{exc}", exc)
        _loaded[name] = (path, handle)
        _check_loaded_version(tk, comp)
        return path


def loaded_handle(name):
    """``(path, handle)`` of ``name`` if :func:`load_library` loaded it itself (``handle``: the
    ``dlopen`` handle as an int); None if it did not, or adopted a copy another package
    loaded.  (No lock: the bindings call it holding their own, which a thread in
    load_library, holding this module's, may be waiting for.)"""
    entry = _loaded.get(name)
    if entry is None or entry[1] is None:
        return None
    return entry[0], int(entry[1]._handle)


def _preload_nvrtc_builtins(folder, mode):
    """Load NVRTC's builtins library from the same folder, so that NVRTC cannot
    pick another copy from the loader's search path."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for n in sorted(names):
        # libnvrtc-builtins.so.13.5 (Linux), nvrtc-builtins64_130.dll (Windows)
        if re.match(r"(lib)?nvrtc-builtins(64_\d+)?(\.so(\.[\d.]+)?|\.dll)\Z", n):
            path = os.path.join(folder, n)
            from .validation import library_problem

            problem = library_problem("nvrtc-builtins", path)
            if problem is not None:  # NVRTC would load it anyway, and crash
                _fail("nvrtc", f"NVRTC's builtins library at {path} {problem}; it was not loaded. "
                               "Reinstall the package that provides NVRTC.")
            try:
                ctypes.CDLL(path, mode=mode)
            except OSError:
                pass  # NVRTC itself reports a missing builtins library clearly
            return


def _adopt_existing(tk, comp, existing):
    """Another copy of the library is already in the process: the bindings will
    use that one.  Accept it (and report it) when its CUDA major matches."""
    from .layouts import major_from_name

    name = comp.name
    ex_major = major_from_name(name, os.path.basename(existing), "linux-64")
    if name != "nvvm" and ex_major is not None and tk.cuda_major and ex_major != tk.cuda_major:
        _fail(name, f"{DESCRIPTIONS[name]} CUDA {ex_major} is already loaded in this process from "
                    f"{existing} (by another package), but the toolkit numba-cuda chose is CUDA "
                    f"{tk.cuda_major} ({comp.path}); the two cannot be mixed. Use numba-cuda before "
                    "importing the package that loaded it, or install the same CUDA major for both.")
    warnings.warn(
        f"{DESCRIPTIONS[name]} was already loaded from {existing} by another package before "
        f"numba-cuda could load {comp.path} ({comp.source}); the already-loaded copy is used.",
        ToolkitWarning, stacklevel=3)
    comp.tried.append((f"{comp.source} {comp.path}", f"not used: {existing} was already loaded"))
    comp.path = existing
    comp.source = "system" if comp.source is None else comp.source
    comp.version_from = "already loaded in the process"
    _loaded[name] = (existing, None)
    _check_loaded_version(tk, comp)
    return existing


def _check_loaded_version(tk, comp):
    """Ask the loaded library for its version; refuse a CUDA-major mismatch."""
    name = comp.name
    try:
        if name == "nvrtc":
            from cuda.bindings import nvrtc

            res, major, minor = nvrtc.nvrtcVersion()
            if int(res) != 0:
                raise RuntimeError(f"nvrtcVersion returned {res!r}")
            comp.loaded_version = f"{major}.{minor}"
        elif name == "nvjitlink":
            from cuda.bindings import nvjitlink

            major, minor = nvjitlink.version()
            comp.loaded_version = f"{major}.{minor}"
        elif name == "nvvm":
            from .nvvm_bindings import import_nvvm

            nvvm = import_nvvm(loaded_handle("nvvm"))
            major, minor = nvvm.version()
            ir = nvvm.ir_version()
            comp.loaded_version = f"NVVM {major}.{minor} (IR {ir[0]}.{ir[1]})"
            return
        else:
            return
    except Exception as exc:  # noqa: BLE001 - never leak a binding's traceback
        _loaded.pop(name, None)
        _fail(name, f"{DESCRIPTIONS[name]} at {comp.path} was loaded, but cuda-bindings could not "
                    f"use it: {type(exc).__name__}: {exc}", exc)
    if tk.cuda_major and major != tk.cuda_major:
        _fail(name, f"{DESCRIPTIONS[name]} at {comp.path} reports CUDA {major}.{minor}, but the "
                    f"toolkit is CUDA {tk.cuda_major} (libNVVM: {tk.components['nvvm'].path}); "
                    "CUDA majors cannot be mixed.")

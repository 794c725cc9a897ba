"""What changes the code compiled for a function besides the text of its own source file.

Numba freezes the values a function reads from outside itself as constants of the compiled code:
the contents of its closure cells and the globals it names (``N = 4``, a NumPy array, an Enum
member).  Two functions made by one factory (``make(1.0)``, ``make(2.0)``) have the same source
file, qualified name and line, yet compile to different code; so does a function whose module
global was computed at import (``N = int(os.environ["N"])``) or assigned by another module.  The
device functions a kernel calls are compiled into it, and may live in another file.

:func:`code_fingerprint` digests all of that:

* the function's bytecode and constants (nested code objects included), as Numba's cache does;
* the contents of its closure cells;
* the value of every global it names (``co_names`` of its code and of the code nested in it),
  and of the attributes it names of the user's module globals (``consts.N``; not of library
  modules such as ``math`` or ``numba.cuda``);
* for values that are the user's functions or dispatchers (device functions,
  ``register_jitable`` helpers): the same, recursively, plus the digest of their source file
  and their options.  Functions of libraries (the standard library, site-packages, Numba,
  numba-cuda) called by the function contribute their names and their files' digests only.

Values are digested by content where they are data (numbers, strings, tuples, NumPy arrays and
scalars, dtypes, Enum members, Numba types) and by name where they are code-independent
objects (modules, classes, builtins).  Anything else contributes its type's name only.
"""

import enum
import functools
import hashlib
import os
import sys
import sysconfig
import types as pytypes

#: How deep module attributes are followed (``mod.sub.CONST``).
_MODULE_DEPTH = 2


@functools.lru_cache(maxsize=256)
def _file_digest(path, mtime, size):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def source_file_digest(path):
    """SHA-256 of the file at ``path`` (memoised on its mtime and size), or None if unreadable."""
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return _file_digest(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=1)
def _library_roots():
    roots = set()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(name)
        if path:
            roots.add(os.path.abspath(path))
    import numba

    from .. import __file__ as ours

    for path in (os.path.dirname(ours), os.path.dirname(numba.__file__)):
        roots.add(os.path.abspath(path))
    return tuple(sorted(roots))


@functools.lru_cache(maxsize=1024)
def is_library_file(filename):
    """Whether ``filename`` belongs to an installed library (the standard library, site-packages,
    Numba, numba-cuda): code whose changes come with a version change, not a user edit."""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return any(path.startswith(root + os.sep) for root in _library_roots())


def _is_library_module(module):
    filename = getattr(module, "__file__", None)
    # No file: a builtin/frozen module (sys, math) -- a library; a namespace object of the user's
    # making (types.ModuleType("cfg")) has no file either, but a __spec__ of None.
    if filename is None:
        return getattr(module, "__spec__", None) is not None or module.__name__ in sys.builtin_module_names
    return is_library_file(filename)


def _names(code):
    """Every name ``code`` and the code objects nested in it look up (globals and attributes)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _names(const)
    return names


class _Digest:
    def __init__(self):
        self._hash = hashlib.sha256()
        self._functions = set()  # code objects already digested (recursion, shared helpers)
        self._containers = set()  # ids of the containers being digested (a list holding itself)

    def feed(self, *parts):
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
            self._hash.update(len(data).to_bytes(8, "little"))
            self._hash.update(data)

    def hexdigest(self):
        return self._hash.hexdigest()

    # ---- code ------------------------------------------------------------------------
    def code(self, code):
        self.feed("code", code.co_name, code.co_code, code.co_argcount, code.co_kwonlyargcount,
                  code.co_flags, repr(code.co_names), repr(code.co_varnames),
                  repr(code.co_freevars))
        for const in code.co_consts:
            if isinstance(const, pytypes.CodeType):
                self.code(const)
            else:
                self.value(const)

    def function(self, func, options=None, root=False):
        code = func.__code__
        if not root and is_library_file(code.co_filename):
            # Library code (numba-cuda's own device functions, NumPy helpers ...): its name and
            # its file's digest.  Its globals are the library's state (lazily filled tables...),
            # not constants of the user's code.
            self.feed("library-function", getattr(func, "__module__", ""),
                      getattr(func, "__qualname__", code.co_name), repr(options),
                      source_file_digest(code.co_filename))
            return
        if code in self._functions:
            self.feed("seen", code.co_filename, code.co_firstlineno, code.co_name)
            return
        self._functions.add(code)
        self.feed("function", getattr(func, "__qualname__", code.co_name), code.co_filename,
                  code.co_firstlineno, source_file_digest(code.co_filename))
        if options is not None:
            self.feed("options", repr(options))
        self.code(code)
        self.value(func.__defaults__)
        for cell in func.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later in the enclosing scope)
                self.feed("empty-cell")
                continue
            self.value(contents)
        self.globals(func, code)

    def globals(self, func, code):
        namespace = getattr(func, "__globals__", None) or {}
        names = sorted(_names(code))
        for name in names:
            if name not in namespace:
                continue  # an attribute name, a builtin, or a global not (yet) defined
            value = namespace[name]
            self.feed("global", name)
            self.value(value)
            if isinstance(value, pytypes.ModuleType):
                self.module_attributes(value, names, _MODULE_DEPTH, set())

    def module_attributes(self, module, names, depth, seen):
        # Library modules are skipped: their attributes are no user constants, and lazy modules
        # (numba_cuda's own) grow attributes as names are first used.
        if depth <= 0 or id(module) in seen or _is_library_module(module):
            return
        seen.add(id(module))
        # vars(), not getattr: never trigger a lazy module __getattr__ (imports, side effects).
        attributes = vars(module)
        for name in names:
            if name in attributes:
                value = attributes[name]
                self.feed("attribute", module.__name__, name)
                self.value(value)
                if isinstance(value, pytypes.ModuleType):
                    self.module_attributes(value, names, depth - 1, seen)

    # ---- values ----------------------------------------------------------------------
    def value(self, v):
        try:
            self._value(v)
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - a value we cannot read (a failing __repr__ ...)
            # Its identity: never shared with another process's entry (a miss, never wrong code).
            self.feed("unreadable", type(v).__module__, type(v).__qualname__, id(v), os.getpid())

    def _value(self, v):
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
            self.feed(type(v).__name__, repr(v))
        elif isinstance(v, (tuple, list, frozenset, set, dict)):
            if id(v) in self._containers:
                self.feed("cycle")
                return
            self._containers.add(id(v))
            try:
                if isinstance(v, dict):
                    self.feed("dict", len(v))
                    for key, item in list(v.items()):
                        self.value(key)
                        self.value(item)
                else:
                    items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else list(v)
                    self.feed(type(v).__name__, len(items))
                    for item in items:
                        self.value(item)
            finally:
                self._containers.discard(id(v))
        elif isinstance(v, enum.Enum):
            self.feed("enum", type(v).__module__, type(v).__qualname__, v.name)
            self.value(v.value)
        elif isinstance(v, pytypes.ModuleType):
            self.feed("module", v.__name__)
        elif isinstance(v, type):
            self.feed("class", v.__module__, v.__qualname__)
        elif isinstance(v, pytypes.FunctionType):
            self.function(v)
        elif _is_dispatcher(v):
            self.function(v.py_func, options=_dispatcher_options(v))
        elif _is_numpy_data(v):
            self._numpy(v)
        elif _is_numba_type(v):
            self.feed("numba-type", type(v).__qualname__, str(v))
        else:
            kind = type(v)
            self.feed("object", kind.__module__, kind.__qualname__, getattr(v, "__qualname__", ""))

    def _numpy(self, v):
        import numpy as np

        if isinstance(v, np.dtype):
            self.feed("dtype", v.str, repr(v.descr) if v.fields else "")
            return
        arr = np.ascontiguousarray(v)
        dtype = arr.dtype
        self.feed("ndarray" if isinstance(v, np.ndarray) else "npscalar", dtype.str,
                  repr(dtype.descr) if dtype.fields else "", repr(arr.shape))
        if dtype.hasobject:
            for item in arr.ravel().tolist():
                self.value(item)
        else:
            self.feed(hashlib.sha256(arr.tobytes()).digest())


def _is_dispatcher(v):
    """A Numba dispatcher (ours, Numba's CPU one): an object holding the Python function."""
    try:
        return isinstance(vars(v).get("py_func"), pytypes.FunctionType)
    except TypeError:  # no __dict__
        return False


def _dispatcher_options(v):
    for attr in ("options", "targetoptions"):
        opts = getattr(v, attr, None)
        if opts is not None:
            return opts
    return None


def _is_numpy_data(v):
    np = sys.modules.get("numpy")  # a value can only be NumPy data if NumPy is imported
    return np is not None and isinstance(v, (np.dtype, np.ndarray, np.generic))


def _is_numba_type(v):
    return type(v).__module__.startswith("numba.core.types")


def code_fingerprint(py_func):
    """A hex digest of everything outside ``py_func``'s own source text that changes the code
    compiled for it (see the module docstring)."""
    digest = _Digest()
    digest.function(py_func, root=True)
    return digest.hexdigest()

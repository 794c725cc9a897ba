"""Exceptions raised on the device, reported on the host (``debug=True`` / ``boundscheck=True``).

Device code follows Numba's minimal call convention: a function returns an ``i32`` status, and a
``raise``/``assert``/failed bounds check returns a positive *exception id*.  Here:

* ids are unique in the process (``CUDACallHelper``), so an id that propagates out of a device
  function means the same thing in every caller; each ``CUDACodeLibrary`` records, in its
  ``exceptions`` mapping, the ids its code can return: ``id -> (class, args, location)``.
  With no location given (Numba's bounds checks give none) the line being lowered is used.
* a kernel compiled to report errors gets a device global, the *error record* (``RECORD_WORDS``
  ``i32``: status code, ``threadIdx.x/y/z``, ``blockIdx.x/y/z``, zero-initialised), named
  ``error_global_name(entry_name)``.  The kernel wrapper checks the status its body returned; on
  an error, one ``cmpxchg`` of the code word from 0 elects the first failing thread, which
  writes its indices.  Every failing thread then returns.  Kernels that do not report errors
  get no global and no check: the status is ignored, as before.
* ``ExceptionTable`` (picklable: it travels in the on-disk cache) turns a record read back by the
  runtime into the Python exception to raise, naming the kernel, the thread and the block.
"""

import itertools
import threading

from llvmlite import ir

from ..common.error_record import RECORD_BYTES, RECORD_FORMAT, RECORD_WORDS  # noqa: F401 - the layout

_SREGS = ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")
_i32 = ir.IntType(32)

# Minimal call convention codes that are errors but not user exceptions.
_RETCODE_EXC = -1
_RETCODE_STOPIT = -3

_ids = itertools.count(1)
_ids_lock = threading.Lock()


def next_exception_id():
    """A process-wide unique exception id (>= 1, Numba's first user-exception code)."""
    with _ids_lock:
        return next(_ids)


def error_global_name(entry_name):
    """Name of the error record of the kernel ``entry_name`` (its PTX ``.global``)."""
    return f"{entry_name}__errors"


class CUDACallHelper:
    """The call helper of the CUDA call convention (see the module docstring).

    ``library``: the code library being lowered when the helper was made (it records the
    exceptions); ``loc``: the source location being lowered, set by the CUDA lowerer, used
    for exceptions raised without one (bounds checks)."""

    def __init__(self, library=None):
        self.exceptions = {}
        self.library = library
        self.loc = None

    def _add_exception(self, exc, exc_args, locinfo):
        exc_id = next_exception_id()
        self.exceptions[exc_id] = (exc, exc_args, locinfo)
        table = getattr(self.library, "exceptions", None)
        if table is not None:
            table[exc_id] = (exc, exc_args, locinfo)
        return exc_id

    def get_exception(self, exc_id):
        try:
            return self.exceptions[exc_id]
        except KeyError:
            return SystemError, (f"unknown error {exc_id} in device code",), None

    def current_locinfo(self, func_name=None):
        loc = self.loc
        if loc is None or getattr(loc, "line", None) is None:
            return None
        fname = loc._raw_function_name() or func_name
        if fname is None or loc.filename is None:
            return None
        return (fname, loc.filename, loc.line)


def runtime_value_placeholder(nb_type):
    """What a run-time value in ``raise E(value)`` becomes in the reported message (the value
    itself stays on the device)."""
    return f"<{nb_type} value>"


# ---- code generation -------------------------------------------------------------------------
def define_error_record(module, entry_name):
    """The zero-initialised error record global of kernel ``entry_name`` in ``module``."""
    ty = ir.ArrayType(_i32, RECORD_WORDS)
    gv = ir.GlobalVariable(module, ty, error_global_name(entry_name))
    gv.initializer = ir.Constant(ty, None)
    gv.align = 4
    return gv


def emit_error_check(builder, status, record):
    """In a kernel wrapper, after the call returning ``status`` (Numba ``Status``): when it is an
    error, the first failing thread of the launch (``cmpxchg`` of the code word from 0) stores
    the code and its thread and block indices in ``record``."""
    from ..lang.intrinsics import read_sreg

    with builder.if_then(status.is_error, likely=False):
        code_ptr = builder.gep(record, [_i32(0), _i32(0)], inbounds=True)
        pair = builder.cmpxchg(code_ptr, _i32(0), status.code, "monotonic", "monotonic")
        won = builder.extract_value(pair, 1)
        with builder.if_then(won):
            for index, reg in enumerate(_SREGS, 1):
                ptr = builder.gep(record, [_i32(0), _i32(index)], inbounds=True)
                builder.store(read_sreg(builder, reg), ptr)


# ---- host side -------------------------------------------------------------------------------
def _message_of(exc_class, exc_args):
    if not exc_args:
        return ""
    try:
        return str(exc_class(*exc_args))
    except Exception:  # noqa: BLE001 - an odd constructor must not hide the report
        return ", ".join(str(a) for a in exc_args)


class ExceptionTable:
    """The exceptions a kernel can report: ``entries`` maps ids to ``(class, args, location)``
    with ``location = (function, filename, line)`` or None; ``kernel_name`` is the Python name
    used in messages."""

    def __init__(self, kernel_name, entries):
        self.kernel_name = kernel_name
        self.entries = dict(entries)

    def __len__(self):
        return len(self.entries)

    def __repr__(self):
        return f"<ExceptionTable of {self.kernel_name}: {len(self.entries)} exception(s)>"

    def exception_for(self, words):
        """The exception to raise for a record ``words`` (``RECORD_WORDS`` ints), or None
        when the record holds no error (code 0)."""
        code = int(words[0])
        if code == 0:
            return None
        tid = tuple(int(w) for w in words[1:4])
        bid = tuple(int(w) for w in words[4:7])
        where = (f"in kernel '{self.kernel_name}' at thread ({tid[0]}, {tid[1]}, {tid[2]}) "
                 f"of block ({bid[0]}, {bid[1]}, {bid[2]})")
        entry = self.entries.get(code)
        if entry is None:
            what = {_RETCODE_EXC: "an error without an exception",
                    _RETCODE_STOPIT: "StopIteration"}.get(code, f"unknown exception id {code}")
            return SystemError(f"device code reported {what} {where}")
        exc_class, exc_args, locinfo = entry
        if exc_class is None:
            exc_class = RuntimeError
        message = _message_of(exc_class, exc_args)
        if not message and issubclass(exc_class, AssertionError):
            message = "assertion failed"
        text = f"{message} {where}" if message else where
        if locinfo:
            fname, filename, line = locinfo
            text += f" (raised in {fname} at {filename}:{line})"
        try:
            return exc_class(text)
        except Exception:  # noqa: BLE001 - classes that need other constructor arguments
            return RuntimeError(f"{exc_class.__name__}: {text}")


def kernel_exception_table(library, kernel_name):
    """``ExceptionTable`` of every exception the code of ``library`` (and what it links) can
    return to a kernel."""
    entries = {}
    for lib in library.all_libraries():
        entries.update(getattr(lib, "exceptions", None) or {})
    return ExceptionTable(kernel_name, entries)

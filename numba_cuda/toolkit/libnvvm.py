"""libNVVM's C API through ``ctypes``, on the library toolkit discovery loaded.

The few calls the compiler makes (create, add modules, compile/verify, result and log, destroy,
the two version queries), with the names and argument conventions of ``cuda.bindings.nvvm``
(``create_program()`` returns the handle as an int, ``get_compiled_result(prog, buffer)`` fills
a ``bytearray`` ...) and its failure, :class:`nvvmError` (``str()``: ``"ERROR_COMPILATION (9)"``).
Importing ``cuda.bindings.nvvm`` imports ``cuda.pathfinder`` (~25 ms, held under the GIL) in
every process that compiles; this module imports nothing beyond ``ctypes``.  ``ctypes`` calls
release the GIL while libNVVM works.

The compiler binds it to the handle :func:`numba_cuda.toolkit.load_library` opened
(``loading.library_handle``: the file discovery chose, or the copy another package had already
loaded), so there is exactly one libNVVM in the process.
"""

import ctypes

#: ``nvvmResult`` codes (nvvm.h) -> the names ``cuda.bindings.nvvm.Result`` gives them.
RESULT_NAMES = {
    0: "SUCCESS",
    1: "ERROR_OUT_OF_MEMORY",
    2: "ERROR_PROGRAM_CREATION_FAILURE",
    3: "ERROR_IR_VERSION_MISMATCH",
    4: "ERROR_INVALID_INPUT",
    5: "ERROR_INVALID_PROGRAM",
    6: "ERROR_INVALID_IR",
    7: "ERROR_INVALID_OPTION",
    8: "ERROR_NO_MODULE_IN_PROGRAM",
    9: "ERROR_COMPILATION",
    10: "ERROR_CANCELLED",
}


class nvvmError(Exception):  # noqa: N801 - cuda.bindings.nvvm's spelling
    """A libNVVM call returned ``status`` (not ``NVVM_SUCCESS``)."""

    def __init__(self, status):
        self.status = status
        super().__init__(f"{RESULT_NAMES.get(status, 'UNKNOWN_ERROR')} ({status})")


_c_int_p = ctypes.POINTER(ctypes.c_int)
_c_size_p = ctypes.POINTER(ctypes.c_size_t)
_program = ctypes.c_void_p
_options = ctypes.POINTER(ctypes.c_char_p)
_c_char_out = ctypes.POINTER(ctypes.c_char)

#: C function -> argument types (every one returns ``nvvmResult``, an int).
PROTOTYPES = {
    "nvvmVersion": (_c_int_p, _c_int_p),
    "nvvmIRVersion": (_c_int_p, _c_int_p, _c_int_p, _c_int_p),
    "nvvmCreateProgram": (ctypes.POINTER(_program),),
    "nvvmDestroyProgram": (ctypes.POINTER(_program),),
    "nvvmAddModuleToProgram": (_program, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p),
    "nvvmLazyAddModuleToProgram": (_program, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p),
    "nvvmCompileProgram": (_program, ctypes.c_int, _options),
    "nvvmVerifyProgram": (_program, ctypes.c_int, _options),
    "nvvmGetCompiledResultSize": (_program, _c_size_p),
    "nvvmGetCompiledResult": (_program, _c_char_out),
    "nvvmGetProgramLogSize": (_program, _c_size_p),
    "nvvmGetProgramLog": (_program, _c_char_out),
}


def _encoded(text):
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def _option_array(count, options):
    opts = [_encoded(o) for o in options][:count]
    return (ctypes.c_char_p * max(len(opts), 1))(*opts), len(opts)


class LibNVVM:
    """libNVVM's functions on an opened ``ctypes.CDLL``.  Raises ``AttributeError`` when the
    library lacks one of them (not libNVVM, or too old)."""

    nvvmError = nvvmError

    def __init__(self, cdll):
        self._cdll = cdll
        self._fns = {}
        for name, argtypes in PROTOTYPES.items():
            fn = getattr(cdll, name)
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
            self._fns[name] = fn

    def _call(self, name, *args):
        status = self._fns[name](*args)
        if status != 0:
            raise nvvmError(status)

    def version(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._call("nvvmVersion", ctypes.byref(major), ctypes.byref(minor))
        return major.value, minor.value

    def ir_version(self):
        values = [ctypes.c_int() for _ in range(4)]
        self._call("nvvmIRVersion", *map(ctypes.byref, values))
        return tuple(v.value for v in values)

    def create_program(self):
        prog = _program()
        self._call("nvvmCreateProgram", ctypes.byref(prog))
        return prog.value

    def destroy_program(self, prog):
        handle = _program(prog)
        self._call("nvvmDestroyProgram", ctypes.byref(handle))

    def add_module_to_program(self, prog, buffer, size, name):
        self._call("nvvmAddModuleToProgram", prog, _encoded(buffer), size, _encoded(name))

    def lazy_add_module_to_program(self, prog, buffer, size, name):
        self._call("nvvmLazyAddModuleToProgram", prog, _encoded(buffer), size, _encoded(name))

    def compile_program(self, prog, num_options, options):
        array, count = _option_array(num_options, options)
        self._call("nvvmCompileProgram", prog, count, array)

    def verify_program(self, prog, num_options, options):
        array, count = _option_array(num_options, options)
        self._call("nvvmVerifyProgram", prog, count, array)

    def _size(self, name, prog):
        size = ctypes.c_size_t()
        self._call(name, prog, ctypes.byref(size))
        return size.value

    def get_compiled_result_size(self, prog):
        return self._size("nvvmGetCompiledResultSize", prog)

    def get_compiled_result(self, prog, buffer):
        self._fill("nvvmGetCompiledResult", prog, buffer)

    def get_program_log_size(self, prog):
        return self._size("nvvmGetProgramLogSize", prog)

    def get_program_log(self, prog, buffer):
        self._fill("nvvmGetProgramLog", prog, buffer)

    def _fill(self, name, prog, buffer):
        # ``buffer``: a bytearray of the size the matching ``*_size`` call returned, filled in
        # place (libNVVM writes exactly that many bytes, the terminating NUL included)
        if not isinstance(buffer, bytearray):
            raise TypeError(f"expected a bytearray, got {type(buffer).__name__}")
        if not buffer:  # nothing to write into; libNVVM still wants a valid pointer
            self._call(name, prog, ctypes.create_string_buffer(1))
            return
        target = (ctypes.c_char * len(buffer)).from_buffer(buffer)
        try:
            self._call(name, prog, target)
        finally:
            del target  # releases the export of ``buffer``


"""libNVVM, through ``cuda.bindings.nvvm``, loading exactly the library toolkit discovery chose.

``compile_ir(modules, arch=..., options=...)`` turns NVVM IR text into PTX (or LTO-IR with
``gen_lto=True``); libdevice is added with NVVM's lazy-add call so that only the ``__nv_*``
functions the IR references are linked (and not at all when it references none).  Any failure
raises ``numba_cuda.errors.NvvmError`` holding NVVM's program log.

Threads may call ``compile_ir`` at once: each call has its own NVVM program, libNVVM's API is
thread-safe (its manual recommends compiling on several threads) and ``cuda.bindings`` releases
the GIL while it compiles, so no lock is taken here
(``tests/compiler/test_concurrent_compiles.py``).
"""

import functools
import threading

from ..errors import NvvmError, ToolkitError

#: What libNVVM needs in every module: the 64-bit NVVM data layout (an empty one is rejected)
#: and the ``nvptx64-nvidia-cuda`` triple (``nvvmir`` builds modules with them).
DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128"
    "-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)
TRIPLE = "nvptx64-nvidia-cuda"

_bindings = None
_bindings_lock = threading.Lock()


def bindings():
    """The ``cuda.bindings.nvvm`` module, bound to the libNVVM that toolkit discovery chose.

    Loaded once per process; a thread that asks while another one is loading waits for it.
    A failure is not remembered: the next call raises again."""
    global _bindings
    nvvm = _bindings
    if nvvm is None:
        with _bindings_lock:
            if _bindings is None:
                _bindings = _load_bindings()
            nvvm = _bindings
    return nvvm


def _load_bindings():
    from .. import toolkit

    # dlopen the chosen libnvvm by absolute path first (RTLD_GLOBAL): cuda-bindings finds its
    # functions there with dlsym instead of searching for a library on its own.  (load_library
    # has also imported cuda.bindings.nvvm, without cuda-pathfinder, to check the library's
    # version: toolkit.nvvm_bindings)
    toolkit.load_library("nvvm")
    try:
        from cuda.bindings import nvvm
    except ImportError as exc:  # pragma: no cover - cuda-bindings is a dependency
        raise ToolkitError(
            f"cuda.bindings.nvvm cannot be imported ({exc}); install cuda-bindings "
            "(pip install 'numba-cuda[cu13]' or 'numba-cuda[cu12]')"
        ).with_cause(exc) from None
    try:
        nvvm.version()
    except Exception as exc:  # noqa: BLE001 - any failure here means NVVM is unusable
        raise ToolkitError(f"libNVVM was found but cannot be used: {exc}").with_cause(exc) from None
    return nvvm


@functools.lru_cache(maxsize=None)
def version():
    """libNVVM's own version, e.g. ``(2, 0)``."""
    return tuple(bindings().version())


@functools.lru_cache(maxsize=None)
def ir_version():
    """``(major, minor, debug_major, debug_minor)`` of the NVVM IR this libNVVM reads."""
    return tuple(bindings().ir_version())


@functools.lru_cache(maxsize=None)
def libdevice_bitcode():
    """The bytes of ``libdevice.10.bc`` from the chosen toolkit."""
    from .. import toolkit

    path = toolkit.libdevice_path()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise ToolkitError(f"libdevice could not be read from {path}: {exc}").with_cause(
            exc) from None


def is_loaded():
    """True once libNVVM is loaded and bound in this process."""
    return _bindings is not None


def _program_log(nvvm, prog):
    try:
        size = nvvm.get_program_log_size(prog)
        buf = bytearray(size)
        nvvm.get_program_log(prog, buf)
        return bytes(buf).rstrip(b"\x00").decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 - the log is best effort once compilation already failed
        return ""


def _references_libdevice(modules):
    """True if some module mentions a libdevice function (``__nv_...``; a false positive only
    costs the add).  libNVVM parses libdevice for every program it is added to (~1 ms) even
    when nothing is linked from it."""
    for _name, text in modules:
        if (b"__nv_" if isinstance(text, bytes) else "__nv_") in text:
            return True
    return False


def option_strings(options):
    """libNVVM options from Numba's keyword form (``{"opt": 3, "gen-lto": None, "prec_div": 0}``):
    ``-opt=3``, ``-gen-lto``, ``-prec-div=0`` -- underscores become dashes, None is the bare flag,
    booleans are 1/0 -- and ``fastmath=True`` stands for ``-ftz=1 -fma=1 -prec-div=0
    -prec-sqrt=0``, as in NVIDIA's numba-cuda."""
    options = dict(options)
    if options.pop("fastmath", False):
        options.update({"ftz": True, "fma": True, "prec_div": False, "prec_sqrt": False})
    strings = []
    for key, value in options.items():
        key = key.replace("_", "-")
        if value is None:
            strings.append(f"-{key}")
        else:
            strings.append(f"-{key}={int(value) if isinstance(value, bool) else value}")
    return strings


def compile_ir(modules, arch, options=(), *, libdevice=True, gen_lto=False):
    """Compile NVVM IR text modules for ``arch`` (e.g. ``"compute_90"``); return PTX text (str)
    or, with ``gen_lto=True``, LTO-IR (bytes).

    ``modules`` is a sequence of ``(name, text)`` pairs; ``options`` are extra libNVVM options
    (``-opt=3``, ``-ftz=1`` ...).
    """
    nvvm = bindings()
    opts = [f"-arch={arch}", *options]
    if gen_lto:
        opts.append("-gen-lto")
    encoded = [o.decode() if isinstance(o, bytes) else o for o in opts]
    prog = nvvm.create_program()
    try:
        stage = "adding IR to the program"
        try:
            for name, text in modules:
                data = text.encode("utf-8") if isinstance(text, str) else text
                nvvm.add_module_to_program(prog, data, len(data), name)
            if libdevice and _references_libdevice(modules):
                bc = libdevice_bitcode()
                from .. import toolkit

                stage = f"adding libdevice ({toolkit.libdevice_path()}) to the program"
                nvvm.lazy_add_module_to_program(prog, bc, len(bc), "libdevice")
            stage = f"compiling for {arch} with options {' '.join(opts)}"
            nvvm.compile_program(prog, len(encoded), encoded)
            size = nvvm.get_compiled_result_size(prog)
            buf = bytearray(size)
            nvvm.get_compiled_result(prog, buf)
        except nvvm.nvvmError as exc:
            log = _program_log(nvvm, prog)
            raise NvvmError(
                f"libNVVM failed {stage}: {exc}\n{log or '(NVVM wrote no log)'}"
            ).with_cause(exc) from None
    finally:
        nvvm.destroy_program(prog)
    result = bytes(buf)
    if gen_lto:
        return result
    return result.rstrip(b"\x00").decode("utf-8")


def accepts_arch(arch):
    """True if this libNVVM accepts ``-arch=<arch>``: checked by verifying an empty module with
    that option (``nvvmVerifyProgram`` validates the options as compiling does, in ~0.1 ms
    instead of a few ms for a compile)."""
    return _accepts_arch(arch)


def _empty_module_text():
    """An empty NVVM IR module (triple, data layout, ``!nvvmir.version``): what ``nvvmir``
    makes of ``new_module("empty")`` with ``add_ir_version``."""
    version = ", ".join(f"i32 {v}" for v in ir_version())
    return (f'; ModuleID = "empty"\ntarget triple = "{TRIPLE}"\n'
            f'target datalayout = "{DATA_LAYOUT}"\n\n'
            f"!nvvmir.version = !{{ !0 }}\n!0 = !{{ {version} }}\n")


@functools.lru_cache(maxsize=None)
def _accepts_arch(arch):
    nvvm = bindings()
    data = _empty_module_text().encode("utf-8")
    prog = nvvm.create_program()
    try:
        nvvm.add_module_to_program(prog, data, len(data), "probe")
        try:
            nvvm.verify_program(prog, 1, [f"-arch={arch}"])
        except nvvm.nvvmError:
            return False
    finally:
        nvvm.destroy_program(prog)
    return True

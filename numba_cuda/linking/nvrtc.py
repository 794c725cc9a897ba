"""CUDA C/C++ to PTX, LTO-IR or cubin with NVRTC (``cuda.bindings.nvrtc``).

NVRTC is the library that toolkit discovery chose (loaded with
``numba_cuda.toolkit.load_library("nvrtc")`` before the bindings touch it);
the toolkit's include folder is on the include path, so ``#include
<cuda_fp16.h>`` works.  Sources are compiled as relocatable device code
(``-rdc=true``) so their ``__device__`` functions can be linked into kernels.
Compile errors raise :class:`numba_cuda.errors.LinkerError` holding NVRTC's log.

``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS`` (NVIDIA's package: folders separated by ``os.pathsep``)
and ``NUMBA_CUDA_INCLUDE_PATH`` (Numba's setting, ``numba.config.CUDA_INCLUDE_PATH``), when set,
are searched in that order after the caller's ``include_dirs`` and before the toolkit's include
folder.
"""

import hashlib
import os
import threading
import warnings

from ..errors import LinkerError
from . import filekinds
from .linkable import LTOIR, Cubin, PTXSource

OUTPUTS = ("ptx", "ltoir", "cubin")

_memo = {}
_memo_lock = threading.Lock()
_MEMO_SIZE = 64


class NvrtcWarning(UserWarning):
    """NVRTC compiled a source but printed warnings (the text is the log)."""


def _bindings():
    from ..toolkit import load_library

    load_library("nvrtc")
    from cuda.bindings import nvrtc

    return nvrtc


def _check(nvrtc, result, what):
    err = result[0]
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, text = nvrtc.nvrtcGetErrorString(err)
        raise LinkerError(f"NVRTC {what} failed: {err.name} ({text.decode(errors='replace')})")
    return result[1:] if len(result) > 2 else (result[1] if len(result) == 2 else None)


def nvrtc_version():
    """(major, minor) of the NVRTC in use."""
    nvrtc = _bindings()
    major, minor = _check(nvrtc, nvrtc.nvrtcVersion(), "nvrtcVersion")
    return (major, minor)


def _arch_option(cc, output):
    major, minor, *suffix = cc
    prefix = "sm" if output == "cubin" else "compute"
    return f"-arch={prefix}_{major}{minor}{''.join(suffix)}"


#: Architecture-suffix letters NVRTC accepts after ``sm_XY``/``compute_XY``: "a"
#: (architecture-specific features) and "f" (family-specific features).
ARCH_SUFFIXES = ("", "a", "f")


def _validate_cc(cc):
    """``(major, minor)``, or ``(major, minor, suffix)`` with a suffix of :data:`ARCH_SUFFIXES`."""
    try:
        if len(cc) == 3 and isinstance(cc[2], str):
            major, minor, suffix = int(cc[0]), int(cc[1]), cc[2]
        else:
            (major, minor), suffix = (int(x) for x in cc), ""
    except (TypeError, ValueError):
        raise ValueError(f"cc must be a (major, minor) tuple such as (9, 0), or (major, minor, "
                         f"suffix) such as (9, 0, 'a'), not {cc!r}") from None
    if suffix not in ARCH_SUFFIXES:
        raise ValueError(f"cc {cc!r}: the architecture suffix must be 'a' or 'f' (or absent), "
                         f"not {suffix!r}")
    return (major, minor, suffix) if suffix else (major, minor)


def user_include_path():
    """The include folders the user set: ``numba.core.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS``
    when a program set it (it wins, as in NVIDIA's numba-cuda, where the setting is read once
    into the config), else ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS``, split on ``os.pathsep``;
    then ``NUMBA_CUDA_INCLUDE_PATH`` when set (in the environment, or in ``numba.config`` to
    something else than Numba's default)."""
    from numba.core import config

    extra = (getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
             or os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", ""))
    folders = [d for d in str(extra or "").split(os.pathsep) if d.strip()]
    value = getattr(config, "CUDA_INCLUDE_PATH", None)
    if os.environ.get("NUMBA_CUDA_INCLUDE_PATH", "").strip():
        folders.append(str(value) if value else os.environ["NUMBA_CUDA_INCLUDE_PATH"].strip())
    elif value and str(value) != _numba_default_include_path():
        folders.append(str(value))
    return folders


def _numba_default_include_path():
    # what numba.config puts there when the variable is unset
    if os.name == "nt":
        cuda_path = os.environ.get("CUDA_PATH")
        return os.path.join(cuda_path, "include") if cuda_path else "cuda_include_not_found"
    return os.path.join(os.sep, "usr", "local", "cuda", "include")


def compile_source(source, cc, output="ptx", name=None, options=(), include_dirs=(),
                   lineinfo=False, debug=False):
    """Compile CUDA C/C++ ``source`` for compute capability ``cc``.

    ``source`` is text/bytes or a :class:`~numba_cuda.linking.CUSource`;
    ``output`` is ``"ptx"``, ``"ltoir"`` (``-dlto``) or ``"cubin"``.  Returns a
    PTXSource, LTOIR or Cubin.  ``options`` are extra NVRTC options;
    ``include_dirs`` are searched before the toolkit's include folder.
    Results are memoised per (source, cc, output, options).
    """
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
    cc = _validate_cc(cc)
    if hasattr(source, "kind"):
        if source.kind != filekinds.CU:
            raise ValueError(f"compile_source() compiles CUDA C/C++, not {source.kind} ({source.name})")
        name = name or source.name
        source = source.data
    if isinstance(source, str):
        source = source.encode("utf-8")
    name = name or "<source>.cu"

    nvrtc = _bindings()  # first: a missing NVRTC is the error to report, not missing headers
    from ..errors import ToolkitError
    from ..toolkit import include_dir

    includes = [str(d) for d in include_dirs] + user_include_path()
    headers_missing = None
    try:
        includes.append(include_dir())
    except ToolkitError as exc:
        # Sources that include no toolkit header still compile; say so if one fails.
        headers_missing = str(exc).splitlines()[0]
    opts = [_arch_option(cc, output), "-rdc=true"]
    if output == "ltoir":
        opts.append("-dlto")
    if lineinfo:
        opts.append("-lineinfo")
    if debug:
        opts.append("-G")
    opts += [f"-I{d}" for d in includes]
    opts += [str(o) for o in options]

    key = (hashlib.sha256(source).hexdigest(), name, output, tuple(opts))
    with _memo_lock:
        hit = _memo.get(key)
    if hit is not None:
        return hit
    result = _compile(nvrtc, source, name, output, opts, headers_missing)
    with _memo_lock:
        if len(_memo) >= _MEMO_SIZE:
            _memo.pop(next(iter(_memo)))
        _memo[key] = result
    return result


def compile(src, name, cc, ltoir=False, lineinfo=False, debug=False):
    """NVIDIA's ``numba.cuda.cudadrv.nvrtc.compile``: ``(code, log)``, the PTX (or, with
    ``ltoir``, LTO-IR) of CUDA C/C++ ``src`` for ``cc`` -- a ``PTXSource``/``LTOIR``, whose
    ``code`` is the bytes -- and the log (warnings are issued as ``NvrtcWarning``; "" here)."""
    code = compile_source(src, cc, output="ltoir" if ltoir else "ptx", name=name,
                          lineinfo=lineinfo, debug=debug)
    return code, ""


def _compile(nvrtc, source, name, output, opts, headers_missing):
    prog = _check(nvrtc, nvrtc.nvrtcCreateProgram(source, name.encode(), 0, [], []),
                  "nvrtcCreateProgram")
    try:
        encoded = [o.encode() for o in opts]
        (status,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        log = _log(nvrtc, prog)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            arch = opts[0].split("=", 1)[1]
            note = (f"\nNote: the CUDA toolkit headers are not on the include path: {headers_missing}"
                    if headers_missing else "")
            raise LinkerError(
                f"NVRTC could not compile {name} for {arch} ({status.name}):\n{log.strip()}{note}"
            )
        if log.strip():
            warnings.warn(f"NVRTC compiled {name} with messages:\n{log.strip()}", NvrtcWarning,
                          stacklevel=4)
        if output == "ptx":
            size = _check(nvrtc, nvrtc.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
            buf = b" " * size
            _check(nvrtc, nvrtc.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
            return PTXSource(buf, _renamed(name, ".ptx"))
        if output == "ltoir":
            size = _check(nvrtc, nvrtc.nvrtcGetLTOIRSize(prog), "nvrtcGetLTOIRSize")
            buf = b" " * size
            _check(nvrtc, nvrtc.nvrtcGetLTOIR(prog, buf), "nvrtcGetLTOIR")
            return LTOIR(buf, _renamed(name, ".ltoir"))
        size = _check(nvrtc, nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
        buf = b" " * size
        _check(nvrtc, nvrtc.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
        return Cubin(buf, _renamed(name, ".cubin"))
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _log(nvrtc, prog):
    size = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
    if size <= 1:
        return ""
    buf = b" " * size
    _check(nvrtc, nvrtc.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
    return buf.rstrip(b"\x00").decode("utf-8", errors="replace")


def _renamed(name, suffix):
    base = name[:-3] if name.endswith(".cu") else name
    return base + suffix


def compile(src, name, cc, ltoir=False, lineinfo=False, debug=False):  # noqa: A001 - NVIDIA's name
    """``(code, log)``: NVIDIA's ``numba.cuda.cudadrv.nvrtc.compile``, over :func:`compile_source`.

    Compiles CUDA C/C++ ``src`` (text or bytes; ``name`` is its file name in messages) for
    ``cc`` (``(major, minor)`` or ``(major, minor, "a"|"f")``) to PTX, or to LTO-IR when
    ``ltoir``.  ``code`` is a :class:`~numba_cuda.linking.PTXSource` or
    :class:`~numba_cuda.linking.LTOIR` (its bytes are ``code.code``, as on cuda.core's
    ``ObjectCode``); ``log`` is NVRTC's log text ("" when it printed nothing; also issued as
    an :class:`NvrtcWarning`).  Compile errors raise :class:`numba_cuda.errors.LinkerError`.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NvrtcWarning)
        code = compile_source(src, cc, output="ltoir" if ltoir else "ptx", name=name,
                              lineinfo=lineinfo, debug=debug)
    logs = []
    for w in caught:
        if issubclass(w.category, NvrtcWarning):
            logs.append(str(w.message).split("\n", 1)[-1])  # the log, without our heading
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return code, "\n".join(logs)

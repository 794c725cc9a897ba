"""Link device code into a cubin with nvJitLink (``cuda.bindings.nvjitlink``).

No GPU or driver is needed: nvJitLink links for the requested ``sm_XY``
offline.  Inputs are PTX, cubin, fatbin, host objects, static libraries and
LTO-IR; CUDA C/C++ sources are compiled with NVRTC first (to LTO-IR when
``lto=True``, else PTX).  With ``lto=True`` LTO-IR inputs are optimised
together at link time.

    linker = Linker((9, 0), lto=True)
    linker.add(ltoir_of_the_kernel)            # a LinkableCode
    linker.add_file("helpers.cu")              # any kind, detected
    cubin = linker.link()                      # bytes
"""

import re

from ..errors import LinkerError, ToolkitError
from . import filekinds
from .linkable import LTOIR, LinkableCode, as_linkable, from_bytes

_INPUT_TYPE_NAMES = {
    filekinds.PTX: "PTX",
    filekinds.CUBIN: "CUBIN",
    filekinds.FATBIN: "FATBIN",
    filekinds.OBJECT: "OBJECT",
    filekinds.LIBRARY: "LIBRARY",
    filekinds.LTOIR: "LTOIR",
}


def _bindings(lto):
    from ..toolkit import load_library

    try:
        load_library("nvjitlink")
    except ToolkitError as exc:
        what = ("lto=True (link-time optimisation) needs nvJitLink" if lto
                else "linking device code without a GPU driver needs nvJitLink")
        err = ToolkitError(f"{what}, the CUDA JIT link library, which is not available.\n{exc}")
        err.component = "nvjitlink"
        err.fix = getattr(exc, "fix", None)
        raise err.with_cause(exc) from None
    from cuda.bindings import nvjitlink

    return nvjitlink


def nvjitlink_version():
    """(major, minor) of the nvJitLink in use; raises ToolkitError when it is missing."""
    return tuple(_bindings(False).version())


class LinkResult:
    """What :meth:`Linker.link_result` produced: ``cubin`` (bytes; None when PTX was
    asked for), ``ptx`` (str, only with ``lto=True, want_ptx=True``), ``info_log`` (str)."""

    def __init__(self, cubin, ptx, info_log):
        self.cubin = cubin
        self.ptx = ptx
        self.info_log = info_log


class Linker:
    """Collects device code for one architecture and links it with nvJitLink.

    ``cc`` is (major, minor).  Options: ``lto`` (link-time optimisation of
    LTO-IR inputs), ``max_registers``, ``debug`` (``-g``), ``lineinfo``,
    ``options`` (extra nvJitLink options), ``nvrtc_options`` (for ``.cu``
    inputs).  Nothing is loaded until :meth:`link`.
    """

    def __init__(self, cc, lto=False, max_registers=None, debug=False, lineinfo=False,
                 options=(), nvrtc_options=()):
        try:
            self.cc = tuple(int(x) for x in cc)
        except (TypeError, ValueError):
            raise ValueError(f"cc must be a (major, minor) tuple such as (9, 0), not {cc!r}") from None
        if len(self.cc) != 2:
            raise ValueError(f"cc must be a (major, minor) tuple such as (9, 0), not {cc!r}")
        self.lto = bool(lto)
        self.max_registers = max_registers
        self.debug = debug
        self.lineinfo = lineinfo
        self.options = tuple(options)
        self.nvrtc_options = tuple(nvrtc_options)
        self.inputs = []

    @property
    def arch(self):
        return f"sm_{self.cc[0]}{self.cc[1]}"

    # ---- inputs ----------------------------------------------------------------
    def add(self, item):
        """Add a LinkableCode or a path (kind detected)."""
        self.inputs.append(as_linkable(item))
        return self

    def add_file(self, path, kind=None):
        from .linkable import from_file

        self.inputs.append(from_file(path, kind))
        return self

    def add_data(self, data, kind=None, name="<data>"):
        self.inputs.append(from_bytes(data, name, kind))
        return self

    def add_ptx(self, ptx, name="<kernel>.ptx"):
        return self.add_data(ptx.encode() if isinstance(ptx, str) else ptx, filekinds.PTX, name)

    def add_cu(self, source, name="<source>.cu"):
        return self.add_data(source.encode() if isinstance(source, str) else source,
                             filekinds.CU, name)

    def _prepared_inputs(self):
        """Inputs with every CUDA C/C++ source compiled for this architecture."""
        from .nvrtc import compile_source

        out = []
        for item in self.inputs:
            if item.kind == filekinds.CU:
                item = compile_source(item, self.cc, output="ltoir" if self.lto else "ptx",
                                      options=self.nvrtc_options, lineinfo=self.lineinfo,
                                      debug=self.debug)
            out.append(item)
        _check_duplicate_ptx_definitions(out)
        if not self.lto:
            ltoir = [i.name for i in out if i.kind == filekinds.LTOIR]
            if ltoir:
                raise LinkerError(
                    f"LTO-IR inputs ({', '.join(ltoir)}) can only be linked with lto=True; "
                    "pass lto=True (or leave lto unset: a kernel linking LTO-IR then uses LTO), "
                    "or link PTX/cubin instead."
                )
        return out

    def link_options(self, want_ptx=False):
        opts = [f"-arch={self.arch}"]
        if self.lto:
            opts.append("-lto")
            if want_ptx:
                opts.append("-ptx")
        elif want_ptx:
            raise ValueError("want_ptx=True needs lto=True (nvJitLink emits linked PTX only for LTO)")
        if self.max_registers:
            opts.append(f"-maxrregcount={int(self.max_registers)}")
        if self.debug:
            opts.append("-g")
        if self.lineinfo:
            opts.append("-lineinfo")
        opts += [str(o) for o in self.options]
        return opts

    # ---- linking ---------------------------------------------------------------
    def link(self):
        """Link everything added; returns the cubin bytes (see :meth:`link_result` for logs)."""
        return self.link_result().cubin

    def link_ptx(self):
        """With ``lto=True``: the whole link optimised and emitted as one PTX text (no cubin)."""
        return self.link_result(want_ptx=True).ptx

    def link_result(self, want_ptx=False):
        """Link; a LinkResult with ``cubin`` (or, with ``want_ptx``, ``ptx``) and the info log."""
        if not self.inputs:
            raise LinkerError("nothing to link: add the kernel's PTX/LTO-IR and the code it calls")
        nvjitlink = _bindings(self.lto)  # first: a missing nvJitLink is named before NVRTC runs
        inputs = self._prepared_inputs()
        options = self.link_options(want_ptx)
        try:
            handle = nvjitlink.create(len(options), options)
        except nvjitlink.nvJitLinkError as exc:
            raise LinkerError(f"nvJitLink rejected the options {options}: {exc}").with_cause(
                exc) from None
        current = None
        try:
            try:
                for item in inputs:
                    current = item
                    input_type = getattr(nvjitlink.InputType, _INPUT_TYPE_NAMES[item.kind])
                    nvjitlink.add_data(handle, input_type, item.data, len(item.data), item.name)
                current = None
                nvjitlink.complete(handle)
            except nvjitlink.nvJitLinkError as exc:
                where = f" while adding {current.name} ({current.kind})" if current else ""
                log = _error_log(nvjitlink, handle)
                raise LinkerError(
                    f"nvJitLink could not link for {self.arch}{where}: {exc}\n{log}".rstrip()
                ).with_cause(exc) from None
            cubin = ptx = None
            if want_ptx:
                buf = bytearray(nvjitlink.get_linked_ptx_size(handle))
                nvjitlink.get_linked_ptx(handle, buf)
                ptx = bytes(buf).rstrip(b"\x00").decode("utf-8")
            else:
                buf = bytearray(nvjitlink.get_linked_cubin_size(handle))
                nvjitlink.get_linked_cubin(handle, buf)
                cubin = bytes(buf)
            return LinkResult(cubin, ptx, _info_log(nvjitlink, handle))
        finally:
            nvjitlink.destroy(handle)


_PTX_VISIBLE = re.compile(
    rb"^[ \t]*\.visible[ \t]+\.(?:func|entry)[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_$%][\w$%]*)[ \t]*\(",
    re.MULTILINE,
)


def ptx_definitions(ptx):
    """Names of the externally visible functions and kernels *defined* (not just
    declared) in the PTX text ``ptx`` (bytes)."""
    names = []
    for match in _PTX_VISIBLE.finditer(ptx):
        close = ptx.find(b")", match.end())
        if close < 0:
            continue
        brace, semi = ptx.find(b"{", close), ptx.find(b";", close)
        if brace >= 0 and (semi < 0 or brace < semi):
            names.append(match.group(1).decode("ascii", errors="replace"))
    return names


def _check_duplicate_ptx_definitions(inputs):
    # nvJitLink prints "Multiple definition of ..." to stderr for PTX inputs but still
    # reports success and picks one; catch the common case (two PTX/.cu inputs) here.
    seen = {}
    for item in inputs:
        if item.kind != filekinds.PTX:
            continue
        for name in ptx_definitions(item.data):
            first = seen.setdefault(name, item.name)
            if first != item.name:
                raise LinkerError(
                    f"multiple definition of {name!r}: in {item.name} and in {first}. "
                    "Link each function once (remove one of the inputs or make one definition static)."
                )


def _read_log(size_fn, get_fn, handle):
    try:
        size = size_fn(handle)
        if size <= 1:
            return ""
        buf = bytearray(size)
        get_fn(handle, buf)
    except Exception:  # noqa: BLE001 - a log we cannot read must not hide the real error
        return ""
    return bytes(buf).rstrip(b"\x00").decode("utf-8", errors="replace")


def _error_log(nvjitlink, handle):
    return _read_log(nvjitlink.get_error_log_size, nvjitlink.get_error_log, handle)


def _info_log(nvjitlink, handle):
    return _read_log(nvjitlink.get_info_log_size, nvjitlink.get_info_log, handle)


def lto_ptx(cc, ltoir, name, link_files=(), **options):
    """The PTX nvJitLink makes of link-time optimisation for ``cc``: ``ltoir`` (bytes, the
    code's LTO-IR, named ``name``) and every file of ``link_files`` that takes part in LTO
    (LTO-IR, and CUDA C/C++ sources, compiled to LTO-IR) optimised together into one PTX text.
    Files that are no part of LTO (PTX, cubins, fatbins, archives) are left out, as NVIDIA's
    ``inspect_lto_ptx`` leaves them.  ``options`` as :class:`Linker`'s."""
    linker = Linker(cc, lto=True, **options)
    linker.add(LTOIR(ltoir, name=name))
    for item in link_files:
        item = as_linkable(item)
        if item.kind in (filekinds.LTOIR, filekinds.CU):
            linker.add(item)
    return linker.link_ptx()


def link_cubin(cc, items, lto=False, **options):
    """Link ``items`` (LinkableCode objects or paths) into a cubin for ``cc``."""
    linker = Linker(cc, lto=lto, **options)
    for item in items:
        linker.add(item)
    return linker.link()


__all__ = ["Linker", "LinkResult", "link_cubin", "lto_ptx", "nvjitlink_version", "LinkableCode"]

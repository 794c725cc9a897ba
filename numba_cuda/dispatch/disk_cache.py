"""``cuda.jit(cache=True)``, the dispatcher's on-disk cache hook: load a kernel instead of compiling it.

The entries are stored by ``numba_cuda.caching`` (``KernelCache``), which knows nothing of kernels.

The dispatcher holds one :class:`DispatcherCache` (or ``cache_off.NO_DISK_CACHE`` without
``cache=True``) and calls, in ``compile(sig)`` for kernels::

    cached = self._kernel_cache.load_kernel(args)      # a CachedKernel or None
    ...compile...
    self._kernel_cache.save_kernel(args, kernel)       # after compiling a CompiledKernel

An entry holds, for one signature and the compute capability the kernel is compiled for
(``capability.resolve_cc(None, current_device_cc)``: the current GPU's, else the lowest libNVVM accepts): the PTX,
the mangled entry name, the argument types, the compile options, the files to link and the
NVVM IR (for ``inspect_llvm``).  A :class:`CachedKernel` serves launches and ``inspect_asm``
for that compute capability; anything that needs the Numba front end (another compute
capability, ``inspect_types``) compiles the kernel for real, once, on demand.

Hits and misses are counted per signature in the dispatcher's ``_cache_hits`` /
``_cache_misses`` (as Numba's CPU dispatcher does; visible as ``dispatcher.stats``).
Device functions are not cached on their own: their code is inside every cached kernel that
calls them.
"""

import hashlib
import os
import weakref

from numba.core.errors import TypingError

from ..caching.kernel_cache import KernelCache
from ..compiler import capability
from ..common.kernel_image import KernelImage
from .cache_off import NO_DISK_CACHE
from .device_cc import current_device_cc
from .launched_kernel import RuntimeQueries

#: Bump when the payload layout changes (part of every key).
PAYLOAD_VERSION = 2


def _toolkit_key():
    """NVVM and libdevice identity of the toolkit in use: entries from another toolkit never match."""
    from ..toolkit import get_toolkit

    tk = get_toolkit()
    key = [("cuda_major", tk.cuda_major)]
    for name in ("nvvm", "libdevice"):
        comp = tk.components.get(name)
        if comp is not None and comp.found:
            key.append((name, comp.version, comp.path))
    return tuple(key)


def _link_key(link):
    """(path, content digest) of every file to link: editing a linked .cu invalidates too."""
    out = []
    for item in link:
        if isinstance(item, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(item))
            try:
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                digest = None
            out.append((path, digest))
        else:
            data = getattr(item, "data", None)
            out.append((repr(type(item)), hashlib.sha256(data).hexdigest() if data else repr(item)))
    return tuple(out)


class DispatcherCache:
    """On-disk kernels of one dispatcher (see the module docstring)."""

    enabled = True

    def __init__(self, dispatcher):
        self._dispatcher = dispatcher
        options = dispatcher.options
        options_key = (
            ("payload", PAYLOAD_VERSION),
            ("options", repr(options)),
            ("device", bool(dispatcher.device)),
            ("link", _link_key(dispatcher.link)),
        )
        self.store = KernelCache(dispatcher.py_func, options_key=options_key,
                                 toolkit_key=_toolkit_key)

    @property
    def cache_path(self):
        return self.store.directory

    @staticmethod
    def _cc():
        return capability.resolve_cc(None, current_device_cc)

    @staticmethod
    def _sigkey(args):
        return "(" + ", ".join(str(a) for a in args) + ")"

    def load_kernel(self, args):
        d = self._dispatcher
        if d.device:
            return None
        args = tuple(args)
        cc = self._cc()
        payload = self.store.load(self._sigkey(args), cc)
        if payload is None or payload.get("argtypes") != args:
            d._cache_misses[args] += 1
            return None
        d._cache_hits[args] += 1
        return CachedKernel(payload, cc, recompile=_Recompile(d, args))

    def save_kernel(self, args, kernel):
        if self._dispatcher.device:
            return False
        args = tuple(args)
        cc = self._cc()
        try:
            image = kernel.image(cc)
        except TypingError:
            # The kernel needs a newer GPU than ``cc`` (grid sync below 6.0 ...): there is no
            # code to store for ``cc``; a launch compiles it for the GPU it runs on (and raises
            # this error there if that GPU is too old).
            return False
        return self.store.save(self._sigkey(args), cc, kernel_payload(kernel, image))


def kernel_payload(kernel, image):
    """What a kernel needs to be loaded and launched for ``image.cc`` without compiling: the
    on-disk cache stores it, and pickled dispatchers carry it (``numba_cuda.common.pickling``)."""
    return {
        "argtypes": image.argtypes,
        "signature": kernel.signature,
        "entry_name": image.entry_name,
        "options": kernel.options,
        "link_files": list(image.link_files),
        "cooperative": image.cooperative,
        "ptx": image.ptx,
        "ltoir": image.ltoir,  # lto=True kernels: LTO-IR instead of PTX
        "error_global": image.error_global,  # debug: exception report
        "exceptions": image.exceptions,
        "nrt_global": image.nrt_global,  # device NRT statistics pointer
        "llvm": kernel.library.get_llvm_str(),
    }


class _Recompile:
    """``CachedKernel``'s way back to its dispatcher, to compile ``args`` for real.

    It holds the dispatcher weakly: the kernel lives in ``dispatcher.overloads``, which Numba's
    finalizer of the dispatcher holds for the life of the process, so a strong reference here
    would keep every dispatcher that ever loaded from the cache alive.
    """

    __slots__ = ("_dispatcher", "_args", "_name")

    def __init__(self, dispatcher, args):
        self._dispatcher = weakref.ref(dispatcher)
        self._args = tuple(args)
        self._name = dispatcher.py_func.__qualname__

    def __call__(self):
        dispatcher = self._dispatcher()
        if dispatcher is None:
            raise RuntimeError(
                f"the cached kernel {self._name}{self._args} cannot be compiled: its dispatcher "
                "(the @cuda.jit function) no longer exists. Keep a reference to the function "
                "while its kernels are used.")
        return _compile_uncached(dispatcher, self._args)


def _compile_uncached(dispatcher, args):
    """Compile ``args`` for real (front end and all) in place of the cached kernel."""
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:
        cache, can_compile = dispatcher._kernel_cache, dispatcher._can_compile
        previous = dispatcher.overloads.pop(args, None)
        dispatcher._kernel_cache, dispatcher._can_compile = NO_DISK_CACHE, True
        try:
            return dispatcher.compile(args)
        except BaseException:
            if previous is not None:
                dispatcher.overloads[args] = previous
            raise
        finally:
            dispatcher._kernel_cache, dispatcher._can_compile = cache, can_compile


class _CachedLibrary:
    """What ``inspect_llvm`` / ``inspect_asm`` read from a kernel's ``library``."""

    def __init__(self, kernel):
        self._kernel = kernel

    def get_llvm_str(self):
        return self._kernel._payload["llvm"]

    def get_ptx(self, cc=None):
        return self._kernel.get_ptx(cc)

    get_asm_str = get_ptx

    def get_ltoir(self, cc=None):
        return self._kernel._compiled().get_ltoir(cc)


class CachedKernel(RuntimeQueries):
    """A kernel loaded from the on-disk cache: the interface of ``CompiledKernel``.

    PTX for the cached compute capability comes from the entry; for any other, and for
    ``type_annotation`` / LTO-IR, the kernel is compiled for real once (``recompile``).
    """

    objectmode = False
    from_cache = True
    #: nothing of a cached kernel is registered with the target context: Numba's finalizer of
    #: the dispatcher removes ``entry_point`` of every overload from it (a KeyError it ignores)
    entry_point = None

    def __init__(self, payload, cc, recompile):
        self._payload = payload
        self._cc = tuple(cc)
        self._recompile = recompile
        self._real = None
        self._images = {}
        self.argtypes = payload["argtypes"]
        self.signature = payload["signature"]
        self.entry_name = payload["entry_name"]
        self.options = payload["options"]
        self.cooperative = payload["cooperative"]
        self.error_global = payload["error_global"]
        self.exceptions = payload["exceptions"]
        self.nrt_global = payload.get("nrt_global")
        self.library = _CachedLibrary(self)

    link_files = property(lambda self: list(self._payload["link_files"]))
    debug = property(lambda self: self.options.debug)
    lineinfo = property(lambda self: self.options.lineinfo)
    max_registers = property(lambda self: self.options.max_registers)

    def _compiled(self):
        if self._real is None:
            self._real = self._recompile()
        return self._real

    @property
    def type_annotation(self):
        return self._compiled().type_annotation

    def image(self, cc=None):
        cc = capability.resolve_cc(cc, current_device_cc)
        if cc != self._cc:
            return self._compiled().image(cc)
        img = self._images.get(cc)
        if img is None:
            payload, options = self._payload, self.options
            img = self._images[cc] = KernelImage(
                entry_name=payload["entry_name"], argtypes=payload["argtypes"], cc=cc,
                ptx=payload["ptx"], ltoir=payload["ltoir"], link_files=payload["link_files"],
                cooperative=bool(payload["cooperative"]), debug=bool(options.debug),
                lineinfo=bool(options.lineinfo), max_registers=options.max_registers,
                error_global=payload["error_global"], exceptions=payload["exceptions"],
                nrt_global=payload.get("nrt_global"))  # entries written before the NRT: none
        return img

    def get_ptx(self, cc=None):
        ptx = self.image(cc).ptx
        return ptx if ptx is not None else self._compiled().get_ptx(cc)

    def get_ltoir(self, cc=None):
        return self._compiled().get_ltoir(cc)

    def inspect_llvm(self):
        return self._payload["llvm"]

    def inspect_asm(self, cc=None):
        return self.get_ptx(cc)

    def inspect_types(self):
        return str(self.type_annotation)

    # what needs the kernel's NVVM IR or its LTO-IR: the kernel compiled for real (once)
    def inspect_sass(self, cc=None):
        return self._compiled().inspect_sass(cc)

    def inspect_sass_cfg(self, cc=None):
        return self._compiled().inspect_sass_cfg(cc)

    def inspect_lto_ptx(self, cc=None):
        return self._compiled().inspect_lto_ptx(cc)

    def __repr__(self):
        return f"<CachedKernel {self.entry_name} {self.signature} (cc {self._cc[0]}.{self._cc[1]})>"


def ready_payloads(dispatcher):
    """``{argtypes: (payload, cc)}`` of the dispatcher's kernels that already have an image
    (nothing is compiled here): what a pickled dispatcher carries so that the process that
    loads it launches without compiling."""
    if dispatcher.device:
        return {}
    out = {}
    for args, kernel in dispatcher.overloads.items():
        if isinstance(kernel, CachedKernel):
            out[args] = (kernel._payload, kernel._cc)
        elif getattr(kernel, "_images", None):
            cc, image = next(iter(kernel._images.items()))
            out[args] = (kernel_payload(kernel, image), cc)
    return out


def install_payloads(dispatcher, payloads):
    """Give ``dispatcher`` the kernels of ``ready_payloads`` (another process's dispatcher)."""
    for args, (payload, cc) in payloads.items():
        args = tuple(args)
        dispatcher.overloads[args] = CachedKernel(payload, cc, recompile=_Recompile(dispatcher, args))

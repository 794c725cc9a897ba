"""The public compile entry points: ``cuda.jit``, ``compile``, ``compile_ptx``,
``compile_for_current_device``, ``compile_ptx_for_current_device``, ``declare_device``.

``compile``, ``compile_ptx`` and ``declare_device`` are the compiler's
(``numba_cuda.compiler.api``), public through this module so that the target is registered with
Numba (``numba_cuda.dispatch`` registers on import) before anything is compiled.
``*_for_current_device`` are the compiler's too: they take the current device's compute
capability through the query ``device_cc`` installs.
"""

from numba.core import types

from ..compiler.api import (compile, compile_all, compile_for_current_device,  # noqa: F401
                            compile_ptx, compile_ptx_for_current_device, compile_to_library,
                            declare_device)
from ..compiler.target import NUMBA_INTERNAL_OPTIONS
from ..launch_dims import normalize_shared_memory_carveout
from . import device_cc  # noqa: F401 - installs the compiler's current-device query
from .dispatcher import CUDADispatcher


def _is_signature(obj):
    from numba.core.typing.templates import Signature

    return isinstance(obj, (str, types.Type, tuple, Signature)) and not callable(obj)


_JIT_OPTIONS = ("device", "inline", "link", "debug", "opt", "lineinfo", "fastmath", "max_registers",
                "cache", "boundscheck", "lto", "extensions", "launch_bounds",
                "shared_memory_carveout")


def jit(func_or_sig=None, *, device=False, inline="never", link=(), debug=None, opt=None,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, boundscheck=None,
        lto=False, extensions=None, launch_bounds=None, shared_memory_carveout=None, **kws):
    """Compile a Python function for the GPU, lazily (per argument types at launch) or eagerly
    for one or several signatures.

    ``@cuda.jit``, ``@cuda.jit(device=True)``, ``@cuda.jit("void(float32[:])")``,
    ``@cuda.jit(["void(int32[:])", "void(float64[:])"])``.

    ``debug=True`` (``opt=False`` by default then) or ``boundscheck=True``: array indexing is
    bounds-checked (``boundscheck``; ``NUMBA_BOUNDSCHECK`` overrides) and the first exception
    raised in a launch (``IndexError``, ``AssertionError`` ...) is raised on the host after the
    kernel completes, naming the thread and block.  ``lto=True``: the kernel is compiled to
    LTO-IR and linked with its ``link=`` files by nvJitLink with link-time optimisation when
    it is loaded.  ``extensions``: Numba's kernel extensions (objects with
    ``prepare_args(ty, val, stream=, retr=)``), also reachable as ``kernel.extensions``.
    ``launch_bounds=n`` or ``(n, min_blocks[, max_cluster_blocks])``: the most threads per block
    a launch will use (PTX ``.maxntid``; a launch with more fails), the fewest blocks per
    multiprocessor wanted (``.minnctapersm``) and, from compute capability 9.0, the most blocks
    per cluster (``.maxclusterrank``), as CUDA C++'s ``__launch_bounds__``.
    """
    unknown = set(kws) - set(NUMBA_INTERNAL_OPTIONS)
    if unknown:
        raise TypeError(f"unknown @cuda.jit options: {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(_JIT_OPTIONS)}")
    carveout = normalize_shared_memory_carveout(shared_memory_carveout)  # a bad value fails now
    if carveout is not None and device:
        raise ValueError("shared_memory_carveout applies to kernels: a device function "
                         "(device=True) runs with the carveout of the kernel that calls it")
    if kws.get("forceinline"):
        inline = "always"
    if isinstance(link, str):
        link = [link]
    if debug is None:  # NUMBA_CUDA_DEBUGINFO, as in Numba
        from numba.core import config

        debug = bool(getattr(config, "CUDA_DEBUGINFO_DEFAULT", 0)) or None
    options = {"device": device, "inline": inline, "link": list(link), "debug": debug, "opt": opt,
               "lineinfo": lineinfo, "fastmath": fastmath, "max_registers": max_registers,
               "cache": cache, "boundscheck": boundscheck, "lto": lto,
               "extensions": list(extensions or ()), "launch_bounds": launch_bounds,
               "shared_memory_carveout": carveout}

    def decorate(func, sigs=None):
        if isinstance(func, CUDADispatcher):
            func = func.py_func
        elif hasattr(func, "py_func") and hasattr(func, "targetoptions"):  # a CPU dispatcher
            func = func.py_func
        if not callable(func):
            raise TypeError(f"@cuda.jit decorates a function, got {func!r}")
        return CUDADispatcher(func, sigs=sigs, targetoptions=options)

    if func_or_sig is None:
        return decorate
    if isinstance(func_or_sig, list):
        sigs = list(func_or_sig)
        return lambda func: decorate(func, sigs)
    if _is_signature(func_or_sig):
        return lambda func: decorate(func, [func_or_sig])
    return decorate(func_or_sig)


def overload_jit(*args, **kws):
    """The ``jit`` in Numba's ``jit_registry`` for the ``cuda`` target: what ``@overload(...,
    target="cuda")`` uses to compile implementations, which are device functions."""
    kws["device"] = True
    return jit(*args, **kws)



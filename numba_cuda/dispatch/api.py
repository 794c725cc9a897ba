"""The public compile entry points: ``cuda.jit``, ``compile``, ``compile_ptx``,
``compile_for_current_device``, ``compile_ptx_for_current_device``, ``declare_device``.

``compile``, ``compile_ptx`` and ``declare_device`` are the compiler's
(``numba_cuda.compiler.api``), public through this module so that the target is registered with
Numba (``numba_cuda.dispatch`` registers on import) before anything is compiled.
``*_for_current_device`` are those with the current device's compute capability (this layer
knows devices; the compiler does not).
"""

from numba.core import types

from ..compiler.api import compile, compile_all, compile_ptx, compile_to_library, declare_device  # noqa: F401
from ..common.jit_options import JIT_OPTION_NAMES, JitOptions
from .device_cc import current_device_cc
from .dispatcher import CUDADispatcher


def _is_signature(obj):
    from numba.core.typing.templates import Signature

    return isinstance(obj, (str, types.Type, tuple, Signature)) and not callable(obj)


_JIT_OPTIONS = JIT_OPTION_NAMES


def jit(func_or_sig=None, *, device=False, inline="never", link=(), debug=None, opt=None,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, boundscheck=None,
        lto=None, extensions=None, launch_bounds=None, shared_memory_carveout=None, **kws):
    """Compile a Python function for the GPU, lazily (per argument types at launch) or eagerly
    for one or several signatures.

    ``@cuda.jit``, ``@cuda.jit(device=True)``, ``@cuda.jit("void(float32[:])")``,
    ``@cuda.jit(["void(int32[:])", "void(float64[:])"])``.

    ``debug=True`` (``opt=False`` by default then) or ``boundscheck=True``: array indexing is
    bounds-checked (``boundscheck``; ``NUMBA_BOUNDSCHECK`` overrides) and the first exception
    raised in a launch (``IndexError``, ``AssertionError`` ...) is raised on the host after the
    kernel completes, naming the thread and block.  ``lto=True``: the kernel is compiled to
    LTO-IR and linked with its ``link=`` files by nvJitLink with link-time optimisation when
    it is loaded; ``lto=None`` (the default): so when one of the files it links (``link=``, or
    added by an extension's lowering) is LTO-IR, which links no other way; ``lto=False``:
    never.  ``extensions``: Numba's kernel extensions (objects with
    ``prepare_args(ty, val, stream=, retr=)``), also reachable as ``kernel.extensions``.
    ``launch_bounds=n`` or ``(n, min_blocks[, max_cluster_blocks])``: the most threads per block
    a launch will use (PTX ``.maxntid``; a launch with more fails), the fewest blocks per
    multiprocessor wanted (``.minnctapersm``) and, from compute capability 9.0, the most blocks
    per cluster (``.maxclusterrank``), as CUDA C++'s ``__launch_bounds__``.
    """
    options = JitOptions.parse(dict(
        kws, device=device, inline=inline, link=link, debug=debug, opt=opt, lineinfo=lineinfo,
        fastmath=fastmath, max_registers=max_registers, cache=cache, boundscheck=boundscheck,
        lto=lto, extensions=extensions, launch_bounds=launch_bounds,
        shared_memory_carveout=shared_memory_carveout))

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


def _current_device_cc():
    cc = current_device_cc()
    if cc is None:
        from ..errors import CudaSupportError

        raise CudaSupportError(
            "no CUDA device is available to take the compute capability from; pass cc=(major, minor) "
            "to compile/compile_ptx instead"
        )
    return cc


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True,
                               fastmath=False, opt=None, abi="c", abi_info=None, output="ptx",
                               forceinline=False, launch_bounds=None):
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=_current_device_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output,
                   forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, device=False, fastmath=False, opt=True,
                                   lineinfo=False, abi="numba", abi_info=None, debug=None,
                                   forceinline=False, launch_bounds=None):
    return compile_ptx(pyfunc, sig, device=device, cc=_current_device_cc(), fastmath=fastmath,
                       opt=opt, lineinfo=lineinfo, abi=abi, abi_info=abi_info, debug=debug,
                       forceinline=forceinline, launch_bounds=launch_bounds)

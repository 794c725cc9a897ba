"""The compiler's entry points: ``compile``, ``compile_ptx``, ``compile_to_library``,
``declare_device``.  (``cuda.jit`` and ``*_for_current_device`` are in ``numba_cuda.dispatch.api``,
which re-exports these as the public ``cuda.compile`` ...)

Default compute capability (``cc=None``): for ``compile``/``compile_ptx`` ``NUMBA_CUDA_DEFAULT_PTX_CC``
when set, else the lowest the installed libNVVM accepts (CUDA 12: 5.0, CUDA 13: 7.5), so that
PTX is made the same way with or without a GPU.  ``NUMBA_FORCE_CUDA_CC`` overrides every cc (see
``capability``).
"""

import re

from numba.core import sigutils, types

from ..common import collection_pause
from ..common.unsupported import check_function
from . import capability, nvvm
from .pipeline import CompileOptions, compile_cuda
from .target import cuda_target


def _resolve_cc(cc):
    return capability.resolve_cc(cc, capability.default_ptx_cc)


def _compile_library(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info,
                     output, forceinline, launch_bounds):
    """``(library, return_type, cc)``: what :func:`compile` and :func:`compile_all` make code of."""
    from ..errors import UnsupportedCompileOption

    if output not in ("ptx", "ltoir"):
        raise UnsupportedCompileOption(f"Unsupported output type: {output} (output must be "
                                       "'ptx' or 'ltoir')")
    if abi not in ("c", "numba"):
        raise UnsupportedCompileOption(f"Unsupported ABI: {abi} (abi must be 'c' or 'numba')")
    if abi == "c" and not device:
        raise UnsupportedCompileOption(
            "The C ABI is not supported for kernels: abi='c' is only for device functions "
            "(device=True); kernels use the CUDA kernel ABI (abi='numba', the default of "
            "compile_ptx)")
    if launch_bounds is not None and device:
        raise UnsupportedCompileOption(
            "launch_bounds applies to kernels (device=False): a device function runs with its "
            "caller's block")
    options = CompileOptions.from_user(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt,
                                       inline=bool(forceinline), launch_bounds=launch_bounds)
    # the collector paused for the kernel wrapper and the first compile's libNVVM set-up too,
    # not only for compile_cuda (a full collection otherwise lands in the set-up's imports)
    with collection_pause.paused():
        return _library_for(pyfunc, sig, options, device, cc, abi, abi_info)


def _library_for(pyfunc, sig, options, device, cc, abi, abi_info):
    # The compute capability first: on a process's first compile this loads libNVVM (toolkit
    # discovery, the cuda.bindings import, dlopen), so that a bad cc or a missing libNVVM is
    # the error even for a function the front end would refuse.  (Loading it on a helper thread
    # while the front end ran was slower: both are Python holding the GIL, and the two threads
    # handing it to each other made the first compile ~15 % slower than doing one after the
    # other.)
    cc = _resolve_cc(cc)
    library, resty = compile_to_library(pyfunc, sig, options, device=device, abi=abi,
                                        abi_info=abi_info)
    return library, resty, cc


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """Compile ``pyfunc`` for ``sig`` and return ``(code, return_type)``.

    ``output="ptx"`` gives PTX text; ``output="ltoir"`` gives LTO-IR bytes (libNVVM ``-gen-lto``).
    ``abi="c"`` (device functions only) exports a C-ABI function named ``abi_info["abi_name"]``
    (default: the Python name, escaped where a symbol cannot hold it: see ``c_abi_name``);
    ``abi="numba"`` exports the Numba-ABI function
    ``i32 f(ret*, args...)``.  ``forceinline=True`` (``output="ltoir"`` only, as in NVIDIA's
    numba-cuda: PTX is linked without inlining) marks the function to be inlined into its
    callers when the LTO-IR is linked (and device functions it calls into it);
    ``launch_bounds`` (kernels) as ``cuda.jit``'s.
    """
    if forceinline and output != "ltoir":
        raise ValueError(
            "Can only designate forced inlining in LTO-IR: forceinline=True needs "
            "output='ltoir' (a linker inlines LTO-IR across files; PTX is linked as it is)")
    library, resty, cc = _compile_library(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt,
                                          abi, abi_info, output, forceinline, launch_bounds)
    code = library.get_ltoir(cc) if output == "ltoir" else library.get_ptx(cc)
    return code, resty


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
                opt=None, abi="c", abi_info=None, output="ltoir", forceinline=False,
                launch_bounds=None):
    """As :func:`compile`, but ``([code, ...], return_type)``: the function's code first, then
    the code of every file it links (``link=`` of the device functions it calls,
    ``cuda.declare_device(..., link=...)``): CUDA C/C++ sources compiled with NVRTC to the same
    ``output`` (``"ltoir"``, the default, or ``"ptx"``), other files as their
    :mod:`numba_cuda.linking` code objects (``Cubin``, ``Fatbin``, ``LTOIR`` ...), as NVIDIA's
    numba-cuda returns them, to hand to a linker of one's own."""
    from ..linking import linkable, nvrtc as nvrtc_compiler

    if forceinline and output == "ptx":
        raise ValueError("forceinline=True needs output='ltoir' in compile_all: inlining across "
                         "the returned codes happens when they are linked with LTO")
    library, resty, cc = _compile_library(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt,
                                          abi, abi_info, output, forceinline, launch_bounds)
    codes = [library.get_ltoir(cc) if output == "ltoir" else library.get_ptx(cc)]
    for item in library.all_link_files():
        obj = linkable.as_linkable(item)
        if obj.kind == "cu":
            codes.append(nvrtc_compiler.compile_source(obj, cc, output=output, name=obj.name,
                                                       lineinfo=bool(lineinfo), debug=bool(debug)))
        else:
            codes.append(obj)
    return codes, resty


_C_SYMBOL = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def c_abi_name(pyfunc, abi_info):
    """The symbol of an ``abi="c"`` function: ``abi_info["abi_name"]`` (a ValueError unless a C
    identifier: PTX takes no other), else the Python name with the characters a symbol cannot
    hold escaped as Numba's mangler escapes them (``<lambda>`` -> ``_3clambda_3e``)."""
    name = (abi_info or {}).get("abi_name")
    if name is not None:
        if not isinstance(name, str) or not _C_SYMBOL.match(name):
            raise ValueError(f"abi_info['abi_name'] must be a C identifier (letters, digits, _ "
                             f"and $, not starting with a digit), not {name!r}")
        return name
    name = pyfunc.__name__
    if _C_SYMBOL.match(name):
        return name
    from numba.core.itanium_mangler import _escape_string

    escaped = _escape_string(name)
    return escaped if _C_SYMBOL.match(escaped) else f"_{escaped}"


def compile_to_library(pyfunc, sig, options, device=True, abi="numba", abi_info=None):
    """Front end + lowering once: ``(CUDACodeLibrary, return_type)``, whose ``get_ptx(cc)`` /
    ``get_ltoir(cc)`` make code for any compute capability (each cached)."""
    args, return_type = sigutils.normalize_signature(sig)
    if getattr(pyfunc, "targetdescr", None) is cuda_target:  # a CUDADispatcher
        pyfunc = pyfunc.py_func
    # generators and async def: the error cuda.jit gives (Numba would compile a generator)
    check_function(pyfunc, api="cuda.compile")
    cres = compile_cuda(pyfunc, return_type, args, options)
    resty = cres.signature.return_type
    if device:
        library = exported_library(cres, options.nvvm_options(), abi,
                                   c_abi_name(pyfunc, abi_info) if abi == "c" else None)
    else:
        from .kernel import CompiledKernel

        library = CompiledKernel(cres, options).library  # (which refuses a non-void return)
    return library, resty


def exported_library(cres, nvvm_options, abi="numba", abi_name=None):
    """A code library linking ``cres.library`` (a device function's) that exports its function:
    the Numba-ABI function itself (``abi="numba"``), or a C-ABI wrapper named ``abi_name``
    (``abi="c"``).  A device function's own library exports nothing (its functions are
    ``linkonce_odr``, kept only where a kernel calls them): its PTX would be empty."""
    targetctx = cuda_target.target_context
    library = targetctx.codegen().create_library(f"{cres.fndesc.qualname}.export",
                                                 nvvm_options=nvvm_options)
    library.add_linking_library(cres.library)
    if abi == "c":
        targetctx.make_c_abi_wrapper(library, cres.fndesc, abi_name)
    else:
        library.exported_names.add(cres.fndesc.llvm_func_name)
    library.finalize()
    return library


def compile_ptx(pyfunc, sig, device=False, cc=None, fastmath=False, opt=True, lineinfo=False,
                abi="numba", abi_info=None, debug=None, forceinline=False, launch_bounds=None):
    """Compile to PTX; returns ``(ptx, return_type)``.  Kernels by default (``device=False``)."""
    check_function(getattr(pyfunc, "py_func", pyfunc), api="cuda.compile_ptx")
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=cc, opt=opt, abi=abi, abi_info=abi_info, output="ptx",
                   forceinline=forceinline, launch_bounds=launch_bounds)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declare an external device function ``name`` with signature ``sig``, optionally with
    files to link; returns an object callable in kernels (an :class:`.external.ExternalDeviceFunction`).

    ``abi="numba"`` (default): Numba's device ABI, ``int name(ret*, args...)`` (0 for success);
    ``abi="c"``: the C ABI, ``ret name(args...)``.  ``use_cooperative=True``: the function
    synchronises the grid, so kernels that call it are launched cooperatively.
    """
    from .external import ABIS, ExternalDeviceFunction

    if abi not in ABIS:
        raise NotImplementedError(f"Unsupported ABI: {abi!r} (declare_device's abi must be "
                                  f"'numba' or 'c')")

    args, return_type = sigutils.normalize_signature(sig)
    if return_type is None:
        raise TypeError(f"declare_device({name!r}, ...) needs a return type in the signature")
    for what, ty in [("the return type", return_type)] + [
            (f"argument {i}", argty) for i, argty in enumerate(args, start=1)]:
        found = _host_only_type(ty)
        if found is not None:
            inner, problem = found
            where = f"{what} is {ty}" if inner is ty else f"{what} ({ty}) holds {inner}"
            raise TypeError(
                f"declare_device({name!r}, {str(sig)!r}): {where}, {problem}, which CUDA "
                "device code cannot pass; declared device functions take and return numbers, "
                "booleans, arrays, pointers (voidptr, CPointer(...)), records, vector types and "
                "tuples of them")
    if link is not None and not isinstance(link, (list, tuple, set)):
        link = [link]  # one path or one LinkableCode
    return ExternalDeviceFunction(name, return_type, tuple(args), list(link or ()),
                                  use_cooperative=use_cooperative, abi=abi)


#: Types that exist only on the host: Python objects, and what Numba allocates through its
#: runtime (strings, lists, sets, dicts), which CUDA code does not have.
_HOST_ONLY = (
    (types.PyObject, "a Python object"),
    (types.UnicodeType, "a string (it needs dynamic memory allocation)"),
    (types.Bytes, "a bytes object (it needs dynamic memory allocation)"),
    (types.List, "a list (it needs dynamic memory allocation)"),
    (types.ListType, "a typed list (it needs dynamic memory allocation)"),
    (types.Set, "a set (it needs dynamic memory allocation)"),
    (types.DictType, "a dict (it needs dynamic memory allocation)"),
    (types.Dispatcher, "a Python function"),
    (types.Module, "a Python module"),
)


#: Numba's opaque stand-ins for host objects (other opaque types, user-defined handles
#: included, are pointers device code can pass).
_HOST_OBJECTS = tuple(getattr(types, name) for name in (
    "ffi_forced_object", "ffi", "pyfunc_type", "code_type", "py2_string_type")
    if hasattr(types, name))


def _host_only_type(ty):
    """``(the type, what makes it unusable in device code)`` for ``ty`` or a type inside it
    (tuple items, pointees, an optional's type), or None."""
    if any(ty is host for host in _HOST_OBJECTS):
        return ty, "a Python object"
    for cls, words in _HOST_ONLY:
        if isinstance(ty, cls):
            return ty, words
    inner = ()
    if isinstance(ty, types.BaseTuple):
        inner = tuple(ty.types)
    elif isinstance(ty, types.CPointer):
        inner = (ty.dtype,)
    elif isinstance(ty, types.Optional):
        inner = (ty.type,)
    for item in inner:
        found = _host_only_type(item)
        if found is not None:
            return found
    return None


# ---- NVIDIA's numba.cuda.compiler entry points, in their form ------------------------------
# (``numba.cuda.compiler.compile_cuda`` / ``cabi_wrap_function``: nvmath-python compiles its FFT
# prolog and epilog callbacks with them, then ``numba.cuda.cudadrv.nvvm.compile_ir``.)


def peer_compile_cuda(pyfunc, return_type, args, debug=False, lineinfo=False, forceinline=False,
                      fastmath=False, nvvm_options=None, cc=None, max_registers=None, lto=False,
                      abi="numba", abi_info=None):
    """NVIDIA's ``compile_cuda``: the front end and lowering of ``pyfunc`` for ``return_type`` and
    ``args``, giving Numba's ``CompileResult`` (``library``, ``fndesc``, ``target_context``,
    ``signature`` ...) of a device function.  Of ``nvvm_options`` (Numba's keyword form) only
    ``opt`` changes the generated code here; ``arch``, ``gen-lto`` and the rest are the
    options of the libNVVM compile that follows (``numba.cuda.cudadrv.nvvm.compile_ir``), and
    ``cc`` is that compile's too.  ``abi="c"``: use :func:`cabi_wrap_function` on the result (or
    ``cuda.compile(..., abi="c")``)."""
    if abi != "numba":
        raise ValueError(f"compile_cuda compiles with abi='numba' (got {abi!r}); wrap the result "
                         "with numba.cuda.compiler.cabi_wrap_function, or use "
                         "cuda.compile(pyfunc, sig, abi='c')")
    opt = (nvvm_options or {}).get("opt")
    options = CompileOptions.from_user(debug=debug, lineinfo=lineinfo, fastmath=fastmath,
                                       opt=None if opt is None else bool(opt),
                                       inline=bool(forceinline), max_registers=max_registers,
                                       lto=lto)
    if getattr(pyfunc, "targetdescr", None) is cuda_target:  # a CUDADispatcher
        pyfunc = pyfunc.py_func
    with collection_pause.paused():
        return compile_cuda(pyfunc, return_type, tuple(args), options)


def cabi_wrap_function(context, lib, fndesc, wrapper_function_name, nvvm_options=None):
    """NVIDIA's ``cabi_wrap_function``: a new code library linking ``lib`` that exports
    ``wrapper_function_name``, a C-ABI function (``ret f(args)``) calling ``fndesc``'s
    Numba-ABI one; its ``llvm_strs`` are what to compile with libNVVM.  ``nvvm_options`` in
    Numba's keyword form: its ``opt`` is the library's (``get_ptx``/``get_ltoir``)."""
    opt = (nvvm_options or {}).get("opt", 3)
    library = context.codegen().create_library(f"{fndesc.qualname}.cabi",
                                               nvvm_options=nvvm.option_strings({"opt": opt}))
    library.add_linking_library(lib)
    context.make_c_abi_wrapper(library, fndesc, wrapper_function_name)
    library.finalize()
    return library


def peer_compile_pyfunc_with_fixup(pyfunc, sig, debug=None, lineinfo=False, device=True,
                                   fastmath=False, cc=None, opt=None, abi="c", abi_info=None,
                                   forceinline=False, launch_bounds=None, lto=False):
    """NVIDIA's ``numba.cuda.compiler._compile_pyfunc_with_fixup``: ``(library, return_type)``,
    the code library that :func:`compile` and :func:`compile_all` make code of (a kernel, or a
    device function exported in ``abi``), not yet compiled by libNVVM.  Its ``get_llvm_str()``
    is the NVVM IR of every module (each starting ``; ModuleID``), ``get_asm_strs(cc)`` the PTX
    (one string in a list), ``get_ltoir(cc)`` the LTO-IR and ``_linking_files`` the files to link.
    The options are :func:`compile`'s; ``lto=True`` says that LTO-IR will be asked for (here
    either is made on request, so it changes nothing).  A bad ``abi`` or ``abi="c"`` for a kernel
    is a ``NotImplementedError``, ``forceinline=True`` for a kernel a ``ValueError``, as there."""
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels: forceinline=True is for device functions "
                         "(device=True), which it inlines into their callers")
    library, resty, _cc = _compile_library(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt,
                                           abi, abi_info, "ltoir" if lto else "ptx", forceinline,
                                           launch_bounds)
    return library, resty

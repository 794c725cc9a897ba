"""The CUDA compiler: Python functions to NVVM IR (Numba front end + this target) to PTX (libNVVM).

Modules, each named for what it holds:

* ``target``          -- target options and the target descriptor (``cuda_target``)
* ``numba_registry``  -- what the compiler reads from Numba's registries (filled by the dispatch layer)
* ``typing_context``  -- the CUDA typing context (installs the kernel-language typing registries)
* ``target_context``  -- the CUDA target context, call convention, kernel wrapper
* ``deferred_impls``  -- Numba's array/string/inlining modules, imported when a compile needs them
* ``kernel_wrapper``  -- kernel wrappers reused as text templates (one per signature kind)
* ``codelibrary``     -- code library and codegen holding NVVM IR text (never an LLVM backend)
* ``nvvmir``          -- NVVM data layout, ``!nvvmir.version``, kernel annotations, LLVM-7 reader fixes
* ``nvvm``            -- libNVVM through ``cuda.bindings.nvvm``; libdevice; NvvmError
* ``capability``      -- compute capabilities: supported set, default, validation
* ``libdevice``       -- hook for the kernel language: emit calls to ``__nv_*`` libdevice functions
* ``pipeline``        -- compiler pipeline (``CUDACompiler``), ``compile_cuda``, ``CompileOptions``
* ``lowering``        -- ``CUDALower``, Numba's ``Lower`` for this target
* ``device_errors``   -- exceptions raised on the device, reported on the host
* ``kernel``          -- ``CompiledKernel`` (one per signature), made into a ``KernelImage`` per cc
* ``nrt``             -- the device NRT (``NUMBA_CUDA_ENABLE_NRT``): its NVVM IR, lowering interface
* ``api``             -- ``compile``, ``compile_ptx``, ``compile_to_library``, ``declare_device``

A pure stage: a Python function, a signature and options in; a ``CompiledKernel`` /
``KernelImage`` (``numba_cuda.common.kernel_image``: PTX or LTO-IR, entry name, argument types,
link files, cooperative flag, debug/lineinfo, max registers, cc, error record) out.  It imports ``toolkit``, ``lang``, ``linking`` and Numba,
never ``runtime``, ``caching`` or ``dispatch`` (``cuda.jit``, ``CUDADispatcher``, launching and
registration with Numba are in ``numba_cuda.dispatch``); ``lint-imports`` checks this.
Nothing here is imported by ``import numba.cuda``.
"""

#: ``from numba.cuda.compiler import compile_ptx`` (Numba's and NVIDIA's path for these entry
#: points) resolves them from ``api`` on first use, keeping this package's import free.
_ENTRY_POINTS = ("compile", "compile_ptx", "declare_device", "compile_all")

#: NVIDIA's numba.cuda.compiler also offers these; they need the current device, which this
#: pure stage knows nothing of, so the names are the public API's (``numba.cuda.X``, made by the
#: dispatch layer), reached through the package's public face when first asked for.
_DEVICE_ENTRY_POINTS = ("compile_for_current_device", "compile_ptx_for_current_device")


#: NVIDIA's numba.cuda.compiler functions in their own form (nvmath-python compiles callbacks
#: with them): name -> the function of ``api`` that is it (``compile_cuda`` with keyword options,
#: not ``pipeline.compile_cuda``).
_PEER_ENTRY_POINTS = {"compile_cuda": "peer_compile_cuda", "cabi_wrap_function": "cabi_wrap_function",
                      # (cuda.cccl compiles operators with it, then reads the library's IR)
                      "_compile_pyfunc_with_fixup": "peer_compile_pyfunc_with_fixup"}


#: The compiler pipeline's classes, under NVIDIA's (and Numba's built-in target's) names there.
_PIPELINE_CLASSES = ("CUDACompiler", "CUDABackend", "CUDANativeLowering")


def __getattr__(name):
    if name in _ENTRY_POINTS:
        from . import api

        return getattr(api, name)
    if name in _DEVICE_ENTRY_POINTS:
        import numba_cuda

        return getattr(numba_cuda, name)
    if name in _PEER_ENTRY_POINTS:
        # (they compile when called: first the public face, which registers the target with
        # Numba as the first cuda.compile does; the compiler never imports the dispatch layer)
        import numba_cuda

        numba_cuda.compile  # noqa: B018
        from . import api

        return getattr(api, _PEER_ENTRY_POINTS[name])
    if name in _PIPELINE_CLASSES:  # NVIDIA's module holds its pipeline; ours is in ``pipeline``
        from . import pipeline

        return getattr(pipeline, name)
    if name == "ExternFunction":  # NVIDIA's name for the class of what declare_device returns
        from .external import ExternalDeviceFunction

        return ExternalDeviceFunction
    if name in ("run_frontend", "CompilerBase"):  # NVIDIA's re-exports of Numba's front end
        from numba.core import compiler

        return getattr(compiler, name)
    if name == "PassManager":
        from numba.core.compiler_machinery import PassManager

        return PassManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

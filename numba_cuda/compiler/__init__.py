"""The CUDA compiler: Python functions to NVVM IR (Numba front end + this target) to PTX (libNVVM).

Modules, each named for what it holds:

* ``target``          -- registration in Numba's target registry, target options, the target descriptor
* ``typing_context``  -- the CUDA typing context (installs the kernel-language typing registries)
* ``target_context``  -- the CUDA target context, call convention, kernel wrapper
* ``kernel_wrapper``  -- kernel wrappers reused as text templates (one per signature kind)
* ``codelibrary``     -- code library and codegen holding NVVM IR text (never an LLVM backend)
* ``nvvmir``          -- NVVM data layout, ``!nvvmir.version``, kernel annotations, LLVM-7 reader fixes
* ``nvvm``            -- libNVVM through ``cuda.bindings.nvvm``; libdevice; NvvmError
* ``capability``      -- compute capabilities: supported set, default, validation
* ``libdevice``       -- hook for the kernel language: emit calls to ``__nv_*`` libdevice functions
* ``intrinsics``      -- hook for the kernel language: NVVM intrinsics, special registers, address spaces
* ``pipeline``        -- compiler pipeline, ``compile_cuda``, ``CUDACompileResult``
* ``kernel``          -- ``CompiledKernel`` (one per signature) and ``KernelImage`` (one per cc)
* ``dispatcher``      -- ``CUDADispatcher`` (``kernel[grid, block](...)``) and device dispatchers
* ``api``             -- ``jit``, ``compile``, ``compile_ptx``, ``declare_device`` ...

Nothing here is imported by ``import numba.cuda``; the target is registered with Numba when
``numba_cuda.compiler.target`` is first imported (which ``api`` does).
"""

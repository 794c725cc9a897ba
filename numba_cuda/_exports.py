"""Where each public ``numba.cuda`` name lives.

``numba_cuda/__init__.py`` resolves names lazily through this table so that
``from numba import cuda`` imports almost nothing.  Each subsystem owns its
section; add a name here when you add it to the public API.  Names not listed
fall back to importing a submodule of the same name (``cuda.random``).

With ``NUMBA_ENABLE_CUDASIM=1`` every name is looked up in
``numba_cuda.simulator.api`` instead, which must provide the same public API.
"""

# ---- dispatch layer: decorators and compile entry points --------------------
# (``numba_cuda.dispatch.api`` registers the target with Numba, then hands out the compiler's
# ``compile``/``compile_ptx``/``declare_device`` and its own ``jit``.)
_COMPILER = "numba_cuda.dispatch.api"
COMPILER = {
    name: _COMPILER
    for name in (
        "jit",
        "compile",
        "compile_ptx",
        "compile_ptx_for_current_device",
        "compile_for_current_device",
        "compile_all",
        "declare_device",
    )
}

# ---- kernel language: objects usable inside kernels -------------------------
_STUBS = "numba_cuda.lang.stubs"
# CUDA vector types: <base>x<n> and the C spellings (float4 is float32x4), n = 1..4
_VECTOR_TYPES = tuple(
    f"{name}{sep}{n}"
    for base, aliases in (
        ("int8", "char"), ("int16", "short"), ("int32", "int"), ("int64", "long longlong"),
        ("uint8", "uchar"), ("uint16", "ushort"), ("uint32", "uint"), ("uint64", "ulong ulonglong"),
        ("float32", "float"), ("float64", "double"),
    )
    for name, sep in [(base, "x")] + [(alias, "") for alias in aliases.split()]
    for n in range(1, 5)
)
KERNEL_LANGUAGE = {
    name: _STUBS
    for name in (
        # indexing
        "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize",
        "grid", "gridsize",
        # memory
        "shared", "local", "const",
        # synchronisation and fences
        "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
        "syncwarp", "threadfence", "threadfence_block", "threadfence_system",
        # atomics
        "atomic",
        # loads and stores with a cache operator
        "ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt",
        # bit and arithmetic intrinsics
        "popc", "clz", "ffs", "brev", "fma", "cbrt", "selp",
        # warp-level (issue 5)
        "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
        "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
        "match_all_sync", "activemask", "lanemask_lt",
        # misc (issue 5)
        "nanosleep", "fp16", "cg",
        # half precision, bfloat16 and vector types (issue 5)
        "bf16", *_VECTOR_TYPES,
        # tensor cores (issue 23)
        "wmma",
    )
}

# ---- runtime: devices, memory, streams, events, interop ---------------------
_RUNTIME = "numba_cuda.runtime.api"
RUNTIME = {
    name: _RUNTIME
    for name in (
        "is_available", "detect", "gpus", "list_devices", "select_device",
        "get_current_device", "current_context", "close", "require_context",
        "to_device", "device_array", "device_array_like", "pinned_array",
        "pinned_array_like", "mapped_array", "mapped_array_like",
        "managed_array", "pinned", "mapped",
        "stream", "default_stream", "per_thread_default_stream",
        "legacy_default_stream", "external_stream", "event", "synchronize",
        "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
        "DeviceNDArray", "profile_start", "profile_stop", "profiling",
        "defer_cleanup", "event_elapsed_time", "from_dlpack",
        # CUDA graphs (stream capture and replay)
        "graph", "Graph",
    )
}

# ---- External Memory Management (EMM plugins) and IPC --------------------------------
MEMORY_MANAGEMENT = {
    "BaseCUDAMemoryManager": "numba_cuda.common.emm",
    "MemoryInfo": "numba_cuda.common.emm",
    "HostOnlyCUDAMemoryManager": "numba_cuda.runtime.memory_managers",
    "GetIpcHandleMixin": "numba_cuda.runtime.ipc",
    "MemoryPointer": "numba_cuda.runtime.memory_pointers",
    "MappedMemory": "numba_cuda.runtime.memory_pointers",
    "PinnedMemory": "numba_cuda.runtime.memory_pointers",
    "IpcHandle": "numba_cuda.runtime.ipc",
    "set_memory_manager": "numba_cuda.runtime.memory_managers",
    "open_ipc_array": _RUNTIME,
}

# ---- ufuncs and reductions (numba_cuda.ufuncs) ----------------------------------
_UFUNCS = "numba_cuda.ufuncs.reduction"
UFUNCS = {name: _UFUNCS for name in ("reduce", "Reduce")}
UFUNCS.update({name: "numba_cuda.ufunc_decorators" for name in ("vectorize", "guvectorize")})

# ---- what the compiler supports on this installation ----------------------------
SUPPORT_QUERIES = {
    "is_float16_supported": "numba_cuda.lang.fp16",
    "is_bfloat16_supported": "numba_cuda.lang.bf16",
    "is_fp8_supported": "numba_cuda.lang.fp8",
}

# ---- Numba's types: ``from numba.cuda import float32, void`` (NVIDIA's numba-cuda) ----
# The same objects as ``numba.types.<name>``: the names of ``numba.core.types.__all__`` that
# every supported NumPy has (listed here, so that this table imports nothing; ``bool`` and
# ``float_`` depend on the NumPy major and stay in ``numba.cuda.types``).
NUMBA_TYPE_NAMES = (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "intp", "uintp", "intc", "uintc", "ssize_t", "size_t", "boolean",
    "float32", "float64", "complex64", "complex128", "bool_", "byte", "char", "uchar",
    "short", "ushort", "int_", "uint", "long_", "ulong", "longlong", "ulonglong", "double",
    "void", "none", "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8",
    "c16", "optional", "ffi_forced_object", "ffi", "deferred_type",
)
TYPES = {name: "numba_cuda.types" for name in NUMBA_TYPE_NAMES}
TYPES["bfloat16"] = "numba_cuda.types"  # cuda.bfloat16: the Numba type (callable in kernels)

# ---- in-memory link items: ``link=[cuda.CUSource(src)]`` (NVIDIA's numba-cuda) -----
LINKABLE_CODE = {
    name: "numba_cuda.linking.linkable"
    for name in ("LinkableCode", "CUSource", "PTXSource", "Cubin", "Fatbin", "Object",
                 "Archive", "LTOIR")
}

# ---- Numba names NVIDIA's numba-cuda re-exports -----------------------------------
NUMBA_REEXPORTS = {"literal_unroll": "numba.misc.special"}

# ---- names existing code touches beyond the documented API (both targets have them) ---
SURFACE = {
    "In": "numba_cuda.common.args",
    "Out": "numba_cuda.common.args",
    "InOut": "numba_cuda.common.args",
    "CudaError": "numba_cuda.errors",
    "CudaSupportError": "numba_cuda.errors",
    "LaunchConfigError": "numba_cuda.errors",
    "NotAvailableInSimulator": "numba_cuda.errors",
    "KernelRuntimeError": "numba_cuda.errors",
    # NVIDIA's numba-cuda has these at the top level too (the numba.cuda.types classes)
    "Dim3": "numba_cuda.types",
    "GridGroup": "numba_cuda.types",
    "GraphCaptureError": "numba_cuda.errors",
    "GraphUpdateError": "numba_cuda.errors",
    "DeviceRecord": "numba_cuda.runtime.devicearray",
    "MappedNDArray": "numba_cuda.runtime.devicearray",
    "ManagedNDArray": "numba_cuda.runtime.devicearray",
    "Stream": "numba_cuda.runtime.streams",
    "Event": "numba_cuda.runtime.streams",
    "auto_device": "numba_cuda.cudadrv.devicearray",
    # NVIDIA's: Numba's configured default cc (NUMBA_CUDA_DEFAULT_PTX_CC, else Numba's 5.0)
    "config_default_cc": "numba_cuda.compiler.capability",
    "is_supported_version": _RUNTIME,
    "cuda_error": _RUNTIME,
    # Numba's numba.cuda has these cudadrv modules as attributes (cuda.devicearray.DeviceNDArray)
    "devicearray": "numba_cuda.cudadrv",
    "devices": "numba_cuda.cudadrv",
    "driver": "numba_cuda.cudadrv",
}

GPU = {**COMPILER, **KERNEL_LANGUAGE, **RUNTIME, **UFUNCS, **SUPPORT_QUERIES, **TYPES,
       **LINKABLE_CODE, **NUMBA_REEXPORTS, **MEMORY_MANAGEMENT, **SURFACE}

SIMULATOR_API = "numba_cuda.simulator.api"

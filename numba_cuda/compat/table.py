"""The compat yard's one table: every old or peer module path, and the module it is.

Each row maps a path under ``numba_cuda`` (``numba.cuda.X`` is ``numba_cuda.X`` through the
redirector) to ``(GPU target module, simulator module)``: the module that the path *is* on the
real target and under ``NUMBA_ENABLE_CUDASIM=1``.  :class:`numba_cuda.compat.CompatFinder`
serves the table: importing a row's path yields the very module object of its target (never a
copy).

* A row covers its path and everything below it: ``numba_cuda.core`` -> ``numba.core`` also
  makes ``numba_cuda.core.config`` be ``numba.core.config``.  The longest matching row wins
  (``numba_cuda.cudadrv.nvrtc`` is its own row inside the ``numba_cuda.cudadrv`` one).
* ``None`` in a column: no row on that target; the path is the module of that name in the
  package (``numba_cuda.libdevice`` on the GPU target is ``numba_cuda/libdevice.py``).
* A target ``module:name`` is an object of a module that serves as the module of the path
  (``numba.cuda.bf16`` is the ``cuda.bf16`` namespace); ``module:name()`` is what calling it
  returns (made once: the import system keeps it).  Such a row has no subtree.
* A target under ``numba_cuda.compat.gpu`` or ``numba_cuda.compat.simulator`` is a module of
  compat code (names arranged as the old module had them); every other target is the real
  module, in its real room.

Where the rows come from: Numba's built-in ``numba.cuda`` (``cudadrv``, ``stubs``,
``kernels`` ...), NVIDIA's numba-cuda (its copies of Numba's modules, ``numba.cuda.core`` ...,
``descriptor``, ``flags``, ``vector_types`` ...) and this package's own earlier layout (the
modules that moved into ``compat``: pickles and caches naming them still load).
Tests (``tests/compat/test_module_aliases.py``) import every row on both targets.
"""

#: Column indices of a row.
GPU, SIMULATOR = 0, 1


def _both(target):
    return (target, target)


_GPU_SIDE = "numba_cuda.compat.gpu"
_SIM_SIDE = "numba_cuda.compat.simulator"

ROWS = {
    # ---- Numba's own modules, which NVIDIA's numba-cuda ships copies of under numba.cuda ----
    "numba_cuda.core": _both("numba.core"),
    "numba_cuda.typing": _both("numba.core.typing"),
    "numba_cuda.datamodel": _both("numba.core.datamodel"),
    "numba_cuda.typeconv": _both("numba.core.typeconv"),
    "numba_cuda.np": _both("numba.np"),
    "numba_cuda.misc": _both("numba.misc"),
    "numba_cuda.cloudpickle": _both("numba.cloudpickle"),
    "numba_cuda.cgutils": _both("numba.core.cgutils"),
    "numba_cuda.config": _both("numba.core.config"),
    "numba_cuda.serialize": _both("numba.core.serialize"),
    "numba_cuda.utils": _both("numba.core.utils"),
    # ---- modules of this package under the names Numba or NVIDIA gave them ----
    "numba_cuda.stubs": _both("numba_cuda.lang.stubs"),
    "numba_cuda.descriptor": _both("numba_cuda.compiler.target"),
    "numba_cuda.flags": _both("numba_cuda.compiler.target"),  # Flags and CUDAFlags
    "numba_cuda.target": _both(f"{_GPU_SIDE}.target"),
    "numba_cuda.cudadecl": _both(f"{_GPU_SIDE}.cudadecl"),
    "numba_cuda.cudaimpl": _both(f"{_GPU_SIDE}.cudaimpl"),
    "numba_cuda.itanium_mangler": _both(f"{_GPU_SIDE}.itanium_mangler"),
    "numba_cuda.libdevicefuncs": _both(f"{_GPU_SIDE}.libdevicefuncs"),
    "numba_cuda.vectorizers": _both(f"{_GPU_SIDE}.vectorizers"),
    "numba_cuda.driver_ctypes": _both(f"{_GPU_SIDE}.driver_ctypes"),
    "numba_cuda.driver_enums": _both(f"{_GPU_SIDE}.driver_enums"),
    "numba_cuda.kernels": _both(f"{_GPU_SIDE}.kernels"),
    "numba_cuda.models": _both(f"{_GPU_SIDE}.models"),  # register_model for the CUDA target
    # ---- per target: the module of the target in use ----
    "numba_cuda.api": ("numba_cuda.runtime.api", "numba_cuda.simulator.api"),
    "numba_cuda.decorators": ("numba_cuda.dispatch.api", "numba_cuda.simulator.api"),
    "numba_cuda.dispatcher": ("numba_cuda.dispatch.dispatcher", f"{_SIM_SIDE}.dispatcher"),
    "numba_cuda.vector_types": (f"{_GPU_SIDE}.vector_types", "numba_cuda.simulator.vector_types"),
    "numba_cuda.libdevice": (None, "numba_cuda.simulator.libdevice"),
    "numba_cuda.kernels.reduction": ("numba_cuda.ufuncs.reduction",
                                     "numba_cuda.simulator.reduction"),
    # ---- this package's modules that moved to the shared floor, numba_cuda/common/ ----
    **{f"numba_cuda.{name}": _both(f"numba_cuda.common.{name}") for name in (
        "args", "array_layout", "cuda_array_interface", "emm", "emm_memory", "error_record",
        "launch_dims", "pickling", "unsupported")},
    # ---- the kernel-language namespaces as modules (``import numba.cuda.bf16``) ----
    "numba_cuda.bf16": ("numba_cuda.lang.stubs:bf16", "numba_cuda.simulator.bfloat16:bf16"),
    "numba_cuda.fp16": ("numba_cuda.lang.stubs:fp16", "numba_cuda.simulator.kernelapi:fp16"),
    "numba_cuda.fp8": ("numba_cuda.lang.fp8", "numba_cuda.simulator.fp8"),
    "numba_cuda._internal": _both(f"{_GPU_SIDE}.internal"),  # NVIDIA's private package
    "numba_cuda._internal.cuda_bf16": ("numba_cuda.lang.bf16:peer_internal_module()",
                                       "numba_cuda.simulator.bfloat16:peer_internal_module()"),
    # ---- NVIDIA's modules with no file of their own here (the same on both targets) ----
    "numba_cuda.deviceufunc": _both("numba_cuda.ufuncs.schedule"),  # GUFuncEngine ...
    "numba_cuda._compat": _both("numba_cuda.runtime.cuda_core_version"),  # CUDA_CORE_GE_1_0 ...
    "numba_cuda.cuda_paths": _both("numba_cuda.toolkit.cuda_paths"),  # get_cuda_paths ...
    # Numba's and NVIDIA's codegen module (CUDACodeLibrary, CUDACodegen; the compiler's, which
    # imports under the simulator too, where the peers' fails to import)
    "numba_cuda.codegen": _both("numba_cuda.compiler.codelibrary"),
    # ---- Numba's cudadrv package, on each target ----
    "numba_cuda.cudadrv": (f"{_GPU_SIDE}.cudadrv", f"{_SIM_SIDE}.cudadrv"),
    "numba_cuda.cudadrv.drvapi": _both(f"{_GPU_SIDE}.driver_ctypes"),
    "numba_cuda.cudadrv.enums": _both(f"{_GPU_SIDE}.driver_enums"),
    "numba_cuda.cudadrv.nvrtc": _both("numba_cuda.linking.nvrtc"),
    "numba_cuda.cudadrv.linkable_code": _both("numba_cuda.linking.linkable"),
    "numba_cuda.cudadrv.dummyarray": _both("numba_cuda.runtime.array_views"),  # Array.from_desc
    # ---- the simulator's cudadrv package of Numba's and NVIDIA's simulators ----
    "numba_cuda.simulator.cudadrv": _both(f"{_SIM_SIDE}.cudadrv"),
    "numba_cuda.simulator.cudadrv.drvapi": _both(f"{_GPU_SIDE}.driver_ctypes"),
    "numba_cuda.simulator.cudadrv.enums": _both(f"{_GPU_SIDE}.driver_enums"),
    "numba_cuda.simulator.cudadrv.nvrtc": _both("numba_cuda.linking.nvrtc"),
    "numba_cuda.simulator.cudadrv.linkable_code": _both("numba_cuda.linking.linkable"),
    "numba_cuda.simulator.cudadrv.dummyarray": _both("numba_cuda.runtime.array_views"),
}


#: Names a row's target module gains when it is imported through the row (``target module ->
#: (module holding them, names)``): NVIDIA's numba-cuda keeps CUDA's calling conventions in its
#: copy of ``numba.core.callconv``, so ``numba.cuda.core.callconv`` (the very module
#: ``numba.core.callconv``) offers ``CUDACallConv`` and ``CUDACABICallConv`` too.
ADDED_NAMES = {
    "numba.core.callconv": ("numba_cuda.compiler.callconv", ("CUDACallConv", "CUDACABICallConv")),
    # numba.cuda.api: both peers' module offers the float16 query (NVIDIA's the bfloat16 and
    # FP8 ones too), which are the kernel language's here
    "numba_cuda.runtime.api": ("numba_cuda", ("is_float16_supported", "is_bfloat16_supported",
                                              "is_fp8_supported")),
    # NVIDIA's nvrtc module holds its arch helpers (nvmath-python looks for them there first)
    "numba_cuda.linking.nvrtc": ("numba_cuda.compat.gpu.cudadrv.nvvm",
                                 ("get_arch_option", "find_closest_arch", "_get_nvrtc_version")),
}


def target_of(fullname, column):
    """The module name ``fullname`` is on ``column`` (:data:`GPU` or :data:`SIMULATOR`), or None
    when no row covers it there."""
    prefix = fullname
    while True:
        row = ROWS.get(prefix)
        if row is not None:
            target = row[column]
            if target is None or ":" in target and prefix != fullname:
                return None  # (an object row has no subtree)
            return target + fullname[len(prefix):]
        cut = prefix.rfind(".")
        if cut < 0:
            return None
        prefix = prefix[:cut]


def resolve(target):
    """The module (or, for ``module:name[()]``, the object) a row's target names, imported."""
    import importlib

    if ":" not in target:
        return importlib.import_module(target)
    module, name = target.split(":")
    call = name.endswith("()")
    obj = getattr(importlib.import_module(module), name[:-2] if call else name)
    return obj() if call else obj

"""The kernel language: typing and lowering of ``cuda.*`` features, one module per family.

Each family module (``indexing``, ``memory``, ``sync``, ``atomics``,
``mathfuncs``, ``bits`` ...) defines two module-level objects:

* ``typing_registry``   -- a ``numba.core.typing.templates.Registry``
* ``lowering_registry`` -- a ``numba.core.imputils.Registry``

and lists itself in ``FAMILY_MODULES`` below.  The CUDA typing and target
contexts (``numba_cuda.compiler``) install every listed registry when they
are first built, except the deferred ones, installed at first use (the families
in ``STUB_TRIGGERED_FAMILIES`` below, and those of
``numba_cuda.compiler.typing_context.DEFERRED_FAMILIES``).  The Python-side
objects are in ``numba_cuda.lang.stubs``.
"""

FAMILY_MODULES = (
    # filled in by the families as they land, e.g. "numba_cuda.lang.indexing"
    "numba_cuda.lang.memory",
    "numba_cuda.lang.sync",
    "numba_cuda.lang.atomics",
    "numba_cuda.lang.mathfuncs",
    "numba_cuda.lang.bits",
    "numba_cuda.lang.warp",
    "numba_cuda.lang.printing",
    "numba_cuda.lang.libdevice_calls",
    "numba_cuda.lang.cg",
    "numba_cuda.lang.fp16",
    "numba_cuda.lang.vectortypes",
    "numba_cuda.lang.bf16",
    "numba_cuda.lang.bf16_conversions",
    "numba_cuda.lang.fp8",
    "numba_cuda.lang.cache_hints",
    "numba_cuda.lang.wmma",
    "numba_cuda.lang.extension_registries",
    "numba_cuda.lang.cmath_inverse",
    "numba_cuda.lang.literal_unroll",
    "numba_cuda.lang.numpy_ufuncs",
    "numba_cuda.lang.numpy_reductions",
    "numba_cuda.lang.cffi_buffers",
)

#: Families the compiler imports only when a kernel (or device function) names one of their
#: objects: every typing and lowering registration of these is keyed by the ``stubs`` named
#: here (a namespace such as ``"atomic"`` stands for itself and each of its members), so no code
#: reaches them without typing one of those first (``tests/lang/test_stub_triggered_families.py``
#: checks this against the registries).  Importing the module itself installs it too.  The
#: rest of ``FAMILY_MODULES`` is installed with the contexts: it also registers operators, casts
#: or builtins (``abs``, ``print``, ``math.*``) that any kernel may reach, or defines a hook the
#: contexts look for in the installed families (``memory.make_constant_array``: a global NumPy
#: array read in a kernel).
STUB_TRIGGERED_FAMILIES = {
    "numba_cuda.lang.sync": ("syncthreads", "syncthreads_count", "syncthreads_and",
                             "syncthreads_or", "syncwarp", "threadfence", "threadfence_block",
                             "threadfence_system", "nanosleep"),
    "numba_cuda.lang.atomics": ("atomic",),
    "numba_cuda.lang.bits": ("popc", "clz", "ffs", "brev", "fma", "cbrt", "selp"),
    "numba_cuda.lang.warp": ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
                             "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
                             "match_all_sync", "activemask", "lanemask_lt"),
    "numba_cuda.lang.cg": ("cg",),
    "numba_cuda.lang.cache_hints": ("ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs",
                                    "stwb", "stwt"),
    "numba_cuda.lang.wmma": ("wmma",),
}

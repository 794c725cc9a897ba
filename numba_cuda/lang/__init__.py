"""The kernel language: typing and lowering of ``cuda.*`` features, one module per family.

Each family module (``indexing``, ``memory``, ``sync``, ``atomics``,
``mathfuncs``, ``bits`` ...) defines two module-level objects:

* ``typing_registry``   -- a ``numba.core.typing.templates.Registry``
* ``lowering_registry`` -- a ``numba.core.imputils.Registry``

and lists itself in ``FAMILY_MODULES`` below.  The CUDA typing and target
contexts (``numba_cuda.compiler``) install every listed registry when they
are first built.  The Python-side objects are in ``numba_cuda.lang.stubs``.
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

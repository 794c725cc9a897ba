"""What the compiler reads from Numba's target registries for the ``cuda`` target.

Numba's ``target_registry`` already has the ``"cuda"`` target class
(``numba.core.target_extension.CUDA``); the dispatch layer (``numba_cuda.dispatch.registration``)
puts our dispatcher in ``dispatcher_registry`` and our ``jit`` in ``jit_registry``.  The compiler
only reads them here, and never imports the dispatch layer.
"""

from numba.core.target_extension import CUDA, dispatcher_registry, jit_registry

TARGET_NAME = "cuda"


def registered_jit():
    """The ``jit`` Numba's ``jit_registry`` holds for the ``cuda`` target (it makes device
    dispatchers: ``@overload(..., target="cuda")`` implementations, ``@njit`` helpers called
    from kernels).  The dispatch layer (``numba_cuda.dispatch.registration``) registers it;
    every public entry point (``cuda.jit``, ``cuda.compile_ptx`` ...) imports that first."""
    jit = jit_registry.get(CUDA)
    if jit is None:
        raise RuntimeError(
            "the CUDA target is not registered with Numba yet: import numba_cuda.dispatch "
            "(cuda.jit, cuda.compile_ptx ... do) before compiling with numba_cuda.compiler"
        )
    return jit


def registered_dispatcher_class():
    """The dispatcher class Numba's ``dispatcher_registry`` holds for the ``cuda`` target
    (None before the dispatch layer registered it)."""
    return dispatcher_registry.get(CUDA)

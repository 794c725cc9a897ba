"""Registration of the CUDA target's user-facing objects with Numba.

For Numba's existing ``"cuda"`` target class (``numba.core.target_extension.CUDA``, found in
``target_registry``) this puts ``CUDADispatcher`` in ``dispatcher_registry`` and
``overload_jit`` in ``jit_registry``, so that third-party ``@overload(..., target="cuda")`` and
``@intrinsic(target="cuda")`` reach our compiler.  Importing ``numba_cuda.dispatch`` (which
every public compile entry point does) registers; ``import numba.cuda`` alone does not.
"""

from numba.core.target_extension import CUDA, dispatcher_registry, jit_registry, target_registry

from ..compiler.target import TARGET_NAME
from .api import overload_jit
from .dispatcher import CUDADispatcher


class AlreadyRegisteredError(RuntimeError):
    pass


_registered = False


def ensure_registered():
    """Register our dispatcher and jit for Numba's ``cuda`` target class (idempotent)."""
    global _registered
    if not _registered:
        _register()
        _registered = True


def _register():
    target_cls = target_registry[TARGET_NAME]
    assert target_cls is CUDA
    existing = dispatcher_registry.get(CUDA)
    if existing is not None and existing is not CUDADispatcher:
        raise AlreadyRegisteredError(
            f"Numba's 'cuda' target already has the dispatcher {existing!r} (Numba's built-in CUDA "
            "target was imported, e.g. with NUMBA_CUDA_REDIRECT=0); numba-cuda cannot register. "
            "Do not import numba's built-in CUDA target in the same process."
        )
    if existing is None:
        dispatcher_registry[CUDA] = CUDADispatcher
    if jit_registry.get(CUDA) is None:
        jit_registry[CUDA] = overload_jit


ensure_registered()

"""The CUDA target: options, descriptor, and registration with Numba's target registry.

Importing this module registers, for Numba's existing ``"cuda"`` target class
(``numba.core.target_extension.CUDA``), our dispatcher in ``dispatcher_registry`` and our ``jit``
in ``jit_registry`` so that third-party ``@overload(..., target="cuda")`` and
``@intrinsic(target="cuda")`` reach this compiler.  Only the compiler imports it (on first use of
``cuda.jit``/``compile_ptx`` ...), never ``import numba.cuda``.
"""

import threading

from numba.core.compiler import Flags
from numba.core.descriptors import TargetDescriptor
from numba.core.options import TargetOptions
from numba.core.target_extension import (
    CUDA,
    dispatcher_registry,
    jit_registry,
    target_override,
    target_registry,
)

TARGET_NAME = "cuda"

_mapping = TargetOptions.Mapping


class CUDAFlags(Flags):
    """Numba compiler flags (no extra fields: CUDA-only options travel in ``CompileOptions``)."""


class CUDATargetOptions(TargetOptions):
    """``@cuda.jit`` options that become Numba flags.  Whatever the user passes, CUDA code is
    never compiled for the host and gets no CPython or cfunc wrapper."""

    fastmath = _mapping("fastmath")
    debug = _mapping("debuginfo")
    boundscheck = _mapping("boundscheck")
    nopython = _mapping("enable_pyobject", lambda v: not v)
    forceinline = _mapping("forceinline")
    no_cpython_wrapper = _mapping("no_cpython_wrapper")
    no_cfunc_wrapper = _mapping("no_cfunc_wrapper")

    def finalize(self, flags, options):
        flags.no_compile = True
        flags.no_cpython_wrapper = True
        flags.no_cfunc_wrapper = True
        flags.enable_pyobject = False
        flags.enable_looplift = False
        flags.enable_pyobject_looplift = False
        flags.nrt = False
        flags.inherit_if_not_set("fastmath")
        flags.inherit_if_not_set("error_model", default="python" if flags.debuginfo else "numpy")


class CUDATarget(TargetDescriptor):
    options = CUDATargetOptions

    def __init__(self, name):
        super().__init__(name)
        self._lock = threading.Lock()
        self._typingctx = None
        self._targetctx = None

    def _build(self):
        with self._lock:
            if self._targetctx is None:
                from .target_context import CUDATargetContext
                from .typing_context import CUDATypingContext

                typingctx = CUDATypingContext()
                self._targetctx = CUDATargetContext(typingctx, TARGET_NAME)
                self._typingctx = typingctx

    @property
    def typing_context(self):
        if self._typingctx is None:
            self._build()
        return self._typingctx

    @property
    def target_context(self):
        if self._targetctx is None:
            self._build()
        return self._targetctx


cuda_target = CUDATarget(TARGET_NAME)


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
    from .api import overload_jit
    from .dispatcher import CUDADispatcher

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


def compile_in_target(fn, *args, **kwargs):
    """Run ``fn`` with Numba's current target set to ``"cuda"`` (needed for target overloads)."""
    with target_override(TARGET_NAME):
        return fn(*args, **kwargs)


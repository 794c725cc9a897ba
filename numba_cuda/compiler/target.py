"""The CUDA target: options and descriptor for Numba's existing ``"cuda"`` target class
(``numba.core.target_extension.CUDA``).

The dispatch layer (``numba_cuda.dispatch.registration``) puts our dispatcher in Numba's
``dispatcher_registry`` and our ``jit`` in ``jit_registry``, so that third-party
``@overload(..., target="cuda")`` and ``@intrinsic(target="cuda")`` reach this compiler; the
compiler only reads those registries (``registered_jit``) and never imports the dispatch layer.
"""

import threading

from numba.core.compiler import Flags
from numba.core.descriptors import TargetDescriptor
from numba.core.options import TargetOptions

from ..common import jit_options
from .numba_registry import TARGET_NAME, registered_dispatcher_class, registered_jit  # noqa: F401

_mapping = TargetOptions.Mapping


class CUDAFlags(Flags):
    """Numba compiler flags (no extra fields: CUDA-only options travel in ``CompileOptions``)."""

    def get_mangle_string(self):
        # Numba's string (the summary of the flags set, compressed) is the ABI tag of every
        # function compiled; compressing it again is most of its cost.  Remembered per summary.
        summary = self.summary()
        answer = _MANGLE_STRINGS.get(summary)
        if answer is None:
            answer = super().get_mangle_string()
            if len(_MANGLE_STRINGS) >= 256:
                _MANGLE_STRINGS.clear()
            _MANGLE_STRINGS[summary] = answer
        return answer


#: ``Flags.summary()`` -> ``Flags.get_mangle_string()``
_MANGLE_STRINGS = {}


#: Options Numba's own machinery passes to a target's ``jit`` (``@overload``/``@intrinsic``
#: templates, ``register_jitable(_nrt=False)`` helpers in ``numba.cpython.unicode`` ...): the names
#: of ``numba.core.options.DefaultOptions`` that are not ``@cuda.jit`` options.  None changes CUDA
#: code (there is no NRT, no object mode, no CPython wrapper on the GPU); they are accepted and
#: ignored, except ``forceinline``, which is ``inline="always"``.  (The list is
#: ``numba_cuda.common.jit_options``', which both targets' ``cuda.jit`` read.)
NUMBA_INTERNAL_OPTIONS = jit_options.NUMBA_INTERNAL_OPTIONS


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
        flags.nrt = False  # the pipeline sets it from the NRT setting (see compiler.nrt)
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
                targetctx = CUDATargetContext(typingctx, TARGET_NAME)
                typingctx.cuda_target_context = targetctx  # refreshed with it (deferred families)
                self._targetctx = targetctx
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

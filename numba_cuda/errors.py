"""Exception types raised by numba-cuda.

Every failure that a user can act on is one of these, with a message that
names the problem and the fix.  Lower layers (ctypes, cuda-bindings,
cuda-pathfinder, libNVVM) never leak their own exceptions through the public
API: they are caught and re-raised as one of the classes below ``from None``
(the traceback shows ours, not forty lines of the bindings' internals), with
the original kept in the error's :attr:`~CudaError.cause` for debugging.
"""


class CudaError(Exception):
    """Base class of every numba-cuda error."""

    #: The lower-layer exception this error stands for (None when there is none).
    cause = None

    def with_cause(self, cause):
        """Keep ``cause`` in :attr:`cause` and return the error: ``raise
        SomeError(...).with_cause(exc) from None``."""
        self.cause = cause
        return self


class NumbaVersionError(CudaError, ImportError):
    """The installed Numba is outside the range this numba-cuda is tested against (the
    ``numba`` requirement of pyproject.toml); raised when ``numba_cuda`` is imported.

    ``NUMBA_CUDA_ALLOW_UNTESTED_NUMBA=1`` turns it into a warning.  Also an ``ImportError``:
    ``import numba.cuda`` then falls back to Numba's built-in target, with the redirector's
    warning.
    """


class CudaSupportError(CudaError, ImportError):
    """CUDA cannot be used in this process (no driver, no device, disabled).

    Also an ``ImportError`` so code written for Numba's built-in target, which
    caught ``numba.cuda.cudadrv.error.CudaSupportError``, keeps working.
    """


class ToolkitError(CudaError, RuntimeError):
    """A CUDA toolkit component is missing, broken or of the wrong CUDA major.

    The message names the component, every place that was searched with the
    reason each one failed, and the command that fixes the situation.
    """


class NvvmError(CudaError, RuntimeError):
    """libNVVM rejected the IR or failed to compile it; the message holds its log."""


class LinkerError(CudaError, RuntimeError):
    """Linking or loading device code failed (driver linker, nvJitLink, NVRTC)."""


class DriverError(CudaError, RuntimeError):
    """A CUDA driver call failed; ``code`` holds the driver's error code name."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class LaunchConfigError(CudaError, ValueError):
    """A kernel launch configuration is invalid for the device it targets."""


# Where Numba's built-in target raises another built-in exception class for the same misuse, the
# error is also an instance of that class, so that ``except`` clauses written for Numba still
# catch it.

class LaunchConfigTypeError(LaunchConfigError, TypeError):
    """A launch configuration of the wrong type (``kernel[1.5, 32]``, ``kernel[32]``), or a
    kernel called without one.  Also a ``TypeError``, as Numba raises for non-integer sizes."""


class UnsupportedCompileOption(CudaError, NotImplementedError, ValueError):
    """``compile``/``compile_ptx`` asked for an ``abi`` or ``output`` that does not exist or does
    not apply.  A ``NotImplementedError`` as in Numba (and a ``ValueError``: a bad argument)."""


class KernelArgumentError(CudaError, TypeError, ValueError):
    """A kernel argument whose type cannot be passed to a kernel.  A ``TypeError``, and a
    ``ValueError`` as Numba raises (Numba's ``typeof`` finds no type for it)."""


class CompilationDisabledError(CudaError, RuntimeError, TypeError):
    """A dispatcher frozen with explicit signatures was asked for another one.  A
    ``RuntimeError`` as Numba's ``compile()`` raises (and a ``TypeError``: wrong types)."""


class NotAvailableInSimulator(CudaError, NotImplementedError):
    """A feature that needs the real compiler or a GPU was used under the simulator
    (``NUMBA_ENABLE_CUDASIM=1``).  Exported by both targets so ``except`` clauses work on
    either; only the simulator raises it."""


class CacheError(CudaError, RuntimeError):
    """``cache=True`` cannot work for this function (no source file, no writable directory)."""


class KernelRuntimeError(RuntimeError):
    """An exception raised in a thread of a kernel, named by thread and block: the class
    Numba's built-in target and NVIDIA's numba-cuda export (``numba.cuda.KernelRuntimeError``)
    for code that catches or raises it.  ``tid``, ``ctaid`` and ``msg`` are kept."""

    def __init__(self, msg, tid=None, ctaid=None):
        self.tid, self.ctaid, self.msg = tid, ctaid, msg
        super().__init__(f"An exception was raised in thread={tid} block={ctaid}\n\t{msg}")


class GraphCaptureError(CudaError, RuntimeError):
    """Work that cannot be part of a CUDA graph was issued while a stream captures one (a
    synchronous copy, work on the legacy default stream, synchronising the capturing stream or
    the device), or a capture was misused.  Raised by both targets before the driver sees the
    call, so the capture is not left invalidated."""


class GraphUpdateError(CudaError, RuntimeError):
    """``Graph.update()`` captured work that the instantiated graph cannot take over (another
    number or kind of operations); ``result`` is the driver's ``CUgraphExecUpdateResult``
    name.  The graph is left as it was: capture a new one with ``cuda.graph()``."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


# ---- the names both peers' ``numba.cuda.errors`` offer -----------------------------------------

def __getattr__(name):
    # ``LoweringError`` (Numba's; both peers re-export it) and ``CudaLoweringError`` (its
    # subclass, both peers' class for extensions that raise it), made on first use: importing
    # this module must not import Numba (``import numba_cuda`` before ``import numba``).
    if name not in ("LoweringError", "CudaLoweringError"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from numba.core.errors import LoweringError

    class CudaLoweringError(LoweringError):
        """A failure lowering CUDA code (both peers' class, for extensions that raise it)."""

    CudaLoweringError.__module__ = __name__
    globals().update(LoweringError=LoweringError, CudaLoweringError=CudaLoweringError)
    return globals()[name]


missing_launch_config_msg = """
Kernel launch configuration was not specified. Use the syntax:

kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)

(blockspergrid and threadsperblock: an int or a tuple of 1 to 3 ints each.)
"""

# ``normalize_kernel_dimensions(griddim, blockdim)``, both peers' function, is
# ``common.launch_dims.normalize_kernel_dimensions`` (the check launches use), set here by the
# package's ``__init__``: the common floor imports this module, not the other way round.

"""Exception types raised by numba-cuda.

Every failure that a user can act on is one of these, with a message that
names the problem and the fix.  Lower layers (ctypes, cuda-bindings,
cuda-pathfinder, libNVVM) never leak their own exceptions through the public
API: they are caught and re-raised as one of the classes below, chained with
``from`` so the original stays available for debugging.
"""


class CudaError(Exception):
    """Base class of every numba-cuda error."""


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


class CacheError(CudaError, RuntimeError):
    """``cache=True`` cannot work for this function (no source file, no writable directory)."""

"""Numba's ``cudadrv.error`` names, mapped onto numba-cuda's exception types."""

from numba_cuda.errors import (  # noqa: F401
    CudaError,
    CudaSupportError,
    DriverError,
    LinkerError,
    NvvmError,
    ToolkitError,
)

CudaDriverError = DriverError
CudaRuntimeError = DriverError
NvvmSupportError = ToolkitError
NvrtcError = LinkerError
NvrtcSupportError = ToolkitError

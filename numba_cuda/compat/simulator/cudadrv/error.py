"""``numba.cuda.cudadrv.error`` under the simulator."""

from numba_cuda.errors import (  # noqa: F401
    CudaError,
    CudaSupportError,
    DriverError,
    LinkerError,
    NvvmError,
)

CudaDriverError = DriverError
NvrtcError = LinkerError

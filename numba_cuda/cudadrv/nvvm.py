"""Numba's ``cudadrv.nvvm``: libNVVM access, re-exported from the compiler."""

from numba_cuda.compiler.capability import supported_ccs as get_supported_ccs  # noqa: F401
from numba_cuda.compiler.nvvm import (  # noqa: F401
    accepts_arch,
    bindings,
    compile_ir,
    ir_version,
    libdevice_bitcode,
    version,
)
from numba_cuda.errors import NvvmError  # noqa: F401

"""Kernel-language family: cffi's ``ffi.from_buffer(array)`` in kernels.

``ffi.from_buffer(a)`` (``ffi`` a ``cffi.FFI()`` global of the kernel, ``a`` a C-contiguous array)
is the pointer to ``a``'s first element, typed ``CPointer(a.dtype)``: what a C-ABI external
function (``cuda.declare_device(..., abi="c")``) taking a pointer is passed.  The typing and
lowering are Numba's own (``numba.core.typing.cffi_utils``, ``numba.misc.cffiimpl``), which
its CPU target installs too; both hold only what is valid on the GPU (the array's data
pointer).  Installed once ``cffi`` has been imported (``typing_context.DEFERRED_FAMILIES``):
a kernel that names an ``ffi`` has imported it, and other processes never pay for it.
Other cffi uses (calling ``ffi.lib`` functions, ``ffi.cast`` ...) stay CPU-only.
"""

from numba.core.typing.cffi_utils import registry as typing_registry  # noqa: F401
from numba.misc.cffiimpl import registry as lowering_registry  # noqa: F401

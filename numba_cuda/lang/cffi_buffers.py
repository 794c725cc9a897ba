"""Kernel-language family: cffi's ``ffi.from_buffer(array)`` in kernels.

``ffi.from_buffer(a)`` (``ffi`` a ``cffi.FFI()`` global of the kernel, ``a`` a C-contiguous array)
is the pointer to ``a``'s first element, typed ``CPointer(a.dtype)``: what a C-ABI external
function (``cuda.declare_device(..., abi="c")``) taking a pointer is passed.  The typing is
Numba's own (``numba.core.typing.cffi_utils``, which its CPU target installs too; it refuses a
non-contiguous array).  The lowering is this module's, the array's data pointer -- what
``numba.misc.cffiimpl`` computes -- because importing that module imports ``numba.np.arrayobj``
and so would make a process that merely imported cffi import Numba's array, string and inlining
modules at its first compile (``compiler.deferred_impls``).  Installed once ``cffi`` has been
imported (``typing_context.DEFERRED_FAMILIES``): a kernel that names an ``ffi`` has imported
it, and other processes never pay for it.  Other cffi uses (calling ``ffi.lib`` functions,
``ffi.cast`` ...) stay CPU-only.
"""

from numba.core import types
from numba.core.imputils import Registry
from numba.core.typing.cffi_utils import registry as typing_registry  # noqa: F401

lowering_registry = Registry("numba_cuda.cffi_buffers")


@lowering_registry.lower("ffi.from_buffer", types.Buffer)
def _from_buffer(context, builder, sig, args):
    (aryty,), (ary,) = sig.args, args
    return context.make_array(aryty)(context, builder, ary).data

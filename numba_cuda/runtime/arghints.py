"""``cuda.In``, ``cuda.Out``, ``cuda.InOut``: how a host array passed to a kernel travels.

A host (numpy) array passed to a kernel as is is copied to the device before the
launch and back after it (with a ``NumbaPerformanceWarning`` unless
``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0``).  Wrapping it says which copies are
needed, and silences the warning: ``In(a)`` copies to the device only (the
kernel's writes do not reach ``a``), ``Out(a)`` copies back only (the kernel
sees uninitialised memory), ``InOut(a)`` both.  Device arrays and objects
exporting the CUDA Array Interface are passed as they are, whatever the hint.
"""

from numba.core import types
from numba.core.typing.typeof import typeof
from numba.extending import typeof_impl

__all__ = ["ArgHint", "In", "Out", "InOut"]


class ArgHint:
    """Wraps a kernel argument (``value``) with the copies it needs."""

    copy_in = True
    copy_out = True

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """Copy to the device before the launch; not back."""

    copy_out = False


class Out(ArgHint):
    """Copy back to the host after the launch; not to the device before it."""

    copy_in = False


class InOut(ArgHint):
    """Copy to the device before the launch and back after it."""


@typeof_impl.register(ArgHint)
def _typeof_arg_hint(val, c):
    """A hinted argument has the type of the array it wraps."""
    ty = typeof(val.value, c.purpose)
    if not isinstance(ty, types.Array):
        raise TypeError(f"cuda.{type(val).__name__} wraps an array argument, got {ty} "
                        f"(pass other values to the kernel as they are)")
    return ty

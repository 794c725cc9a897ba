"""``cuda.In``, ``cuda.Out``, ``cuda.InOut``: how a host array passed to a kernel travels.

This is ``numba.cuda.args``, where Numba and NVIDIA's numba-cuda keep these classes, and the
one place they are defined: the GPU target and the simulator both hand out these classes
(``cuda.In is numba.cuda.args.In`` with either), so ``isinstance`` checks and pickles do not
depend on the target in use.  The module imports nothing of the package.

A host (numpy) array passed to a kernel as is is copied to the device before the launch and
back after it (with a ``NumbaPerformanceWarning`` unless ``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0``).
Wrapping it says which copies are needed, and silences the warning: ``In(a)`` copies to the
device only (the kernel's writes do not reach ``a``), ``Out(a)`` copies back only (the kernel
sees uninitialised memory), ``InOut(a)`` both.  Device arrays and objects exporting the CUDA
Array Interface are passed as they are, whatever the hint.  How each target makes the copies
is its own business (``numba_cuda.runtime.argpack`` on the GPU, the simulator's dispatcher).

``wrap_arg(value, default=InOut)`` returns ``value`` if it already is a hint, else
``default(value)`` (what kernel extensions call in ``prepare_args``).
"""

__all__ = ["ArgHint", "In", "Out", "InOut", "wrap_arg"]


class ArgHint:
    """Wraps a kernel argument (``value``) with the copies it needs."""

    copy_in = True
    copy_out = True

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"

    @property
    def _numba_type_(self):
        """A hinted argument has the Numba type of the array it wraps (what ``typeof`` asks)."""
        from numba.core import types
        from numba.core.typing.typeof import Purpose, typeof

        ty = typeof(self.value, Purpose.argument)
        if not isinstance(ty, types.Array):
            raise TypeError(f"cuda.{type(self).__name__} wraps an array argument, got {ty} "
                            f"(pass other values to the kernel as they are)")
        return ty


class In(ArgHint):
    """Copy to the device before the launch; not back."""

    copy_out = False


class Out(ArgHint):
    """Copy back to the host after the launch; not to the device before it."""

    copy_in = False


class InOut(ArgHint):
    """Copy to the device before the launch and back after it."""


def wrap_arg(value, default=InOut):
    """``value`` if it is a hint (an ``ArgHint``), else ``default(value)`` (``InOut`` when
    ``default`` is None)."""
    if isinstance(value, ArgHint):
        return value
    return (default if default is not None else InOut)(value)

"""``numba.cuda.args``: kernel argument hints, where Numba and NVIDIA's numba-cuda keep them.

``In``, ``Out`` and ``InOut`` are ``cuda.In``/``cuda.Out``/``cuda.InOut`` of the target in use
(the GPU or the simulator); ``ArgHint`` is their common base class; ``wrap_arg(value,
default=InOut)`` returns ``value`` if it already is a hint, else ``default(value)`` (what kernel
extensions call in ``prepare_args``).
"""

import numba_cuda as _cuda

_HINTS = ("In", "Out", "InOut")


def _hint_classes():
    return tuple(getattr(_cuda, name) for name in _HINTS)


def wrap_arg(value, default=None):
    """``value`` if it is an ``In``/``Out``/``InOut`` hint, else ``default(value)``
    (``default`` is ``InOut`` when not given)."""
    if isinstance(value, _hint_classes()):
        return value
    return (default if default is not None else _cuda.InOut)(value)


def __getattr__(name):
    if name in _HINTS:
        return getattr(_cuda, name)
    if name == "ArgHint":
        hint_in, hint_out, hint_inout = _hint_classes()
        for base in hint_in.__mro__[1:]:
            if base is not object and issubclass(hint_out, base) and issubclass(hint_inout, base):
                return base
    raise AttributeError(f"module 'numba.cuda.args' has no attribute {name!r}")

"""``cuda.libdevice``: every libdevice function, callable by name inside kernels.

``cuda.libdevice.sin(x)`` calls ``__nv_sin``; ``cuda.libdevice.sinf(x)`` calls ``__nv_sinf`` ...
The objects live in ``numba_cuda.lang.libdevice_stubs`` (see there);
``numba_cuda.lang.libdevice_calls`` types and lowers them once this module is imported.
"""

from .lang import libdevice_stubs as _stubs

__all__ = list(_stubs.__all__)
globals().update({name: getattr(_stubs, name) for name in __all__})

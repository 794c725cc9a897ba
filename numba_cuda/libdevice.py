"""``cuda.libdevice``: every libdevice function, callable by name inside kernels.

``cuda.libdevice.sin(x)`` calls ``__nv_sin``; ``cuda.libdevice.sinf(x)`` calls ``__nv_sinf`` ...
The objects live in ``numba_cuda.lang.libdevice_stubs`` (see there);
``numba_cuda.lang.libdevice_calls`` types and lowers them once this module is imported.
Under ``NUMBA_ENABLE_CUDASIM=1`` this path is :mod:`numba_cuda.simulator.libdevice` (a row of
the compat table, :data:`numba_cuda.compat.table.ROWS`), whose functions compute in Python what
libdevice computes.
"""

from .lang import libdevice_stubs as _stubs

__all__ = list(_stubs.__all__)
globals().update({name: getattr(_stubs, name) for name in __all__})

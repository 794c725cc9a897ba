"""The GPU runtime: driver, devices and contexts, memory, streams and events,
array interop (CUDA Array Interface, DLPack) and kernel launch.

Everything goes through NVIDIA's ``cuda.bindings.driver``.  Nothing here
touches the driver at import time: the driver is initialised on first real
use (``numba_cuda.runtime.cudriver.driver()``), and without a driver that
first use raises :class:`numba_cuda.errors.CudaSupportError`.  The public
names live in :mod:`numba_cuda.runtime.api`.
"""


def __getattr__(name):
    # ``numba.cuda.runtime`` is this package on the GPU target; in Numba it was the CUDA
    # runtime object, whose version queries code calls as cuda.runtime.get_version().
    if name in ("get_version", "is_supported_version"):
        from numba_cuda.runtime.cudart import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""``numba.cuda.cudadrv.driver`` under the simulator: the names code commonly touches."""

from numba_cuda.errors import CudaError, CudaSupportError, DriverError, LinkerError  # noqa: F401
from numba_cuda.simulator.devices import Context, Device, current_context  # noqa: F401
# the EMM/IPC names, as in numba.cuda
from numba_cuda.simulator.memory_managers import *  # noqa: F401,F403

CudaAPIError = DriverError
USE_NV_BINDING = True


class Driver:
    """The simulated driver: always initialised, one device."""

    is_available = True

    def get_device_count(self):
        return 1

    def get_version(self):
        return (13, 0)

    def initialize(self):
        pass


driver = Driver()


# ---- Numba's module-level copy functions (byte ranges of contiguous arrays) ---------------

def _bytes(obj):
    import numpy as np

    ary = getattr(obj, "_ary", None)
    if ary is None:
        ary = np.asarray(obj)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise ValueError("driver copies work on byte ranges: the array must be contiguous")
    return ary.reshape(-1, order="A").view(np.uint8)


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from the start of ``src`` to the start of ``dst``."""
    _bytes(dst)[:size] = _bytes(src)[:size]


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from the start of ``src`` to the start of ``dst``."""
    _bytes(dst)[:size] = _bytes(src)[:size]


def device_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from the start of ``src`` to the start of ``dst``."""
    _bytes(dst)[:size] = _bytes(src)[:size]


def device_memset(dst, val, size, stream=0):
    """Set the first ``size`` bytes of ``dst`` to the byte ``val`` (captured into a CUDA graph
    when ``stream`` captures one)."""
    from numba_cuda.simulator.graph_capture import CAPTURES

    def run():
        _bytes(dst)[:size] = val & 0xFF

    if CAPTURES:
        from numba_cuda.simulator.graph_capture import record

        if record(stream or None, "a memset (device_memset)", "memset", run):
            return
    run()


def device_memory_size(obj):
    """The bytes a (contiguous) array occupies."""
    return obj.dtype.itemsize * obj.size


def launch_kernel(*args, **kwargs):
    """Refused: there are no compiled kernels to launch through the driver in the simulator."""
    from numba_cuda.simulator.dispatcher import not_available

    raise not_available("launching kernels through the driver (cudadrv.driver.launch_kernel)")


def device_pointer(obj):
    return obj.__cuda_array_interface__["data"][0]


def host_pointer(obj):
    import numpy as np

    return np.asarray(obj).__array_interface__["data"][0]


def _have_nvjitlink():
    """The simulator links nothing: NVIDIA's simulator answers False too."""
    return False


class Linker:
    """The driver-level linker (``Linker``/``_Linker`` in Numba and NVIDIA's numba-cuda).

    Importable, so modules that name it load under the simulator; making one raises
    :class:`~numba_cuda.errors.NotAvailableInSimulator` (the simulator runs Python, it
    links no device code).
    """

    def __init__(self, *args, **kwargs):
        from numba_cuda.simulator.unavailable import not_available

        raise not_available("linking device code (cudadrv.driver.Linker)")

    @classmethod
    def new(cls, *args, **kwargs):
        return cls(*args, **kwargs)


_Linker = Linker


def device_extents(devmem):
    """Allocation extents are a driver query: not available in the simulator."""
    from numba_cuda.simulator.unavailable import not_available

    raise not_available("cudadrv.driver.device_extents")

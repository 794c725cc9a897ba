"""Numba's ``cudadrv.driver``, over ``numba_cuda.runtime`` and ``cuda.bindings.driver``.

``driver`` answers ``get_version()``, ``get_device_count()``,
``get_device(i)``, ``list_devices()`` and ``is_available``; ``USE_NV_BINDING``
is always True (NVIDIA's cuda-bindings are the only binding).  The External
Memory Management names (``BaseCUDAMemoryManager``, ``MemoryPointer``,
``IpcHandle``, ``device_extents`` ...) are those of
``numba_cuda.runtime.memory_managers``/``memory_pointers``/``ipc``;
``_memory_manager`` reads and sets the selected plugin class there.
"""

import sys as _sys
import types as _types

from numba_cuda.common.emm import BaseCUDAMemoryManager, MemoryInfo  # noqa: F401
from numba_cuda.errors import CudaSupportError, DriverError, LinkerError  # noqa: F401
from numba_cuda.runtime import cudriver
from numba_cuda.runtime import memory_managers as _memory_managers
from numba_cuda.runtime.ipc import GetIpcHandleMixin, IpcHandle  # noqa: F401
from numba_cuda.runtime.memory_managers import (  # noqa: F401
    HostOnlyCUDAMemoryManager,
    NumbaCUDAMemoryManager,
    set_memory_manager,
)
from numba_cuda.runtime.memory_pointers import (  # noqa: F401
    AutoFreePointer,
    ManagedMemory,
    MappedMemory,
    MemoryPointer,
    PinnedMemory,
    device_extents,
    device_memset,
)
from numba_cuda.runtime.context import Context  # noqa: F401
from numba_cuda.runtime.devices import Device  # noqa: F401
from numba_cuda.runtime.memory import DeviceAllocation, HostAllocation  # noqa: F401
from numba_cuda.runtime.streams import Event, Stream  # noqa: F401

USE_NV_BINDING = True
CudaAPIError = DriverError


class Driver:
    """The process's CUDA driver (initialised on first use)."""

    @property
    def is_available(self):
        return cudriver.is_available()

    @property
    def initialization_error(self):
        from numba_cuda.runtime.probe import probe_driver

        return probe_driver()["error"]

    def get_version(self):
        """The CUDA version the driver implements, ``(major, minor)``."""
        drv = cudriver.driver()
        number = cudriver.call(drv.cuDriverGetVersion)
        return (number // 1000, (number % 1000) // 10)

    def get_device_count(self):
        drv = cudriver.driver()
        return int(cudriver.call(drv.cuDeviceGetCount))

    def get_device(self, devnum=0):
        from numba_cuda.runtime.devices import get_device

        return get_device(devnum)

    def list_devices(self):
        from numba_cuda.runtime.devices import devices

        return list(devices())

    def reset(self):
        from numba_cuda.runtime.devices import close

        close()

    def __getattr__(self, name):
        # Raw driver functions (driver.cuMemGetInfo ...) straight from cuda.bindings.
        if name.startswith("cu"):
            return getattr(cudriver.driver(), name)
        raise AttributeError(name)


driver = Driver()


def __getattr__(name):
    if name == "binding":
        from cuda.bindings import driver as binding

        return binding
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def device_pointer(obj):
    """The device address of a device array or allocation (int)."""
    return device_pointer_value(obj)


def device_pointer_value(obj):
    if hasattr(obj, "device_pointer_value"):
        return obj.device_pointer_value
    desc = getattr(obj, "__cuda_array_interface__", None)
    if desc is not None:
        return desc["data"][0]
    raise TypeError(f"{type(obj).__name__} is not device memory")


def is_device_memory(obj):
    return getattr(obj, "__cuda_memory__", False) or hasattr(obj, "__cuda_array_interface__")


def require_device_memory(obj):
    if not is_device_memory(obj):
        raise TypeError(f"{type(obj).__name__} is not device memory")


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from a host buffer to device memory."""
    import numpy as np

    from numba_cuda.runtime.transfers import memcpy_htod

    host = np.asarray(src)
    memcpy_htod(device_pointer_value(dst), host.__array_interface__["data"][0], size, stream)


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from device memory to a host buffer."""
    import numpy as np

    from numba_cuda.runtime.transfers import memcpy_dtoh

    host = np.asarray(dst)
    memcpy_dtoh(host.__array_interface__["data"][0], device_pointer_value(src), size, stream)


def device_to_device(dst, src, size, stream=0):
    from numba_cuda.runtime.transfers import memcpy_dtod

    memcpy_dtod(device_pointer_value(dst), device_pointer_value(src), size, stream)


def _have_nvjitlink():
    """True when nvJitLink can be loaded (Numba/NVIDIA's probe of the same name)."""
    from numba_cuda.errors import ToolkitError
    from numba_cuda.linking.nvjitlink import nvjitlink_version

    try:
        nvjitlink_version()
    except ToolkitError:
        return False
    return True
def device_memory_size(devmem):
    """The size in bytes of device memory (its recorded size, else the driver allocation's)."""
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is None:
        begin, end = device_extents(devmem)
        size = int(end) - int(begin)
    return size


class _DriverModule(_types.ModuleType):
    """Gives this module Numba's ``_memory_manager`` variable, kept in memory_managers."""

    @property
    def _memory_manager(self):
        return _memory_managers._memory_manager

    @_memory_manager.setter
    def _memory_manager(self, value):
        _memory_managers._memory_manager = value


_sys.modules[__name__].__class__ = _DriverModule

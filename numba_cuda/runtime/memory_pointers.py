"""Memory objects of the External Memory Management (EMM) interface, on the GPU.

A memory manager (:mod:`numba_cuda.runtime.memory_managers`) hands these to
the runtime: :class:`MemoryPointer` for device memory (``memalloc``),
:class:`PinnedMemory` and :class:`MappedMemory` for page-locked host memory
(``memhostalloc``/``mempin``), :class:`ManagedMemory` for managed memory.
They are the classes Numba documents for EMM plugins (``numba.cuda.MemoryPointer``
...), with the same constructor arguments and attributes; the runtime's own
allocations (:class:`numba_cuda.runtime.memory.DeviceAllocation`) are
MemoryPointers too, so device arrays accept either.

What needs no driver (pointer, size, owner, finalizer, host bytes; the lifetime rules) is
:mod:`numba_cuda.common.emm_memory`, shared with the simulator; the classes here add what needs
the driver: ``view``/``memset`` of device memory and the device address of mapped memory.
``PinnedMemory`` needs nothing more and is that module's class.
"""

from numba_cuda.common import emm_memory
from numba_cuda.common.emm_memory import PinnedMemory, pointer_value

__all__ = ["MemoryPointer", "AutoFreePointer", "PinnedMemory", "MappedMemory", "ManagedMemory",
           "pointer_value", "device_extents", "device_memset"]


def _cu_device_pointer(address):
    from cuda.bindings.driver import CUdeviceptr

    return CUdeviceptr(address)


class MemoryPointer(emm_memory.MemoryPointer):
    """Device memory owned by this object, freed by ``finalizer`` when it is collected
    (see :class:`numba_cuda.common.emm_memory.MemoryPointer` for the arguments); views
    (``view(start, stop)``) keep their parent alive."""

    def memset(self, byte, count=None, stream=0):
        """Set ``count`` bytes (default: all) to ``byte``; asynchronously on ``stream``."""
        device_memset(self, byte, self.size if count is None else count, stream)

    def view(self, start, stop=None):
        """The bytes ``[start, stop)`` of this memory; the view keeps this pointer alive."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise IndexError(f"view [{start}:{stop}] outside memory of {self.size} bytes")
        if not self.device_pointer_value:
            if stop != start:
                raise RuntimeError("non-empty view of a null pointer")
            return self
        return MemoryPointer(self.context, _cu_device_pointer(self.device_pointer_value + start),
                             stop - start, owner=self.owner)


class AutoFreePointer(MemoryPointer, emm_memory.AutoFreePointer):
    __doc__ = emm_memory.AutoFreePointer.__doc__


class ManagedMemory(AutoFreePointer, emm_memory.ManagedMemory):
    __doc__ = emm_memory.ManagedMemory.__doc__


class MappedMemory(AutoFreePointer, emm_memory.MappedMemory):
    __doc__ = emm_memory.MappedMemory.__doc__

    def device_address_of(self, host_pointer):
        """The device address of the mapped memory, asked of the driver."""
        from numba_cuda.runtime import cudriver

        drv = cudriver.driver()
        return cudriver.call(drv.cuMemHostGetDevicePointer, host_pointer, 0)


def device_extents(devmem):
    """``(begin, end)`` (binding ``CUdeviceptr`` values, end exclusive) of the whole driver
    allocation that device memory ``devmem`` (a pointer object or device array) lies in."""
    from numba_cuda.runtime import cudriver

    address = _device_address(devmem)
    drv = cudriver.driver()
    begin, size = cudriver.call(drv.cuMemGetAddressRange, drv.CUdeviceptr(address))
    return begin, drv.CUdeviceptr(int(begin) + int(size))


def _device_address(devmem):
    gpu_data = getattr(devmem, "gpu_data", None)
    if gpu_data is not None:  # a device array
        return pointer_value(gpu_data.device_pointer_value)
    if getattr(devmem, "__cuda_memory__", False):
        return pointer_value(devmem.device_pointer_value)
    desc = getattr(devmem, "__cuda_array_interface__", None)
    if desc is not None:  # mapped and managed arrays, other libraries' arrays
        return int(desc["data"][0])
    raise TypeError(f"{type(devmem).__name__} is not CUDA device memory")


def device_memset(dst, val, size, stream=0):
    """Set ``size`` bytes of device memory ``dst`` (a pointer object or device array) to the
    byte ``val``; asynchronously on ``stream`` (Numba's ``cudadrv.driver.device_memset``)."""
    from numba_cuda.runtime import cudriver

    from numba_cuda.runtime.graph_capture import CAPTURES

    drv = cudriver.driver()
    address = drv.CUdeviceptr(_device_address(dst))
    if CAPTURES:
        from numba_cuda.runtime import graph_capture

        if stream:
            handle = stream.handle if hasattr(stream, "handle") else int(stream)
            graph_capture.check_stream_work(int(handle), "a memset (cuMemsetD8Async)")
        else:
            graph_capture.check_synchronous("a memset with stream=0 (cuMemsetD8)")
    if stream:
        handle = stream.handle if hasattr(stream, "handle") else drv.CUstream(int(stream))
        cudriver.call(drv.cuMemsetD8Async, address, int(val), int(size), handle)
    else:
        cudriver.call(drv.cuMemsetD8, address, int(val), int(size))

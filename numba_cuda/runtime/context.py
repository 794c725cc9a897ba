"""A device's primary context: allocation, synchronisation, its loaded kernels."""

import collections
import contextlib
import weakref

from numba_cuda.errors import DriverError
from numba_cuda.runtime import context_stack, cudriver
from numba_cuda.runtime.streams import Event, Stream
from numba_cuda.runtime.memory import (
    MAX_PENDING_RATIO,
    DeviceAllocation,
    HostAllocation,
    PendingDeallocations,
    is_out_of_memory,
)


MemoryInfo = collections.namedtuple("MemoryInfo", ["free", "total"])


def _free_device(pointer):
    drv = cudriver.driver()
    drv.cuMemFree(drv.CUdeviceptr(pointer))


def _free_host(pointer):
    cudriver.driver().cuMemFreeHost(pointer)


def _unregister_host(pointer):
    cudriver.driver().cuMemHostUnregister(pointer)


class Context:
    """One CUDA context (numba-cuda only creates primary contexts)."""

    def __init__(self, device, handle, primary=True):
        self.device = device
        self.handle = handle
        self.primary = primary
        self.closed = False
        capacity = int(device.total_memory * MAX_PENDING_RATIO)
        self.deallocations = PendingDeallocations(handle, capacity)
        #: compiled kernel -> loaded kernel (module, function, packer) in this context
        self.kernels = weakref.WeakKeyDictionary()
        self._default_streams = {}
        #: contexts whose memory this context's kernels and copies reach directly
        self.peers = set()

    # -- activation -----------------------------------------------------------------
    @contextlib.contextmanager
    def active(self):
        """Run a block with this context current (pushed only when it is not already)."""
        if context_stack.top() is self:
            yield self
            return
        context_stack.push_context(self)
        try:
            yield self
        finally:
            context_stack.pop_context()

    # -- information ----------------------------------------------------------------
    def get_memory_info(self):
        """``MemoryInfo(free, total)`` in bytes for this context's device."""
        drv = cudriver.driver()
        with self.active():
            free, total = cudriver.call(drv.cuMemGetInfo)
        return MemoryInfo(int(free), int(total))

    def synchronize(self):
        drv = cudriver.driver()
        with self.active():
            cudriver.call(drv.cuCtxSynchronize)
        self.deallocations.clear()

    # -- device memory --------------------------------------------------------------
    def _alloc(self, fn, size, *extra):
        drv = cudriver.driver()
        with self.active():
            res, ptr = fn(size, *extra)
            if res == drv.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
                self.deallocations.clear()
                res, ptr = fn(size, *extra)
            if res:
                try:
                    cudriver.check(res, fn.__name__)
                except DriverError as exc:
                    if is_out_of_memory(exc):
                        free, total = self.get_memory_info()
                        raise DriverError(
                            f"out of memory on CUDA device {self.device.id}: {fn.__name__} of "
                            f"{size} bytes failed with {free} of {total} bytes free "
                            f"(free unused device arrays, or allocate less)",
                            code=exc.code) from None
                    raise
        return ptr

    def memalloc(self, size):
        """``size`` bytes of device memory (a DeviceAllocation)."""
        size = int(size)
        if size == 0:
            return DeviceAllocation(self, 0, 0)
        drv = cudriver.driver()
        ptr = self._alloc(drv.cuMemAlloc, size)
        return DeviceAllocation(self, int(ptr), size, free=_free_device)

    def memallocmanaged(self, size, attach_global=True):
        """``size`` bytes of managed (unified) memory: the pointer works on host and device."""
        size = int(size)
        if size == 0:
            return DeviceAllocation(self, 0, 0)
        drv = cudriver.driver()
        flag = (drv.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL if attach_global
                else drv.CUmemAttach_flags.CU_MEM_ATTACH_HOST)
        ptr = self._alloc(drv.cuMemAllocManaged, size, int(flag))
        return DeviceAllocation(self, int(ptr), size, free=_free_device)

    # -- host memory ----------------------------------------------------------------
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Page-locked host memory; ``mapped`` also maps it into the device's address space."""
        size = max(int(size), 1)
        drv = cudriver.driver()
        flags = 0
        if mapped:
            flags |= drv.CU_MEMHOSTALLOC_DEVICEMAP
        if portable:
            flags |= drv.CU_MEMHOSTALLOC_PORTABLE
        if wc:
            flags |= drv.CU_MEMHOSTALLOC_WRITECOMBINED
        host = int(self._alloc(drv.cuMemHostAlloc, size, flags))
        dptr = None
        if mapped:
            with self.active():
                dptr = int(cudriver.call(drv.cuMemHostGetDevicePointer, host, 0))
        return HostAllocation(self, host, size, device_pointer=dptr, free=_free_host)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock existing host memory (``owner`` is kept alive); unregistered when collected."""
        drv = cudriver.driver()
        flags = drv.CU_MEMHOSTREGISTER_DEVICEMAP if mapped else 0
        with self.active():
            cudriver.call(drv.cuMemHostRegister, int(pointer), int(size), flags)
            dptr = None
            if mapped:
                dptr = int(cudriver.call(drv.cuMemHostGetDevicePointer, int(pointer), 0))
        return HostAllocation(self, pointer, size, device_pointer=dptr, owner=owner,
                              free=_unregister_host)

    # -- peer access ----------------------------------------------------------------
    def can_access_peer(self, peer_device):
        """Whether this context's device can reach the memory of ``peer_device`` (a device
        id or ``Device``) directly, over NVLink or PCIe (``cuDeviceCanAccessPeer``)."""
        drv = cudriver.driver()
        peer = peer_device if hasattr(peer_device, "handle") else drv.CUdevice(int(peer_device))
        peer = getattr(peer, "handle", peer)
        if int(peer) == self.device.id:
            return True
        return bool(cudriver.call(drv.cuDeviceCanAccessPeer, self.device.handle, peer))

    def enable_peer_access(self, peer_context, flags=0):
        """Let kernels and copies in this context reach ``peer_context``'s memory directly
        (``cuCtxEnablePeerAccess``).  Enabling it again, or for this context, does nothing."""
        if peer_context is self or peer_context in self.peers:
            return
        drv = cudriver.driver()
        with self.active():
            (res,) = drv.cuCtxEnablePeerAccess(peer_context.handle, flags)
        if res and res != drv.CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
            cudriver.check(res, f"enabling peer access from device {self.device.id} to "
                                f"device {peer_context.device.id}")
        self.peers.add(peer_context)

    def reach(self, peer_context, what):
        """Make ``peer_context``'s memory usable from this context for ``what`` (a kernel
        argument ...): enable peer access, or raise ValueError naming both devices."""
        if peer_context is self or peer_context in self.peers:
            return
        if peer_context.closed:
            raise ValueError(f"{what} lives on device {peer_context.device.id}, whose context "
                             f"was closed (cuda.close()); its memory is gone")
        if not self.can_access_peer(peer_context.device):
            raise ValueError(
                f"{what} lives on device {peer_context.device.id}, but this runs on device "
                f"{self.device.id}, and the two devices cannot access each other's memory "
                f"(no peer access between them); copy the array to device {self.device.id} "
                f"first (cuda.to_device(arr.copy_to_host()) or copy_to_device), or run it "
                f"inside `with cuda.gpus[{peer_context.device.id}]:`")
        self.enable_peer_access(peer_context)

    # -- streams and events ---------------------------------------------------------
    def create_stream(self, non_blocking=False):
        drv = cudriver.driver()
        flags = drv.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking else 0
        with self.active():
            handle = cudriver.call(drv.cuStreamCreate, int(flags))
        return Stream(self, handle, owned=True)

    def create_event(self, timing=True):
        drv = cudriver.driver()
        flags = 0 if timing else int(drv.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        with self.active():
            handle = cudriver.call(drv.cuEventCreate, flags)
        return Event(self, handle, timing=timing)

    def special_stream(self, value):
        """The stream object for handle 0 (default), 1 (legacy) or 2 (per-thread)."""
        stream = self._default_streams.get(value)
        if stream is None:
            stream = Stream(self, cudriver.driver().CUstream(value), owned=False)
            self._default_streams[value] = stream
        return stream

    # -- teardown -------------------------------------------------------------------
    def close(self):
        """Release this primary context (numba-cuda's reference to it)."""
        if self.closed:
            return
        try:
            self.deallocations.clear()
        finally:
            self.closed = True
            self.kernels.clear()
            self.peers.clear()
            drv = cudriver.driver()
            if self.primary:
                drv.cuDevicePrimaryCtxRelease(self.device.handle)

    def reset(self):
        self.close()

    def __repr__(self):
        state = " (closed)" if self.closed else ""
        return f"<CUDA context on device {self.device.id}{state}>"

"""A device's primary context: allocation (through its memory manager), synchronisation,
its loaded kernels."""

import contextlib
import weakref

from numba_cuda.common.emm import MemoryInfo  # noqa: F401 - public here too
from numba_cuda.runtime import context_stack, cudriver, graph_capture
from numba_cuda.runtime.graph_capture import CAPTURES
from numba_cuda.runtime.memory import DeviceAllocation, PendingDeallocations
from numba_cuda.runtime.memory_managers import memory_manager_class
from numba_cuda.runtime.streams import Event, Stream


class Context:
    """One CUDA context (numba-cuda only creates primary contexts).

    Memory comes from ``memory_manager``, an instance of the EMM plugin selected
    when the context was created (numba-cuda's own manager unless
    ``cuda.set_memory_manager`` or ``NUMBA_CUDA_MEMORY_MANAGER`` chose another),
    initialised (with the context current) before the context is used.
    """

    def __init__(self, device, handle, primary=True):
        self.device = device
        self.handle = handle
        self.primary = primary
        self.closed = False
        self.deallocations = PendingDeallocations(handle, device.total_memory)
        #: KernelImage -> LoadedKernel (module, function, packer) in this context: the one cache
        #: of loaded kernels (``numba_cuda.runtime.launch.load_kernel``)
        self.kernels = weakref.WeakKeyDictionary()
        self._default_streams = {}
        #: contexts whose memory this context's kernels and copies reach directly
        self.peers = set()
        #: context-specific data of other components (Numba's ``Context.extras``)
        self.extras = {}
        #: the EMM plugin instance; code may replace it (then the new one is initialised on use)
        self.memory_manager = memory_manager_class()(context=self)
        self._prepared = None  # the memory manager initialised for this context
        self.prepare_for_use()

    def prepare_for_use(self):
        """Initialise the memory manager, with this context current, once (when the context is
        created, or on the first allocation after ``memory_manager`` was replaced)."""
        manager = self.memory_manager
        if self._prepared is not manager:
            self._prepared = manager  # first: initialize() may allocate, which comes back here
            try:
                with self.active():
                    manager.initialize()
            except BaseException:
                self._prepared = None
                raise

    @property
    def referent(self):
        """This context itself, also when reached through a ``weakref.proxy`` (which EMM
        plugins written for Numba pass to ``MemoryPointer``)."""
        return self

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

    def push(self):
        """Make this context current in this thread (until ``pop``)."""
        context_stack.push_context(self)

    def pop(self):
        context_stack.pop_context()

    # -- information ----------------------------------------------------------------
    def get_memory_info(self):
        """``MemoryInfo(free, total)`` in bytes, as the memory manager reports it."""
        return self.memory_manager.get_memory_info()

    # -- occupancy (NVIDIA's and Numba's Context methods; cuDF's JIT groupby sizes its blocks
    #    with get_max_potential_block_size) --------------------------------------------------
    def get_active_blocks_per_multiprocessor(self, func, blocksize, memsize, flags=None):
        """How many blocks of ``blocksize`` threads using ``memsize`` bytes of dynamic shared
        memory each can be resident on one multiprocessor at once, running ``func`` (a loaded
        kernel, e.g. ``kernel.overloads[sig]._codelibrary.get_cufunc()``, or a ``CUfunction``);
        ``flags``: ``CUoccupancy_flags`` (0 or None: the default)."""
        drv = cudriver.driver()
        handle = _function_handle(func)
        with self.active():
            if flags:
                return int(cudriver.call(drv.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                                         handle, int(blocksize), int(memsize), int(flags)))
            return int(cudriver.call(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor, handle,
                                     int(blocksize), int(memsize)))

    def get_max_potential_block_size(self, func, b2d_func, memsize, blocksizelimit, flags=None):
        """``(min_grid_size, block_size)``: the driver's block size for the most occupancy of
        ``func`` (see ``get_active_blocks_per_multiprocessor``) and the fewest blocks that reach
        it.  ``b2d_func``: the dynamic shared memory a block of a given size needs, as a Python
        callable ``size -> bytes``, a C function's address, or 0/None (then ``memsize`` bytes
        for every size); ``blocksizelimit``: the largest block to consider (0: the kernel's)."""
        import ctypes

        drv = cudriver.driver()
        handle = _function_handle(func)
        callback = None  # kept alive until the driver returns
        if b2d_func is None or (isinstance(b2d_func, int) and not isinstance(b2d_func, bool)):
            address = int(b2d_func or 0)
        elif callable(b2d_func):
            callback = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)(b2d_func)
            address = ctypes.cast(callback, ctypes.c_void_p).value
        else:
            raise TypeError(f"b2d_func must be a callable (block size -> dynamic shared memory "
                            f"bytes), a C function's address or 0, not {b2d_func!r}")
        b2d = drv.CUoccupancyB2DSize(address)
        with self.active():
            if flags:
                grid, block = cudriver.call(drv.cuOccupancyMaxPotentialBlockSizeWithFlags, handle,
                                            b2d, int(memsize), int(blocksizelimit), int(flags))
            else:
                grid, block = cudriver.call(drv.cuOccupancyMaxPotentialBlockSize, handle, b2d,
                                            int(memsize), int(blocksizelimit))
        del callback
        return int(grid), int(block)

    def synchronize(self):
        if CAPTURES:
            graph_capture.check_device_synchronize()
        drv = cudriver.driver()
        with self.active():
            cudriver.call(drv.cuCtxSynchronize)
        self.deallocations.clear()

    # -- memory (the memory manager's) ----------------------------------------------------
    def memalloc(self, size):
        """``size`` bytes of device memory (a MemoryPointer) from the memory manager."""
        size = int(size)
        if size == 0:
            return DeviceAllocation(self, 0, 0)
        self.prepare_for_use()
        return self.memory_manager.memalloc(size)

    def memallocmanaged(self, size, attach_global=True):
        """``size`` bytes of managed (unified) memory: the pointer works on host and device."""
        self.prepare_for_use()
        return self.memory_manager.memallocmanaged(size, attach_global=attach_global)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Page-locked host memory; ``mapped`` also maps it into the device's address space."""
        self.prepare_for_use()
        return self.memory_manager.memhostalloc(size, mapped, portable, wc)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock existing host memory (``owner`` is kept alive); unregistered when collected."""
        self.prepare_for_use()
        return self.memory_manager.mempin(owner, pointer, size, mapped)

    @contextlib.contextmanager
    def defer_cleanup(self):
        """Hold every deferred free (the memory manager's and the context's) until the block
        ends."""
        with self.memory_manager.defer_cleanup():
            with self.deallocations.disable():
                yield

    # -- IPC ------------------------------------------------------------------------------
    def get_ipc_handle(self, memory):
        """An IpcHandle for ``memory`` (a MemoryPointer), from the memory manager."""
        from numba_cuda.runtime.ipc import supports_ipc

        if not supports_ipc():
            raise OSError("OS does not support CUDA IPC (CUDA IPC needs Linux)")
        return self.memory_manager.get_ipc_handle(memory)

    def open_ipc_handle(self, handle, size):
        """Map memory another process shared (a ``CUipcMemHandle``) into this context."""
        from numba_cuda.runtime.ipc import _open
        from numba_cuda.runtime.memory_pointers import MemoryPointer

        with self.active():
            address = _open(handle)
        return MemoryPointer(self, address, size)

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
            try:
                self.memory_manager.reset()
            finally:
                self.deallocations.clear()
        finally:
            self.closed = True
            self.kernels.clear()
            self.peers.clear()
            drv = cudriver.driver()
            if self.primary:
                drv.cuDevicePrimaryCtxRelease(self.device.handle)

    def reset(self):
        """Free what the context holds, as Numba's ``Context.reset``: the memory manager's
        ``reset()`` and the deferred frees run; the context stays usable (``cuda.close()``
        releases it).  Memory of live device arrays stays valid."""
        try:
            self.memory_manager.reset()
        finally:
            self.deallocations.clear()

    def __repr__(self):
        state = " (closed)" if self.closed else ""
        return f"<CUDA context on device {self.device.id}{state}>"


def _function_handle(func):
    """The ``CUfunction`` of a loaded kernel (anything with a ``handle``, as NVIDIA's
    ``Function``) or the handle itself."""
    return getattr(func, "handle", func)

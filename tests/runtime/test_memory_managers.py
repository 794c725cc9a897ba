"""External Memory Management (EMM) plugins and IPC, end to end on the fake driver.

The plugin below is written the way RAPIDS RMM's ``rmm.allocators.numba.RMMNumbaManager``
is: a ``HostOnlyCUDAMemoryManager`` subclass whose ``memalloc`` takes memory from its own
pool and returns a ``MemoryPointer`` with a finalizer that drops the buffer from
``self.allocations``; IPC handles through ``GetIpcHandleMixin``.  The pool is one
``cuMemAlloc`` block of the fake driver, so device arrays live at offsets inside it (what
``device_extents`` and IPC offsets must get right).
"""

import gc
import pickle
import struct
import sys
import textwrap

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    from numba_cuda.runtime import memory_managers

    monkeypatch.setattr(memory_managers, "_memory_manager", None)
    yield from installed_for_launches(monkeypatch, ndevices=2)


# -- a plugin written like RMM's -------------------------------------------------------
class Pool:
    """A bump allocator over one driver allocation (stands in for RMM's pool resource)."""

    SIZE = 1 << 20

    def __init__(self):
        from numba_cuda.runtime import cudriver

        drv = cudriver.driver()
        err, base = drv.cuMemAlloc(self.SIZE)
        assert err == drv.CUresult.CUDA_SUCCESS
        self.base = int(base)
        self.next = self.base + 256  # nothing starts at the pool's base: offsets are non-zero
        self.live = {}
        self.freed = []

    def allocate(self, size):
        ptr = self.next
        self.next += (size + 255) & ~255
        assert self.next <= self.base + self.SIZE, "test pool exhausted"
        self.live[ptr] = size
        return ptr

    def release(self, ptr):
        self.freed.append(ptr)
        del self.live[ptr]


def _make_emm_plugin_finalizer(handle, allocations, pool):
    def finalizer():
        if allocations:
            del allocations[handle]
        pool.release(handle)
    return finalizer


def _plugin_classes():
    from cuda.bindings.driver import CUdeviceptr
    from numba import cuda

    class RMMStyleManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        calls = []

        def initialize(self):
            self.calls.append("initialize")
            self.pool = Pool()

        def memalloc(self, size):
            self.calls.append(("memalloc", size))
            ptr = self.pool.allocate(size)
            finalizer = _make_emm_plugin_finalizer(ptr, self.allocations, self.pool)
            self.allocations[ptr] = size
            return cuda.MemoryPointer(self.context, CUdeviceptr(ptr), size, finalizer=finalizer)

        def get_memory_info(self):
            used = sum(self.pool.live.values())
            return cuda.MemoryInfo(free=Pool.SIZE - used, total=Pool.SIZE)

        def reset(self):
            self.calls.append("reset")
            super().reset()

        def defer_cleanup(self):
            self.calls.append("defer_cleanup")
            return super().defer_cleanup()

        @property
        def interface_version(self):
            return 1

    class RMMExactIpc(RMMStyleManager):
        """get_ipc_handle spelled exactly as rmm.allocators.numba does it."""

        def get_ipc_handle(self, memory):
            start, _ = cuda.cudadrv.driver.device_extents(memory)
            _, ipc_handle = cuda.cudadrv.driver.driver.cuIpcGetMemHandle(start)
            offset = int(memory.handle) - int(start)
            source_info = cuda.current_context().device.get_device_identity()
            return cuda.IpcHandle(memory, ipc_handle, memory.size, source_info, offset=offset)

    return RMMStyleManager, RMMExactIpc


@pytest.fixture
def plugin(fake):
    from numba import cuda

    cls, _ = _plugin_classes()
    cls.calls = []
    cuda.set_memory_manager(cls)
    return cls


def test_rmm_names_import_at_module_level():
    # what rmm.allocators.numba imports when it is imported
    from numba import cuda
    from numba.cuda import HostOnlyCUDAMemoryManager, IpcHandle, MemoryPointer

    assert cuda.HostOnlyCUDAMemoryManager is HostOnlyCUDAMemoryManager
    assert issubclass(HostOnlyCUDAMemoryManager, cuda.BaseCUDAMemoryManager)
    assert callable(cuda.cudadrv.driver.device_extents)
    assert IpcHandle is cuda.cudadrv.driver.IpcHandle
    assert MemoryPointer is cuda.cudadrv.driver.MemoryPointer
    for name in ("GetIpcHandleMixin", "MappedMemory", "PinnedMemory", "MemoryInfo",
                 "set_memory_manager", "BaseCUDAMemoryManager"):
        assert getattr(cuda, name) is getattr(cuda.cudadrv.driver, name), name


def test_gpu_memory_objects_extend_the_simulators(fake):
    """The GPU classes are the driverless ones of numba_cuda.common.emm_memory (which the simulator
    uses) plus view/memset and the driver's device address for mapped memory."""
    from numba import cuda
    from numba_cuda.common import emm_memory

    drv = cuda.cudadrv.driver
    for name in ("MemoryPointer", "AutoFreePointer", "ManagedMemory", "MappedMemory"):
        assert issubclass(getattr(drv, name), getattr(emm_memory, name)), name
    for name in ("AutoFreePointer", "ManagedMemory", "MappedMemory"):
        assert issubclass(getattr(drv, name), cuda.MemoryPointer), name
    assert cuda.PinnedMemory is emm_memory.PinnedMemory
    managed = drv.ManagedMemory(None, 0x5000, 64, finalizer=lambda: None)
    assert managed.host_pointer == managed.device_pointer_value == 0x5000 and managed.refct == 0
    view = managed.view(16, 32)
    assert type(view) is cuda.MemoryPointer and view.device_pointer_value == 0x5010
    assert view.size == 16 and view.owner is managed


def test_allocations_go_through_the_plugin_and_arrays_work(fake, plugin):
    from numba import cuda

    ctx = cuda.current_context()
    mgr = ctx.memory_manager
    assert isinstance(mgr, plugin)
    assert plugin.calls[0] == "initialize"
    host = np.arange(10, dtype=np.float64)
    d = cuda.to_device(host)
    assert ("memalloc", 80) in plugin.calls
    assert list(mgr.allocations.values()) == [80]
    # the array's memory is the pool's, not a cuMemAlloc of its own
    assert [e[0] for e in fake.log].count("cuMemAlloc") == 1
    assert mgr.pool.base < d.device_pointer_value < mgr.pool.base + Pool.SIZE
    assert isinstance(d.gpu_data, cuda.MemoryPointer)
    np.testing.assert_array_equal(d.copy_to_host(), host)
    np.testing.assert_array_equal(d[2:7:2].copy_to_host(), host[2:7:2])
    e = cuda.device_array_like(d)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), host)
    f = cuda.device_array((3, 4), dtype=np.int32, order="F")
    f[:] = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(f.copy_to_host(), np.arange(12).reshape(3, 4))
    assert len(mgr.allocations) == 3


def test_a_kernel_receives_the_plugins_memory(fake, plugin):
    from numba import cuda

    @cuda.jit
    def fill(a):
        a[0] = 1

    d = cuda.device_array(4, dtype=np.int64)
    seen = []

    def kernel_effect(drv, launch):
        data = struct.unpack("<Q", launch["params"][4])[0]
        seen.append(data)
        drv.write(data, np.full(4, 7, np.int64).tobytes())

    fake.on_launch = kernel_effect
    fill[1, 1](d)
    assert seen == [d.device_pointer_value]
    np.testing.assert_array_equal(d.copy_to_host(), [7, 7, 7, 7])


def test_frees_run_the_plugins_finalizer(fake, plugin):
    from numba import cuda

    mgr = cuda.current_context().memory_manager
    d1 = cuda.device_array(16, dtype=np.uint8)
    d2 = cuda.device_array(32, dtype=np.uint8)
    view = d2[4:8]
    p1, p2 = d1.device_pointer_value, d2.device_pointer_value
    del d1
    gc.collect()
    assert mgr.pool.freed == [p1] and p1 not in mgr.allocations
    del d2
    gc.collect()
    assert p2 in mgr.allocations  # a view keeps its allocation alive
    del view
    gc.collect()
    assert mgr.pool.freed == [p1, p2] and not mgr.allocations


def test_memory_info_comes_from_the_plugin(fake, plugin):
    from numba import cuda

    ctx = cuda.current_context()
    info = ctx.get_memory_info()
    assert isinstance(info, cuda.MemoryInfo) and info.total == Pool.SIZE
    d = cuda.device_array(1000, dtype=np.uint8)
    assert ctx.get_memory_info().free == info.free - 1000
    assert d.size == 1000


def test_memory_info_not_implemented_propagates(fake):
    from numba import cuda

    class NoInfo(_plugin_classes()[0]):
        def get_memory_info(self):
            raise NotImplementedError()  # as RMM's does for pools

    cuda.set_memory_manager(NoInfo)
    with pytest.raises(NotImplementedError):
        cuda.current_context().get_memory_info()


def test_reset_deallocations_and_defer_cleanup_reach_the_plugin(fake, plugin):
    from numba import cuda

    ctx = cuda.current_context()
    d = cuda.to_device(np.arange(3))
    ctx.deallocations.clear()  # what libraries call before every run
    with cuda.defer_cleanup():
        pass
    assert "defer_cleanup" in plugin.calls
    mgr = ctx.memory_manager
    # host memory of a device-only plugin comes from HostOnlyCUDAMemoryManager
    p = cuda.pinned_array(8, dtype=np.int32)
    p[:] = 4
    np.testing.assert_array_equal(cuda.to_device(p).copy_to_host(), p)
    m = cuda.mapped_array(4)
    assert m.__cuda_array_interface__["data"][0] == m.__array_interface__["data"][0]
    cuda.close()
    assert plugin.calls[-1] == "reset" and not mgr.allocations
    del d


def test_plugin_ipc_handle_through_the_mixin(fake, plugin):
    from numba import cuda

    host = np.arange(12, dtype=np.int32)
    d = cuda.to_device(host)
    mgr = cuda.current_context().memory_manager
    ipch = cuda.current_context().get_ipc_handle(d.gpu_data)
    assert isinstance(ipch, cuda.IpcHandle)
    assert ipch.offset == d.device_pointer_value - mgr.pool.base > 0
    assert ipch.size == host.nbytes
    with pytest.raises(ValueError, match="original process"):
        ipch.open(cuda.current_context())
    arr_handle = d[3:].get_ipc_handle()
    received = pickle.loads(pickle.dumps(arr_handle))
    with received as shared:
        assert shared.device_pointer_value != d[3:].device_pointer_value  # mapped anew
        np.testing.assert_array_equal(shared.copy_to_host(), host[3:])
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            received.open()
        assert len(fake.ipc_mappings) == 1
    assert fake.ipc_mappings == []


def test_rmm_spelling_of_get_ipc_handle(fake):
    from numba import cuda

    _, exact = _plugin_classes()
    cuda.set_memory_manager(exact)
    d = cuda.to_device(np.arange(5.0))
    ipch = pickle.loads(pickle.dumps(cuda.current_context().get_ipc_handle(d.gpu_data)))
    assert ipch.base is None
    view = ipch.open_array(cuda.current_context(), shape=(5,), dtype=np.float64)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(5.0))
    ipch.close()
    with pytest.raises(ValueError, match="not opened"):
        ipch.close()


def test_set_memory_manager_checks_the_interface_version(fake):
    from numba import cuda

    cls, _ = _plugin_classes()

    class V2(cls):
        @property
        def interface_version(self):
            return 2

    with pytest.raises(RuntimeError, match="version 1 required"):
        cuda.set_memory_manager(V2)
    with pytest.raises(TypeError, match="memory manager class"):
        cuda.set_memory_manager(cls(context=None))
    with pytest.raises(RuntimeError, match="requires a context"):
        cls()


def test_a_numba_style_dummy_plugin_and_resetting_the_selection(fake):
    """Numba's own EMM test plugin: ctypes pointers, AutoFreePointer, a reset through
    ``cuda.cudadrv.driver._memory_manager = None``."""
    import ctypes
    import weakref

    from numba import cuda

    class Dummy(cuda.HostOnlyCUDAMemoryManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.allocations = {}
            self.count = 0
            self.initialized = False

        def memalloc(self, size):
            if not self.initialized:
                raise RuntimeError("memalloc called before initialize")
            self.count += 1
            n = self.count
            self.allocations[n] = size
            allocs = self.allocations

            def finalizer():
                del allocs[n]
            return cuda.cudadrv.driver.AutoFreePointer(
                weakref.proxy(self.context), ctypes.c_void_p(n), size, finalizer=finalizer)

        def initialize(self):
            self.initialized = True

        def get_memory_info(self):
            return cuda.MemoryInfo(free=32, total=64)

        def get_ipc_handle(self, memory):
            return f"Dummy IPC handle for alloc {memory.device_pointer.value}"

        @property
        def interface_version(self):
            return 1

    cuda.set_memory_manager(Dummy)
    assert cuda.cudadrv.driver._memory_manager is Dummy
    mgr = cuda.current_context().memory_manager
    assert mgr.initialized
    d1 = cuda.device_array_like(np.arange(10))
    assert mgr.allocations == {1: 80}
    assert "Dummy IPC handle for alloc 1" in d1.get_ipc_handle()._ipc_handle
    assert d1.gpu_data.context is cuda.current_context()  # not the proxy it was given

    @cuda.jit
    def k(a):
        a[0] = 1

    k[1, 1](d1)  # the launch sees the array's memory in its own context
    assert fake.launches[-1]["params"][4] == (1).to_bytes(8, "little")
    del d1
    assert mgr.allocations == {}
    assert cuda.current_context().get_memory_info() == (32, 64)
    cuda.close()
    cuda.cudadrv.driver._memory_manager = None
    from numba_cuda.runtime.memory_managers import NumbaCUDAMemoryManager, _memory_manager

    assert _memory_manager is None
    assert type(cuda.current_context().memory_manager) is NumbaCUDAMemoryManager


def test_numba_cuda_memory_manager_selects_a_module(fake, tmp_path, monkeypatch):
    from numba import cuda
    from numba.core import config

    (tmp_path / "my_emm_plugin.py").write_text(textwrap.dedent("""
        from tests.runtime.test_memory_managers import _plugin_classes

        _numba_memory_manager = _plugin_classes()[0]
    """))
    (tmp_path / "not_a_plugin.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(config, "CUDA_MEMORY_MANAGER", "my_emm_plugin", raising=False)
    mgr = cuda.current_context().memory_manager
    assert type(mgr).__name__ == "RMMStyleManager"
    assert sys.modules["my_emm_plugin"]._numba_memory_manager is type(mgr)
    d = cuda.to_device(np.arange(4))
    assert d.device_pointer_value in mgr.allocations

    from numba_cuda.runtime import memory_managers

    for name, match in (("not_a_plugin", "defines no _numba_memory_manager"),
                        ("no_such_module_xyz", "could not be imported")):
        cuda.close()
        monkeypatch.setattr(memory_managers, "_memory_manager", None)
        monkeypatch.setattr(config, "CUDA_MEMORY_MANAGER", name, raising=False)
        with pytest.raises(RuntimeError, match=f"Failed to use memory manager from {name}.*{match}"):
            cuda.current_context()
        assert fake._primary[0] == 0  # the context retained for it was released again


def test_a_failing_initialize_is_retried_and_reported(fake):
    from numba import cuda

    class Flaky(_plugin_classes()[0]):
        attempts = 0

        def initialize(self):
            Flaky.attempts += 1
            if Flaky.attempts == 1:
                raise MemoryError("pool not ready")
            super().initialize()

    cuda.set_memory_manager(Flaky)
    with pytest.raises(MemoryError, match="pool not ready"):
        cuda.current_context()
    d = cuda.device_array(4)  # the next use initialises it
    assert Flaky.attempts == 2 and d.device_pointer_value in \
        cuda.current_context().memory_manager.allocations


def test_the_default_manager_is_an_emm_plugin(fake):
    from numba import cuda
    from numba_cuda.runtime.memory_managers import NumbaCUDAMemoryManager

    ctx = cuda.current_context()
    mgr = ctx.memory_manager
    assert type(mgr) is NumbaCUDAMemoryManager
    assert isinstance(mgr, (cuda.HostOnlyCUDAMemoryManager, cuda.GetIpcHandleMixin))
    assert mgr.interface_version == 1
    assert mgr.deallocations is ctx.deallocations
    mem = ctx.memalloc(64)
    assert isinstance(mem, cuda.MemoryPointer) and mem.size == 64
    info = ctx.get_memory_info()
    assert info.total == 80 * 2**30 and info.free == info.total - 64
    begin, end = cuda.cudadrv.driver.device_extents(mem.view(16, 32))
    assert (int(begin), int(end)) == (mem.device_pointer_value, mem.device_pointer_value + 64)
    assert cuda.cudadrv.driver.device_memory_size(mem) == 64


def test_memory_pointer_api(fake):
    from cuda.bindings.driver import CUdeviceptr
    from numba import cuda
    from numba_cuda.runtime import cudriver

    drv = cudriver.driver()
    ctx = cuda.current_context()
    _, raw = drv.cuMemAlloc(64)
    freed = []
    mp = cuda.MemoryPointer(ctx, CUdeviceptr(int(raw)), 64, finalizer=lambda: freed.append(1))
    assert mp.device_pointer_value == int(raw) and mp.owner is mp and mp.is_managed
    view = mp.view(8)
    assert view.size == 56 and view.owner is mp
    assert view.device_pointer_value == int(raw) + 8
    with pytest.raises(IndexError):
        mp.view(8, 128)
    mp.memset(0xAB)
    assert fake.read(int(raw), 64) == b"\xab" * 64
    mp.free()
    assert freed == [1]
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        mp.free()


def test_open_ipc_array_from_handle_bytes(fake):
    from numba import cuda

    host = np.arange(6, dtype=np.intp)
    d = cuda.to_device(host)
    ipch = cuda.current_context().get_ipc_handle(d.gpu_data)
    from numba_cuda.runtime.ipc import handle_bytes

    raw = handle_bytes(ipch.handle)
    with cuda.open_ipc_array(raw, shape=6, dtype=np.intp) as shared:
        np.testing.assert_array_equal(shared.copy_to_host(), host)
        assert fake.ipc_mappings
    assert not fake.ipc_mappings
    with cuda.open_ipc_array(tuple(raw), shape=(2, 3), dtype=np.intp) as shared:
        np.testing.assert_array_equal(shared.copy_to_host(), host.reshape(2, 3))
    with pytest.raises(ValueError, match="64 bytes"):
        with cuda.open_ipc_array(raw[:10], shape=6, dtype=np.intp):
            pass


def test_ipc_between_devices_that_are_not_peers_is_staged(fake):
    from numba import cuda

    fake.peer_capable = False
    host = np.arange(8, dtype=np.float32)
    d = cuda.to_device(host)  # device 0
    handle = pickle.loads(pickle.dumps(d.get_ipc_handle()))
    with cuda.gpus[1]:
        ctx1 = cuda.current_context()
        assert ctx1.device.id == 1
        assert not handle._ipc_handle.can_access_peer(ctx1)
        with handle as copy:
            assert copy.gpu_data.context is ctx1
            assert not fake.ipc_mappings  # a copy: the source mapping is already closed
            np.testing.assert_array_equal(copy.copy_to_host(), host)
    fake.peer_capable = True
    with cuda.gpus[1]:
        with handle as mapped:
            assert len(fake.ipc_mappings) == 1
            np.testing.assert_array_equal(mapped.copy_to_host(), host)


def test_a_handle_of_freed_memory_fails_to_open(fake):
    from numba import cuda
    from numba_cuda.errors import DriverError

    d = cuda.to_device(np.arange(4))
    handle = pickle.loads(pickle.dumps(d.get_ipc_handle()))
    del d
    gc.collect()
    cuda.current_context().deallocations.clear()
    with pytest.raises(DriverError, match="cuIpcOpenMemHandle"):
        handle.open()


def test_deferred_frees_follow_numbas_settings(fake, monkeypatch):
    from numba import cuda
    from numba.core import config

    ctx = cuda.current_context()
    deallocs = ctx.memory_manager.deallocations
    assert deallocs is ctx.deallocations
    deallocs.clear()
    monkeypatch.setattr(config, "CUDA_DEALLOCS_COUNT", 3)
    for i in range(3):
        cuda.to_device(np.arange(1))
        assert len(deallocs) == i + 1
    cuda.to_device(np.arange(1))  # one more than the count: flushed
    assert len(deallocs) == 0
    monkeypatch.setattr(config, "CUDA_DEALLOCS_COUNT", 100)
    monkeypatch.setattr(config, "CUDA_DEALLOCS_RATIO", 1000 / ctx.get_memory_info().total)
    assert abs(deallocs._max_pending_bytes - 1000) <= 1
    cuda.to_device(np.ones(600, dtype=np.int8))
    assert len(deallocs) == 1 and deallocs._size == 600
    cuda.to_device(np.ones(deallocs._max_pending_bytes - deallocs._size, dtype=np.int8))
    assert len(deallocs) == 2
    cuda.to_device(np.ones(1, dtype=np.int8))  # one byte over: flushed
    assert len(deallocs) == 0
    with cuda.defer_cleanup():
        cuda.to_device(np.arange(3))
        deallocs.clear()
        assert len(deallocs) == 1 and deallocs.is_disabled
    assert len(deallocs) == 0


def test_rapids_rmm_allocator_imports_and_is_accepted(monkeypatch):
    """RAPIDS RMM's allocator itself, where RMM is installed (it is not a dependency)."""
    rmm_numba = pytest.importorskip("rmm.allocators.numba")
    from numba import cuda
    from numba.core import config

    from numba_cuda.runtime import memory_managers

    monkeypatch.setattr(memory_managers, "_memory_manager", None)
    assert issubclass(rmm_numba.RMMNumbaManager, cuda.HostOnlyCUDAMemoryManager)
    cuda.set_memory_manager(rmm_numba.RMMNumbaManager)
    assert memory_managers.memory_manager_class() is rmm_numba.RMMNumbaManager
    monkeypatch.setattr(memory_managers, "_memory_manager", None)
    monkeypatch.setattr(config, "CUDA_MEMORY_MANAGER", "rmm.allocators.numba", raising=False)
    assert memory_managers.memory_manager_class() is rmm_numba.RMMNumbaManager


def test_context_reset_frees_through_the_manager_and_keeps_the_context(fake):
    from numba import cuda

    ctx = cuda.current_context()
    kept = cuda.to_device(np.arange(4))
    gone = cuda.device_array(8)
    gone_ptr = gone.device_pointer_value
    del gone
    assert len(ctx.deallocations) == 1 and gone_ptr in fake.allocations
    ctx.reset()  # Numba's Context.reset: frees, the context stays usable
    assert len(ctx.deallocations) == 0 and gone_ptr not in fake.allocations
    assert not ctx.closed and cuda.current_context() is ctx
    np.testing.assert_array_equal(kept.copy_to_host(), np.arange(4))

    cls, _ = _plugin_classes()
    cls.calls = []
    cuda.close()
    cuda.set_memory_manager(cls)
    ctx = cuda.current_context()
    d = cuda.to_device(np.arange(3))
    ctx.reset()
    assert cls.calls[-1] == "reset" and not ctx.memory_manager.allocations
    del d


def test_a_memory_manager_assigned_to_a_context_is_initialised_on_use(fake):
    """NVIDIA's numba-cuda tests swap ``ctx.memory_manager`` on a live context."""
    from numba import cuda

    cls, _ = _plugin_classes()
    cls.calls = []
    ctx = cuda.current_context()
    default = ctx.memory_manager
    ctx.memory_manager = cls(context=ctx)
    d = cuda.to_device(np.arange(4))
    assert cls.calls[:2] == ["initialize", ("memalloc", 32)]
    assert d.device_pointer_value in ctx.memory_manager.allocations
    ctx.memory_manager = default
    e = cuda.device_array(2)
    assert e.device_pointer_value in fake.allocations
    assert cls.calls.count("initialize") == 1


def test_a_full_plugin_provides_host_memory_too(fake):
    """A BaseCUDAMemoryManager plugin with its own memhostalloc/mempin: pinned_array,
    mapped_array and cuda.pinned use them (and release pins at once)."""
    from numba import cuda
    from numba_cuda.runtime import cudriver

    calls = []

    class Full(_plugin_classes()[0]):
        def memhostalloc(self, size, mapped=False, portable=False, wc=False):
            calls.append(("memhostalloc", size, mapped))
            drv = cudriver.driver()
            flags = drv.CU_MEMHOSTALLOC_DEVICEMAP if mapped else 0
            _, ptr = drv.cuMemHostAlloc(size, flags)
            fin = lambda: drv.cuMemFreeHost(ptr)  # noqa: E731
            if mapped:
                return cuda.MappedMemory(self.context, ptr, size, finalizer=fin)
            return cuda.PinnedMemory(self.context, ptr, size, finalizer=fin)

        def mempin(self, owner, pointer, size, mapped=False):
            calls.append(("mempin", size, mapped))
            drv = cudriver.driver()
            drv.cuMemHostRegister(pointer, size, 0)
            return cuda.PinnedMemory(self.context, pointer, size, owner=owner,
                                     finalizer=lambda: drv.cuMemHostUnregister(pointer))

    cuda.set_memory_manager(Full)
    p = cuda.pinned_array(4, dtype=np.int32)
    p[:] = 6
    np.testing.assert_array_equal(cuda.to_device(p).copy_to_host(), [6] * 4)
    m = cuda.mapped_array(2)
    m[:] = 1.5
    dev_ptr = m.__cuda_array_interface__["data"][0]
    assert fake.read(dev_ptr, 16) == m.tobytes()
    a = np.zeros(8)
    with cuda.pinned(a):
        assert len(fake._registered) == 1
    assert not fake._registered  # released at once, not deferred
    assert [c[0] for c in calls] == ["memhostalloc", "memhostalloc", "mempin"]
    assert calls[1][2] is True

"""EMM plugins, IPC and the runtime surface on a real GPU (the fake-driver versions are
tests/runtime/test_memory_managers.py and test_surface_names.py)."""

import gc
import multiprocessing
import pickle

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cuda():
    from numba import cuda as module
    from numba_cuda.runtime import memory_managers

    module.close()
    yield module
    module.close()
    memory_managers._memory_manager = None


class _Pool:
    """A bump allocator over one cuMemAlloc block (RMM's pool resource stands in so)."""

    def __init__(self, size=64 << 20):
        from cuda.bindings import driver

        err, base = driver.cuMemAlloc(size)
        assert err == driver.CUresult.CUDA_SUCCESS, err
        self.base, self.size, self.next = int(base), size, int(base) + 512
        self.live, self.freed = {}, []

    def allocate(self, size):
        ptr = self.next
        self.next += (size + 511) & ~511
        assert self.next <= self.base + self.size
        self.live[ptr] = size
        return ptr

    def release(self, ptr):
        self.freed.append(ptr)
        del self.live[ptr]


def _manager_class():
    from cuda.bindings.driver import CUdeviceptr
    from numba import cuda

    class PoolManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        def initialize(self):
            if not hasattr(self, "pool"):
                self.pool = _Pool()

        def memalloc(self, size):
            ptr = self.pool.allocate(size)
            allocations, pool = self.allocations, self.pool

            def finalizer():
                if allocations:
                    del allocations[ptr]
                pool.release(ptr)
            self.allocations[ptr] = size
            return cuda.MemoryPointer(self.context, CUdeviceptr(ptr), size, finalizer=finalizer)

        def get_memory_info(self):
            return cuda.MemoryInfo(self.pool.size - sum(self.pool.live.values()), self.pool.size)

        @property
        def interface_version(self):
            return 1

    return PoolManager


def test_a_pool_plugin_end_to_end(cuda):
    cuda.set_memory_manager(_manager_class())

    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    mgr = cuda.current_context().memory_manager
    host = np.arange(1000, dtype=np.float32)
    d = cuda.to_device(host)
    assert mgr.pool.base < d.device_pointer_value < mgr.pool.base + mgr.pool.size
    inc[8, 128](d)
    np.testing.assert_array_equal(d.copy_to_host(), host + 1)
    info = cuda.current_context().get_memory_info()
    assert info.total == mgr.pool.size and info.free <= mgr.pool.size - 4000
    ptr = d.device_pointer_value
    del d
    gc.collect()
    assert ptr in mgr.pool.freed and ptr not in mgr.allocations
    out = cuda.device_array((64, 3), dtype=np.int32, order="F")
    out[:] = 5
    assert out.copy_to_host().flags.f_contiguous
    np.testing.assert_array_equal(out.copy_to_host(), np.full((64, 3), 5))


def _child_reads(handle, queue):
    try:
        with handle as shared:
            queue.put(("ok", shared.copy_to_host()))
    except BaseException as exc:  # noqa: BLE001 - report anything to the parent
        queue.put(("error", repr(exc)))


def _child_opens_bytes(raw, n, queue):
    try:
        from numba import cuda

        with cuda.open_ipc_array(raw, shape=n, dtype=np.intp) as shared:
            queue.put(("ok", shared.copy_to_host()))
    except BaseException as exc:  # noqa: BLE001
        queue.put(("error", repr(exc)))


def _in_child(target, *args):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=args + (queue,))
    proc.start()
    status, value = queue.get(timeout=120)
    proc.join(30)
    assert status == "ok", value
    return value


@pytest.mark.parametrize("plugin", [False, True])
def test_ipc_to_another_process(cuda, plugin):
    if plugin:
        cuda.set_memory_manager(_manager_class())
    host = np.arange(10, dtype=np.intp)
    d = cuda.to_device(host)
    handle = d[3:].get_ipc_handle()
    if plugin:
        assert handle._ipc_handle.offset > 0  # inside the pool's allocation
    np.testing.assert_array_equal(_in_child(_child_reads, handle), host[3:])
    ipch = cuda.current_context().get_ipc_handle(d.gpu_data)
    assert pickle.loads(pickle.dumps(ipch)).base is None
    from numba_cuda.runtime.ipc import handle_bytes

    if not plugin:
        np.testing.assert_array_equal(
            _in_child(_child_opens_bytes, handle_bytes(ipch.handle), 10), host)
    with pytest.raises(ValueError, match="original process"):
        ipch.open(cuda.current_context())


def test_surface_on_the_gpu(cuda):
    import warnings

    from numba.core.errors import NumbaPerformanceWarning

    ctx = cuda.current_context()
    assert type(ctx).__name__ != "FakeCUDAContext"
    ctx.deallocations.clear()
    assert cuda.cuda_error() is None and cuda.is_supported_version()

    @cuda.jit
    def double(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    for hint, expect in ((cuda.In, [1, 2]), (cuda.InOut, [2, 4]), (cuda.Out, None)):
        host = np.array([1, 2], dtype=np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("error", NumbaPerformanceWarning)  # explicit: no warning
            double[1, 32](hint(host))
        if expect is not None:
            np.testing.assert_array_equal(host, expect)

    rec_t = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    rec = np.zeros(1, rec_t)
    rec[0]["a"] = 3

    @cuda.jit
    def setb(r):
        r.b = r.a * 1.5

    d = cuda.to_device(rec[0])
    assert isinstance(d, cuda.DeviceRecord)
    setb[1, 1](d)
    assert d["b"] == 4.5
    view = np.zeros((4, 6, 8), np.float32).transpose(2, 0, 1)[::2]
    assert cuda.device_array_like(view).strides == np.empty_like(view).strides


def test_rapids_rmm_on_the_gpu(cuda):
    """RAPIDS RMM's allocator end to end, where RMM is installed (it is not a dependency)."""
    rmm_numba = pytest.importorskip("rmm.allocators.numba")
    cuda.set_memory_manager(rmm_numba.RMMNumbaManager)
    mgr = cuda.current_context().memory_manager
    assert isinstance(mgr, rmm_numba.RMMNumbaManager)

    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    d = cuda.to_device(np.arange(100, dtype=np.int32))
    assert int(d.device_pointer_value) in mgr.allocations
    inc[1, 128](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(1, 101))
    handle = d.get_ipc_handle()
    np.testing.assert_array_equal(_in_child(_child_reads, handle), np.arange(1, 101))
    ptr = int(d.device_pointer_value)
    del d, handle
    gc.collect()
    assert ptr not in mgr.allocations

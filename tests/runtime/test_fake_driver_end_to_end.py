"""The public runtime API end to end on a host-memory fake of ``cuda.bindings.driver``.

Kernels are compiled for real by our compiler; the fake driver (tests/support/fake_driver.py)
loads their PTX, records launches and snapshots the kernel parameters the driver would read,
which are decoded here and compared with the arrays and values passed.  No kernel runs: a
test that needs a kernel's effect writes it with ``fake.on_launch``.
"""

import gc
import struct
import threading
import warnings

import numpy as np
import pytest

from tests.support.fake_driver import FakeDriver, installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch, ndevices=2)


def decode(fake_launch, kernel_codes):
    """Each recorded kernel parameter decoded with the packer's struct code."""
    params = fake_launch["params"]
    assert len(params) == len(kernel_codes)
    return [struct.unpack("<" + code, raw)[0] for code, raw in zip(kernel_codes, params)]


    (compiled,) = [v for v in dispatcher._kernel_cache.values()] if hasattr(
        dispatcher, "_kernel_cache") and isinstance(dispatcher._kernel_cache, dict) else [None]
    return compiled


# -- copies -------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["C", "F"])
def test_round_trips_and_views(fake, order):
    from numba import cuda

    a = np.asarray(np.arange(24, dtype=np.float32).reshape(4, 6), order=order)
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    assert d.copy_to_host().flags[order + "_CONTIGUOUS"]
    for index in [(slice(None), slice(1, None, 2)), (slice(None, None, -1), slice(None, None, -2)),
                  (2,), (slice(1, 3), 4)]:
        np.testing.assert_array_equal(d[index].copy_to_host(), a[index])
    np.testing.assert_array_equal(d.T.copy_to_host(), a.T)
    assert d[3, 5] == a[3, 5]
    d[1:, ::2] = 99
    a[1:, ::2] = 99
    d[0] = np.arange(6)
    a[0] = np.arange(6)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    out = np.zeros_like(a)[:, ::-1]
    d.copy_to_host(out)
    np.testing.assert_array_equal(out, a)


def test_device_to_device_and_structured(fake):
    from numba import cuda

    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    h = np.zeros(5, rec)
    h["a"] = np.arange(5)
    h["b"] = 0.5
    d = cuda.to_device(h)
    e = cuda.device_array_like(d)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), h)
    strided = cuda.to_device(np.arange(10.0))
    f = cuda.device_array(5)
    f.copy_to_device(strided[::2])
    np.testing.assert_array_equal(f.copy_to_host(), np.arange(10.0)[::2])
    assert any(entry[0] == "cuMemcpyDtoD" for entry in fake.log)


def test_streams_use_async_copies_and_events_time(fake):
    from numba import cuda

    s = cuda.stream()
    h = np.arange(6.0)
    start, end = cuda.event(), cuda.event()
    start.record(s)
    d = cuda.to_device(h, stream=s)
    out = d.copy_to_host(stream=s)
    end.record(s)
    end.synchronize()
    np.testing.assert_array_equal(out, h)
    names = [entry[0] for entry in fake.log]
    assert "cuMemcpyHtoDAsync" in names and "cuMemcpyDtoHAsync" in names
    copy = [e for e in fake.log if e[0] == "cuMemcpyHtoDAsync"][-1]
    assert int(copy[4]) == int(s)
    assert cuda.event_elapsed_time(start, end) > 0
    with pytest.raises(Exception, match="timing"):
        cuda.event(timing=False).elapsed_time(end)


def test_pinned_mapped_managed(fake):
    from numba import cuda

    p = cuda.pinned_array((4,), np.int32)
    p[:] = 3
    np.testing.assert_array_equal(cuda.to_device(p).copy_to_host(), p)
    m = cuda.mapped_array((2, 3), np.float64)
    m[:] = 5
    assert m.__cuda_array_interface__["data"][0] == m.__array_interface__["data"][0]
    g = cuda.managed_array((4,), np.int32)
    g[:] = 7
    assert fake.read(g.__cuda_array_interface__["data"][0], 16) == g.tobytes()
    a = np.arange(8.0)[::2]
    with cuda.pinned(a):
        assert len(fake._registered) == 1
    assert not fake._registered
    with cuda.mapped(a) as view:
        np.testing.assert_array_equal(view.copy_to_host(), a)
    assert not fake._registered


# -- kernels ------------------------------------------------------------------------
def _index_error_id(drv, launch):
    """The id the kernel of ``launch`` reports an IndexError with (ids are per process)."""
    table = _last_compiled(drv, None).exceptions
    return min(c for c, entry in table.entries.items() if entry[0] is IndexError)


def _last_compiled(fake, kernel):
    from numba_cuda.runtime.devices import current_context

    (loaded,) = [k for k in current_context().kernels.values()
                 if k.name == fake.launches[-1]["entry"]]
    return loaded


def test_kernel_parameters_decode_to_the_arguments(fake):
    from numba import cuda

    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

    @cuda.jit
    def k(a, b, c, d, e, f, g, h, arr, tup, r, u, arr2):
        arr[0, 0] = a + c + e + f + g + h.real + tup[0] + tup[1] + r.b + u + arr2[0, 0] + d
        if b:
            r.a = 1

    arr = cuda.to_device(np.zeros((3, 4)))
    full = cuda.to_device(np.zeros((5, 6)))
    arr2 = full[1:, ::3]
    records = np.zeros(2, rec)
    records[1]["b"] = 2.5
    args = (np.int8(-3), True, np.int16(300), np.float16(1.5), np.int32(-7), np.float32(0.25),
            2**40, np.complex64(1 - 2j), arr, (np.int32(9), 4.5), records[1], np.uint8(200), arr2)
    k[(3, 2), (32, 4)](*args)
    launch = fake.launches[-1]
    assert launch["grid"] == (3, 2, 1) and launch["block"] == (32, 4, 1)
    loaded = _last_compiled(fake, k)
    values = decode(launch, loaded.packer.codes)
    assert values[:9] == [-3, 1, 300, 1.5, -7, 0.25, 2**40, 1.0, -2.0]
    assert values[9:18] == [0, 0, 12, 8, arr.device_pointer_value, 3, 4, 32, 8]
    assert values[18:20] == [9, 4.5]
    record_address = values[20]
    assert fake.read(record_address, rec.itemsize) == records[1].tobytes()
    assert values[21] == 200
    assert values[22:] == [0, 0, 8, 8, arr2.device_pointer_value, 4, 2, 48, 24]
    assert arr2.device_pointer_value == full.device_pointer_value + 48


def test_host_arrays_and_records_are_copied_back(fake):
    from numba import cuda
    from numba.core.errors import NumbaPerformanceWarning

    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

    @cuda.jit
    def k(a, r):
        a[0, 0] = 1
        r.a = 5

    def kernel_effect(drv, launch):
        loaded = _last_compiled(drv, k)
        values = decode(launch, loaded.packer.codes)
        data, shape, strides = values[4], values[5:7], values[7:9]
        assert shape == [3, 2] and strides == [16, 8]  # a contiguous device copy
        drv.write(data, np.arange(6.0).tobytes())
        drv.write(values[9], struct.pack("<i", 5))

    fake.on_launch = kernel_effect
    host = np.zeros((3, 4))[:, ::2]  # not contiguous: copied in and back through a copy
    records = np.zeros(1, rec)
    with pytest.warns(NumbaPerformanceWarning, match="copied to the device"):
        k[1, 1](host, records[0])
    np.testing.assert_array_equal(host, np.arange(6.0).reshape(3, 2))
    assert records[0]["a"] == 5


def test_launch_configuration_limits_and_dynamic_shared_memory(fake):
    from numba import cuda
    from numba_cuda.errors import LaunchConfigError

    @cuda.jit
    def k(a):
        s = cuda.shared.array(0, np.float32)
        s[0] = a[0]

    d = cuda.to_device(np.zeros(4, np.float32))
    k[1, 32, 0, 100_000](d)
    assert fake.launches[-1]["shared"] == 100_000
    assert [e[3] for e in fake.log if e[0] == "cuFuncSetAttribute"] == [100_000]
    with pytest.raises(LaunchConfigError, match="MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"):
        k[1, 32, 0, 300_000](d)
    with pytest.raises(LaunchConfigError, match="MAX_BLOCK_DIM_X of 1024"):
        k[1, 2048](d)
    with pytest.raises(LaunchConfigError, match="MAX_THREADS_PER_BLOCK"):
        k[1, (64, 32)](d)
    with pytest.raises(LaunchConfigError, match="MAX_GRID_DIM_Y"):
        k[(1, 70_000), 1](d)


def test_launch_on_a_stream(fake):
    from numba import cuda

    @cuda.jit
    def k(a):
        a[0] = 1

    s = cuda.stream()
    d = cuda.to_device(np.zeros(1))
    k[1, 1, s](d)
    assert fake.launches[-1]["stream"] == int(s)
    k[1, 1](d)
    assert fake.launches[-1]["stream"] == 0


class ProtocolStream:
    """A stream of another library, seen only through the CUDA stream protocol (as
    cuda.core's ``Stream`` and ``GraphBuilder`` are)."""

    def __init__(self, handle, version=0):
        self.value, self.version = handle, version

    def __cuda_stream__(self):
        return (self.version, self.value)


def test_cuda_stream_protocol_objects_are_streams(fake):
    from numba import cuda

    from numba_cuda.runtime.current_streams import as_stream

    @cuda.jit
    def k(a):
        a[0] = 1

    s = cuda.stream()
    other = ProtocolStream(int(s))
    assert s.__cuda_stream__() == (0, int(s))
    d = cuda.to_device(np.zeros(2), stream=other)
    k[1, 1, other](d)
    assert fake.launches[-1]["stream"] == int(s)
    out = d.copy_to_host(stream=other)
    ev = cuda.event()
    ev.record(other)
    ev.wait(other)
    assert int([e for e in fake.log if e[0] == "cuMemcpyDtoHAsync"][-1][4]) == int(s)
    assert int([e for e in fake.log if e[0] == "cuEventRecord"][-1][2]) == int(s)
    assert as_stream(ProtocolStream(0)) is as_stream(0)  # handle 0: the default stream
    with pytest.raises(TypeError, match="version 1 of the CUDA stream protocol"):
        k[1, 1, ProtocolStream(int(s), version=1)](d)


def test_cooperative_launch(fake):
    from numba import cuda
    from numba_cuda.errors import LaunchConfigError

    @cuda.jit
    def k(a):
        cuda.cg.this_grid().sync()
        a[0] = 1

    d = cuda.to_device(np.zeros(4))
    k[4, 32](d)
    assert fake.launches[-1]["kind"] == "cuLaunchCooperativeKernel"
    limit = fake.occupancy_per_sm * fake.attributes["MULTIPROCESSOR_COUNT"]
    assert k.max_cooperative_grid_blocks(32) == limit
    with pytest.raises(LaunchConfigError, match=f"at most {limit} blocks"):
        k[limit + 1, 32](d)


def test_debug_kernel_error_record_is_read_and_cleared(fake):
    from numba import cuda

    @cuda.jit(debug=True)
    def k(a):
        a[cuda.grid(1)] = 1

    d = cuda.to_device(np.zeros(4))

    def kernel_effect(drv, launch):
        ((address, size),) = launch["module"].globals.values()
        drv.write(address, struct.pack("<7i", _index_error_id(drv, launch), 3, 0, 0, 1, 0, 0))

    fake.on_launch = kernel_effect
    with pytest.raises(IndexError, match=r"thread \(3, 0, 0\) of block \(1, 0, 0\)"):
        k[2, 4](d)
    ((address, size),) = fake.launches[-1]["module"].globals.values()
    assert fake.read(address, size) == bytes(size)  # cleared for the next launch
    fake.on_launch = None
    k[2, 4](d)  # no error recorded: no exception


def test_nvjitlink_cubin_path(monkeypatch):
    drv = FakeDriver().install(monkeypatch)
    from numba import cuda

    @cuda.jit
    def k(a, x):
        a[cuda.grid(1)] = x

    @cuda.jit(debug=True)
    def kd(a):
        a[cuda.grid(1)] = 1

    @cuda.jit(lto=True)
    def kl(a):
        a[0] = 1

    d = cuda.to_device(np.zeros(4))
    try:
        k[1, 4](d, 2.0)
        assert drv.launches[-1]["module"].kind == "cubin"
        kl[1, 1](d)
        assert drv.launches[-1]["module"].kind == "cubin"

        def kernel_effect(fake, launch):
            ((address, size),) = launch["module"].globals.values()
            fake.write(address, struct.pack("<7i", _index_error_id(fake, launch), 0, 0, 0, 0, 0, 0))

        drv.on_launch = kernel_effect
        # the error record survives nvJitLink: cuModuleGetGlobal finds it in the cubin
        with pytest.raises(IndexError, match="out of bounds"):
            kd[1, 1](d)
    finally:
        cuda.close()


def test_max_registers_reach_the_driver_jit(fake):
    from numba import cuda

    @cuda.jit(max_registers=40)
    def k(a):
        a[0] = 1

    k[1, 1](cuda.to_device(np.zeros(1)))
    (load,) = [e for e in fake.log if e[0].startswith("cuModuleLoad")]
    assert load[0] == "cuModuleLoadDataEx" and load[3:] == (
        [fake.CUjit_option.CU_JIT_MAX_REGISTERS], [40])


# -- contexts, devices, deallocation ------------------------------------------------------
def test_deferred_deallocation_and_close(fake):
    from numba import cuda
    from numba_cuda.runtime import memory

    ctx = cuda.current_context()
    for _ in range(3):
        cuda.to_device(np.zeros(100))
    gc.collect()
    assert len(ctx.deallocations) == 3 and len(fake.allocations) == 3
    for _ in range(memory.MAX_PENDING_COUNT):
        cuda.to_device(np.zeros(100))
    gc.collect()
    assert len(ctx.deallocations) < memory.MAX_PENDING_COUNT
    with cuda.defer_cleanup():
        for _ in range(2 * memory.MAX_PENDING_COUNT):
            cuda.to_device(np.zeros(100))
        gc.collect()
        assert len(ctx.deallocations) >= 2 * memory.MAX_PENDING_COUNT
    assert len(ctx.deallocations) == 0 and not fake.allocations
    s = cuda.stream()
    handle = int(s)
    del s
    gc.collect()
    cuda.synchronize()
    assert handle not in fake._streams
    kept = cuda.to_device(np.ones(3))
    cuda.close()
    assert fake._primary == {0: 0} and not fake.allocations
    del kept
    gc.collect()  # its context is closed: nothing is freed twice
    np.testing.assert_array_equal(cuda.to_device(np.ones(3)).copy_to_host(), np.ones(3))


def test_devices_and_gpus_context_manager(fake, capsys):
    from numba import cuda

    assert [d.id for d in cuda.list_devices()] == [0, 1]
    assert cuda.detect() is True
    assert "Found 2 CUDA devices" in capsys.readouterr().out
    assert cuda.get_current_device().id == 0
    with cuda.gpus[1]:
        assert cuda.get_current_device().id == 1
        d1 = cuda.to_device(np.ones(3))
        assert d1.gpu_data.context.device.id == 1
    assert cuda.get_current_device().id == 0
    assert cuda.gpus[1].MULTIPROCESSOR_COUNT == 132
    assert cuda.gpus[0].compute_capability == (9, 0)
    free, total = cuda.current_context().get_memory_info()
    assert total == 80 * 2**30 and free <= total
    cuda.select_device(1)
    assert cuda.get_current_device().id == 1
    del d1
    gc.collect()
    cuda.current_context().synchronize()


def test_fake_driver_rejects_types_the_binding_rejects(fake):
    from numba_cuda.runtime import cudriver

    drv = cudriver.driver()
    with pytest.raises(TypeError):
        drv.cuModuleGetFunction(drv.CUmodule(0), "name-as-str")


# -- regressions ------------------------------------------------------------------------
def test_pending_free_queued_while_the_queue_lock_is_held_does_not_deadlock():
    """A finalizer run by the garbage collector inside ``add``/``clear`` re-enters the queue
    in the same thread; a plain Lock deadlocked there."""
    from numba_cuda.runtime.memory import PendingDeallocations

    queue = PendingDeallocations(None, 1 << 30)
    done = []

    def reenter():
        with queue._lock:
            queue.add(lambda handle: None, 1, 8)
        done.append(True)

    worker = threading.Thread(target=reenter, daemon=True)
    worker.start()
    worker.join(5)
    assert done == [True]


def test_public_api_exports_defer_cleanup_and_event_elapsed_time():
    from numba import cuda

    assert callable(cuda.defer_cleanup) and callable(cuda.event_elapsed_time)


def test_host_array_copy_back_on_the_default_stream_is_complete_when_the_launch_returns(fake):
    """Page-locked host arrays passed to a kernel launched on the default stream: the copy
    back must have finished when the call returns (an async copy into pinned memory returns
    before the data arrives)."""
    from numba import cuda
    from numba.core.errors import NumbaPerformanceWarning

    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

    @cuda.jit
    def k(a, r):
        a[0] = 1
        r.a = 5

    def kernel_effect(drv, launch):
        values = decode(launch, _last_compiled(drv, k).packer.codes)
        drv.write(values[4], np.arange(4.0).tobytes())
        drv.write(values[7], struct.pack("<i", 5))

    fake.on_launch = kernel_effect
    host = cuda.pinned_array(4)
    host[:] = 0
    records = cuda.pinned_array(1, rec)
    with pytest.warns(NumbaPerformanceWarning):
        k[1, 1](host, records[0])
    np.testing.assert_array_equal(host, np.arange(4.0))
    assert records[0]["a"] == 5
    # on a user stream the copy back is ordered on that stream: complete after synchronize
    host[:] = 0
    s = cuda.stream()
    with pytest.warns(NumbaPerformanceWarning):
        k[1, 1, s](host, records[0])
    s.synchronize()
    np.testing.assert_array_equal(host, np.arange(4.0))


def test_fake_driver_queues_async_copies_into_page_locked_memory(fake):
    from numba import cuda

    d = cuda.to_device(np.arange(4.0))
    s = cuda.stream()
    pinned = cuda.pinned_array(4)
    pinned[:] = -1
    d.copy_to_host(pinned, stream=s)
    assert (pinned == -1).all()  # not yet: the copy is in flight
    s.synchronize()
    np.testing.assert_array_equal(pinned, np.arange(4.0))


def test_another_librarys_current_context_is_given_back(fake):
    """A context another library made current (CuPy, PyTorch use primary contexts) is current
    again after numba-cuda pushed and popped its own in this thread."""
    from cuda.bindings import driver as real
    from numba import cuda

    from numba_cuda.runtime import devices

    foreign = real.CUcontext(0xC000 + 1)  # device 1's primary context, made current elsewhere
    fake.cuCtxSetCurrent(foreign)
    assert not devices.has_current_context()
    with cuda.gpus[0]:
        assert int(fake.cuCtxGetCurrent()[1]) == 0xC000
    assert int(fake.cuCtxGetCurrent()[1]) == int(foreign)


def test_gpus_current_reports_another_librarys_context_without_binding_it(fake):
    """cuda.gpus.current asks the driver as Numba does: a context made current elsewhere is
    reported (its device), and nothing is bound in this thread by asking."""
    from cuda.bindings import driver as real
    from numba import cuda

    from numba_cuda.runtime import devices

    assert cuda.gpus.current is None
    fake.cuDevicePrimaryCtxRetain(real.CUdevice(1))  # what the other library did
    fake.cuCtxSetCurrent(real.CUcontext(0xC000 + 1))
    assert cuda.gpus.current.id == 1
    assert not devices.has_current_context()

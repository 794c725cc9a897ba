"""Runtime behaviour on a real GPU: devices, memory, transfers, streams, events, interop."""

import gc
import threading

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cuda():
    from numba import cuda as module

    return module


def test_devices_and_context(cuda):
    assert cuda.is_available()
    assert cuda.detect() is True
    devs = cuda.list_devices()
    assert len(devs) == len(cuda.gpus) >= 1
    dev = cuda.get_current_device()
    assert dev.id == 0 and isinstance(dev.name, str) and dev.name
    assert len(dev.compute_capability) == 2 and dev.compute_capability >= (5, 0)
    assert dev.MAX_THREADS_PER_BLOCK >= 512 and dev.MULTIPROCESSOR_COUNT >= 1
    assert dev.uuid.startswith("GPU-")
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total
    with cuda.gpus[0] as inner:
        assert cuda.get_current_device() == inner
    assert cuda.select_device(0).id == 0
    from numba_cuda.runtime.probe import probe_devices, probe_driver

    assert probe_driver()["version"] is not None
    assert probe_devices()[0]["compute_capability"] == "%d.%d" % dev.compute_capability


@pytest.mark.parametrize("shape,order", [((17,), "C"), ((5, 7), "C"), ((5, 7), "F"),
                                         ((2, 3, 4), "C"), ((), "C"), ((0, 3), "C")])
def test_round_trip(cuda, shape, order):
    host = np.asarray(np.random.default_rng(0).random(shape), order=order)
    d = cuda.to_device(host)
    assert d.shape == host.shape and d.dtype == host.dtype and d.strides == host.strides
    np.testing.assert_array_equal(d.copy_to_host(), host)
    out = np.empty_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)


def test_non_contiguous_host_and_views(cuda):
    host = np.arange(60, dtype=np.int32).reshape(6, 10)
    d = cuda.to_device(host[:, ::2])  # non-contiguous source becomes contiguous on the device
    np.testing.assert_array_equal(d.copy_to_host(), host[:, ::2])
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d[1:4].copy_to_host(), host[1:4])
    np.testing.assert_array_equal(d[:, 3].copy_to_host(), host[:, 3])
    np.testing.assert_array_equal(d[::-2, 1::3].copy_to_host(), host[::-2, 1::3])
    np.testing.assert_array_equal(d.T.copy_to_host(), host.T)
    assert d[2, 5] == host[2, 5]
    np.testing.assert_array_equal(d.reshape(10, 6).copy_to_host(), host.reshape(10, 6))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), host.ravel())
    parts = cuda.to_device(np.arange(10)).split(4)
    np.testing.assert_array_equal(parts[2].copy_to_host(), [8, 9])


def test_setitem_and_copy_to_device(cuda):
    host = np.zeros((4, 6), dtype=np.float64)
    d = cuda.to_device(host)
    d[1] = 5.0
    host[1] = 5.0
    d[:, 2] = np.arange(4)
    host[:, 2] = np.arange(4)
    d[3, 4] = -1
    host[3, 4] = -1
    d[::2, ::3] = 7
    host[::2, ::3] = 7
    np.testing.assert_array_equal(d.copy_to_host(), host)
    other = np.full((4, 6), 3.0)
    d.copy_to_device(other)
    np.testing.assert_array_equal(d.copy_to_host(), other)
    e = cuda.device_array_like(other)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), other)
    with pytest.raises(ValueError, match="shape mismatch"):
        d.copy_to_device(np.zeros((3, 6)))


def test_device_array_constructors(cuda):
    d = cuda.device_array((3, 4), dtype=np.int16, order="F")
    assert d.is_f_contiguous() and d.dtype == np.int16
    like = cuda.device_array_like(np.zeros((2, 5), order="F"))
    assert like.is_f_contiguous()
    p = cuda.pinned_array((8,), dtype=np.float32)
    p[:] = np.arange(8)
    np.testing.assert_array_equal(cuda.to_device(p).copy_to_host(), np.arange(8))
    m = cuda.mapped_array((8,), dtype=np.int64)
    m[:] = 3
    desc = m.__cuda_array_interface__
    assert desc["data"][0] != 0
    np.testing.assert_array_equal(cuda.as_cuda_array(m).copy_to_host(), np.full(8, 3))
    g = cuda.managed_array((16,), dtype=np.float64)
    g[:] = 1.5
    cuda.synchronize()
    np.testing.assert_array_equal(cuda.as_cuda_array(g).copy_to_host(), np.full(16, 1.5))


def test_pinned_and_mapped_context_managers(cuda):
    host = np.arange(32, dtype=np.float32)
    with cuda.pinned(host):
        d = cuda.to_device(host)
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with cuda.mapped(host) as dev_view:
        np.testing.assert_array_equal(dev_view.copy_to_host(), host)


def test_streams_and_events(cuda):
    s = cuda.stream()
    assert int(s) != 0
    host = np.arange(1 << 16, dtype=np.float32)
    start, end = cuda.event(), cuda.event()
    start.record(s)
    with s.auto_synchronize():
        d = cuda.to_device(host, stream=s)
        out = d.copy_to_host(stream=s)
    end.record(s)
    end.synchronize()
    np.testing.assert_array_equal(out, host)
    assert start.elapsed_time(end) >= 0.0
    assert end.query() and s.query()
    ev = cuda.event(timing=False)
    ev.record(s)
    ev.wait(cuda.default_stream())
    cuda.default_stream().synchronize()
    assert int(cuda.legacy_default_stream()) == 1
    assert int(cuda.per_thread_default_stream()) == 2
    ext = cuda.external_stream(int(s))
    ext.synchronize()
    cuda.synchronize()


def test_deferred_deallocation(cuda):
    ctx = cuda.current_context()
    free_before = ctx.get_memory_info().free
    arrays = [cuda.device_array(1 << 20, dtype=np.uint8) for _ in range(4)]
    del arrays
    gc.collect()
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0
    assert ctx.get_memory_info().free >= free_before - (8 << 20)


def test_context_in_another_thread(cuda):
    result = {}

    def work():
        result["value"] = cuda.to_device(np.arange(5)).copy_to_host().sum()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert result["value"] == 10


def test_cuda_array_interface_round_trip(cuda):
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))
    assert cuda.is_cuda_array(d)
    view = cuda.from_cuda_array_interface(d.T.__cuda_array_interface__, owner=d)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(12.0).reshape(3, 4).T)
    s = cuda.stream()
    bound = d.bind(s)
    assert bound.__cuda_array_interface__["stream"] == int(s)


def test_dlpack_round_trip_on_device(cuda):
    d = cuda.to_device(np.arange(10, dtype=np.int32))
    assert d.__dlpack_device__() == (2, 0)
    again = cuda.from_dlpack(d)
    np.testing.assert_array_equal(again.copy_to_host(), np.arange(10))
    assert again.device_pointer_value == d.device_pointer_value


def test_cupy_interop(cuda):
    cp = pytest.importorskip("cupy")
    a = cp.arange(10, dtype=cp.float32)
    d = cuda.as_cuda_array(a)
    assert d.device_pointer_value == a.data.ptr
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10, dtype=np.float32))
    back = cp.asarray(cuda.to_device(np.arange(4.0)))
    assert float(back.sum()) == 6.0
    via_dlpack = cp.from_dlpack(cuda.to_device(np.arange(6, dtype=np.int64)))
    assert int(via_dlpack.sum()) == 15
    from_cupy = cuda.from_dlpack(cp.arange(5, dtype=cp.int32))
    np.testing.assert_array_equal(from_cupy.copy_to_host(), np.arange(5))


def test_torch_interop(cuda):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    t = torch.arange(8, dtype=torch.float32, device="cuda")
    d = cuda.as_cuda_array(t)
    assert d.device_pointer_value == t.data_ptr()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8, dtype=np.float32))
    back = torch.from_dlpack(cuda.to_device(np.arange(3.0)))
    assert back.sum().item() == 3.0


def test_errors_are_ours(cuda):
    from numba_cuda.errors import CudaSupportError, LaunchConfigError  # noqa: F401

    with pytest.raises(CudaSupportError, match="there is no CUDA device 99"):
        cuda.select_device(99)

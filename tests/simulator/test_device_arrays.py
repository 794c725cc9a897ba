"""Device-array, stream, event and device fakes of the simulator."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


def test_to_device_copy_to_host_round_trip_is_a_copy():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = cuda.to_device(host)
    host[0, 0] = 99
    back = d.copy_to_host()
    assert back[0, 0] == 0 and back.shape == (3, 4) and back.dtype == np.float32
    assert (d.shape, d.ndim, d.size, d.dtype, d.nbytes) == ((3, 4), 2, 12, np.float32, 48)
    assert d.strides == (16, 4)
    out = np.empty((3, 4), np.float32)
    assert d.copy_to_host(out) is out and out[2, 3] == 11
    with pytest.raises(ValueError, match="host array has shape"):
        d.copy_to_host(np.empty(5, np.float32))


def test_copy_to_device_and_setitem():
    d = cuda.device_array(4, dtype=np.int64)
    assert (d.copy_to_host() == 0).all()
    d.copy_to_device(np.array([1, 2, 3, 4]))
    d[1] = 20
    d[2:] = np.array([30, 40])
    assert list(d.copy_to_host()) == [1, 20, 30, 40]
    other = cuda.to_device(np.array([5, 6, 7, 8]))
    d.copy_to_device(other)
    assert list(d.copy_to_host()) == [5, 6, 7, 8]
    with pytest.raises(ValueError, match="source has shape"):
        d.copy_to_device(np.zeros(3))


def test_views_reshape_ravel_split_transpose():
    d = cuda.to_device(np.arange(12))
    view = d[2:6]
    assert isinstance(view, cuda.DeviceNDArray) and list(view.copy_to_host()) == [2, 3, 4, 5]
    assert d[3] == 3
    m = d.reshape(3, 4)
    assert m.shape == (3, 4) and m.is_c_contiguous() and not m.is_f_contiguous()
    assert m.T.shape == (4, 3) and m.T.is_f_contiguous()
    assert m.ravel().shape == (12,)
    parts = d.split(5)
    assert [p.size for p in parts] == [5, 5, 2]
    view[0] = -1  # views share memory
    assert d.copy_to_host()[2] == -1
    with pytest.raises(NotImplementedError, match="non-contiguous"):
        m[:, ::2].ravel()


def test_kernel_writes_are_visible_through_every_view():
    @cuda.jit
    def inc(a):
        a[cuda.grid(1)] += 1

    d = cuda.to_device(np.zeros(8))
    inc[1, 4](d[4:])
    assert list(d.copy_to_host()) == [0] * 4 + [1] * 4


def test_device_array_like_keeps_layout():
    f = np.asfortranarray(np.zeros((3, 2), np.float32))
    d = cuda.device_array_like(f)
    assert d.is_f_contiguous() and d.shape == (3, 2) and d.dtype == np.float32


def test_cuda_array_interface_export_and_import():
    d = cuda.to_device(np.arange(6, dtype=np.int16).reshape(2, 3))
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (2, 3) and cai["typestr"] == "<i2"
    assert cai["strides"] is None and cai["stream"] is None and cai["data"][1] is False
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.zeros(1))

    class Foreign:
        def __init__(self, desc):
            self.__cuda_array_interface__ = desc

    foreign = Foreign(cai)
    wrapped = cuda.as_cuda_array(foreign)
    assert isinstance(wrapped, cuda.DeviceNDArray) and wrapped.shape == (2, 3)
    wrapped[0, 0] = 100  # same memory
    assert d.copy_to_host()[0, 0] == 100
    again = cuda.from_cuda_array_interface(cai, owner=d)
    assert again.copy_to_host()[1, 2] == 5

    @cuda.jit
    def double(a):
        x, y = cuda.grid(2)
        if x < a.shape[0] and y < a.shape[1]:
            a[x, y] *= 2

    double[1, (2, 3)](foreign)  # kernels accept any exporter without a copy
    assert list(d.copy_to_host().ravel()) == [200, 2, 4, 6, 8, 10]
    with pytest.raises(TypeError, match="does not export"):
        cuda.as_cuda_array(np.zeros(2))


def test_non_contiguous_interface_has_strides():
    d = cuda.to_device(np.zeros((4, 4)))[:, 1]
    assert d.__cuda_array_interface__["strides"] == (32,)


def test_dlpack():
    d = cuda.to_device(np.arange(4.0))
    assert np.from_dlpack(d).tolist() == [0, 1, 2, 3]


def test_pinned_mapped_managed():
    p = cuda.pinned_array((2, 2), np.float32)
    assert isinstance(p, np.ndarray) and p.dtype == np.float32
    assert cuda.pinned_array_like(p).shape == (2, 2)
    m = cuda.mapped_array(4, np.int32)
    g = cuda.managed_array(4, np.int32)
    assert isinstance(m, np.ndarray) and isinstance(m, cuda.DeviceNDArray)
    assert cuda.is_cuda_array(g) and cuda.mapped_array_like(m).shape == (4,)

    @cuda.jit
    def fill(a):
        a[cuda.grid(1)] = 7

    fill[1, 4](m)
    fill[1, 4](g)
    assert list(m) == [7] * 4 and list(g) == [7] * 4
    host = np.zeros(3)
    with cuda.pinned(host):
        pass
    with cuda.mapped(host) as dev:
        fill[1, 3](dev)
    assert list(host) == [7, 7, 7]


def test_in_out_inout_hints():
    @cuda.jit
    def k(a, b, c):
        i = cuda.grid(1)
        b[i] = a[i] + 1
        a[i] = -1
        c[i] *= 2

    a, b, c = np.ones(3), np.zeros(3), np.ones(3)
    k[1, 3](cuda.In(a), cuda.Out(b), cuda.InOut(c))
    assert list(a) == [1, 1, 1]    # In: the kernel's writes are not copied back
    assert list(b) == [2, 2, 2] and list(c) == [2, 2, 2]


def test_record_to_device():
    rec_t = np.dtype([("a", np.int32), ("b", np.float64)])
    rec = np.zeros(1, rec_t)[0]
    d = cuda.to_device(rec)
    assert isinstance(d, cuda.DeviceRecord)


def test_streams_are_synchronous_fakes():
    s = cuda.stream()
    assert s.handle and int(s) == s.handle
    d = cuda.to_device(np.arange(3), stream=s)
    with s.auto_synchronize():
        host = d.copy_to_host(stream=s)
    s.synchronize()
    assert list(host) == [0, 1, 2]
    assert int(cuda.default_stream()) == 0
    assert int(cuda.legacy_default_stream()) == 1 and int(cuda.per_thread_default_stream()) == 2
    called = []
    s.add_callback(lambda stream, status, arg: called.append(arg), "x")
    assert called == ["x"]

    @cuda.jit
    def k(a):
        a[0] = 1

    a = cuda.device_array(1)
    k[1, 1, s](a)
    k[1, 1, s, 0](a)
    cuda.synchronize()
    assert a.copy_to_host()[0] == 1


def test_events_measure_host_time():
    start, end = cuda.event(), cuda.event(timing=True)
    start.record()
    sum(range(10000))
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    assert cuda.event_elapsed_time(start, end) == start.elapsed_time(end)
    with pytest.raises(cuda.CudaError, match="recorded"):
        cuda.event().elapsed_time(end)


def test_devices_and_context(capsys):
    assert cuda.is_available()
    assert cuda.detect() is True
    assert "SIMULATOR" in capsys.readouterr().out
    dev = cuda.get_current_device()
    assert dev.name == "SIMULATOR" and dev.id == 0
    assert dev.compute_capability >= (7, 5)
    assert dev.MAX_THREADS_PER_BLOCK == 1024 and dev.WARP_SIZE == 32
    assert cuda.gpus[0].compute_capability == dev.compute_capability and len(cuda.gpus) == 1
    with cuda.gpus[0]:
        free, total = cuda.current_context().get_memory_info()
        assert 0 < free <= total
    assert cuda.select_device(0) is dev
    with pytest.raises(cuda.CudaSupportError, match="one device"):
        cuda.select_device(1)
    assert list(cuda.list_devices())[0].name == "SIMULATOR"
    cuda.close()

    @cuda.require_context
    def f():
        return 3

    assert f() == 3


def test_record_arrays_by_attribute_and_by_key():
    rec_t = np.dtype([("x", np.int32), ("y", np.float64)])

    @cuda.jit
    def k(recs, single, out):
        i = cuda.grid(1)
        recs[i].x = i * 2
        recs[i]["y"] = recs[i].x + 0.5
        out[i] = single.y + single["x"]

    recs = np.zeros(4, rec_t)
    single = np.array([(3, 1.25)], rec_t)[0]
    out = np.zeros(4)
    k[1, 4](recs, single, out)
    assert list(recs["x"]) == [0, 2, 4, 6] and list(recs["y"]) == [0.5, 2.5, 4.5, 6.5]
    assert (out == 4.25).all()
    d = cuda.to_device(np.zeros(4, rec_t))
    k[1, 4](d, single, out)
    assert list(d.copy_to_host()["y"]) == [0.5, 2.5, 4.5, 6.5]


def test_from_dlpack_shares_host_memory_and_runs_in_kernels():
    import numpy as np

    from numba_cuda.simulator import api as sim

    host = np.arange(8, dtype=np.float32)
    dev = sim.from_dlpack(host)
    assert isinstance(dev, sim.DeviceNDArray) and dev.shape == (8,)

    @sim.jit
    def double(a):
        i = sim.grid(1)
        if i < a.size:
            a[i] *= 2

    double[1, 8](dev)
    np.testing.assert_array_equal(host, np.arange(8, dtype=np.float32) * 2)  # same memory
    assert sim.from_dlpack(dev) is dev


def test_from_dlpack_refuses_what_numpy_cannot_read():
    import pytest

    from numba_cuda.simulator import api as sim

    with pytest.raises(TypeError, match="DLPack in the simulator"):
        sim.from_dlpack(object())


def test_dlpack_import_uses_the_producers_view_only_for_the_same_writable_memory():
    """NumPy < 2.3 imports DLPack read-only; the simulator then uses the producer's own view,
    but only when it is the same memory and writable itself."""
    import numpy as np

    from numba_cuda.simulator.devicearray import _writable_producer_view

    base = np.arange(6.0)
    imported = base.view()
    imported.flags.writeable = False
    assert _writable_producer_view(base, imported) is base
    assert _writable_producer_view(np.arange(6.0), imported) is imported      # other memory
    assert _writable_producer_view(base[::2], imported) is imported            # other layout
    read_only = base.view()
    read_only.flags.writeable = False
    assert _writable_producer_view(read_only, imported) is imported            # producer read-only
    assert _writable_producer_view(object(), imported) is imported             # no host view

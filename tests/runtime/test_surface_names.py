"""Names and behaviours that code written for Numba's ``numba.cuda`` touches on the real
target, beyond the documented API (on the fake driver; the simulator's side is in
tests/simulator/test_surface_names.py)."""

import struct
import warnings

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def test_module_attributes_and_error_classes():
    from numba import cuda
    from numba_cuda import errors

    assert cuda.devicearray.DeviceNDArray is cuda.DeviceNDArray
    assert cuda.cudadrv.devicearray.DeviceRecord is cuda.DeviceRecord
    assert issubclass(cuda.DeviceRecord, cuda.DeviceNDArray)
    assert cuda.devices.get_context is not None and cuda.driver.device_to_host is not None
    assert cuda.CudaSupportError is errors.CudaSupportError
    assert cuda.CudaSupportError is cuda.cudadrv.error.CudaSupportError
    assert issubclass(cuda.NotAvailableInSimulator, NotImplementedError)
    err = cuda.KernelRuntimeError("boom", tid=[1, 0, 0], ctaid=[2, 0, 0])
    assert isinstance(err, RuntimeError) and (err.tid, err.ctaid, err.msg) == ([1, 0, 0], [2, 0, 0], "boom")
    assert str(err) == "An exception was raised in thread=[1, 0, 0] block=[2, 0, 0]\n\tboom"
    assert cuda.Dim3 is cuda.types.Dim3 and cuda.GridGroup is cuda.types.GridGroup
    from numba_cuda.common import args

    assert (cuda.In, cuda.Out, cuda.InOut) == (args.In, args.Out, args.InOut)
    a = np.zeros(2)
    assert cuda.InOut(a).value is a


def test_cuda_error_and_is_supported_version_without_a_driver(monkeypatch):
    from numba import cuda
    from numba_cuda.runtime import cudart, cudriver

    monkeypatch.setenv("NUMBA_DISABLE_CUDA", "1")
    cudriver.reset_for_tests()
    try:
        err = cuda.cuda_error()
        assert isinstance(err, cuda.CudaSupportError) and "NUMBA_DISABLE_CUDA" in str(err)
    finally:
        monkeypatch.delenv("NUMBA_DISABLE_CUDA")
        cudriver.reset_for_tests()
    monkeypatch.setattr(cudart.Runtime, "get_version", lambda self: (13, 1))
    assert cuda.is_supported_version() is True
    assert cuda.cudadrv.runtime.runtime.is_supported_version() is True
    assert cuda.runtime.get_version() == (13, 1)  # Numba's cuda.runtime queries
    assert cuda.runtime.is_supported_version() is True
    monkeypatch.setattr(cudart.Runtime, "get_version", lambda self: (11, 8))
    assert cuda.is_supported_version() is False


def test_cuda_error_is_none_with_a_driver(fake):
    from numba import cuda

    assert cuda.cuda_error() is None


def test_context_surface(fake):
    from numba import cuda

    ctx = cuda.current_context()
    assert ctx.__class__.__name__ != "FakeCUDAContext"  # code sniffs the simulator so
    info = ctx.get_memory_info()
    assert info.free <= info.total and info == (info.free, info.total)
    assert type(info).__name__ == "MemoryInfo" and isinstance(info, cuda.MemoryInfo)
    d = cuda.device_array(8)
    del d
    assert len(ctx.deallocations) == 1
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0
    assert not [base for base in fake.allocations]


def _launched_array(launch, index):
    """(data pointer, shape, strides) of a 1-d array parameter that starts at ``index``."""
    raw = launch["params"]
    return (struct.unpack("<Q", raw[index + 4])[0], struct.unpack("<q", raw[index + 5])[0],
            struct.unpack("<q", raw[index + 6])[0])


def test_in_out_inout_copy_only_what_they_say(fake):
    from numba import cuda
    from numba.core.errors import NumbaPerformanceWarning

    @cuda.jit
    def k(a):
        a[0] = 1

    def kernel_effect(drv, launch):
        data, n, _ = _launched_array(launch, 0)
        seen.append(drv.read(data, 8 * n))
        drv.write(data, np.full(n, 9, np.int64).tobytes())

    fake.on_launch = kernel_effect
    for hint, copied_in, copied_back in ((cuda.In, True, False), (cuda.Out, False, True),
                                         (cuda.InOut, True, True)):
        host = np.arange(4, dtype=np.int64)
        seen = []
        fake.log.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("error", NumbaPerformanceWarning)  # explicit: no warning
            k[1, 1](hint(host))
        names = [e[0] for e in fake.log]
        assert any(n.startswith("cuMemcpyHtoD") for n in names) is copied_in, hint
        assert any(n.startswith("cuMemcpyDtoH") for n in names) is copied_back, hint
        assert (seen[0] == np.arange(4, dtype=np.int64).tobytes()) is copied_in
        expect = np.full(4, 9) if copied_back else np.arange(4)
        np.testing.assert_array_equal(host, expect)
    d = cuda.to_device(np.arange(4, dtype=np.int64))
    fake.log.clear()
    k[1, 1](cuda.In(d))  # a device array is passed as it is
    assert not [e for e in fake.log if e[0].startswith("cuMemcpy")]
    with pytest.raises(TypeError, match="wraps an array"):
        k[1, 1](cuda.In(3))


def test_warn_on_implicit_copy_setting(fake, monkeypatch):
    from numba import cuda
    from numba.core import config
    from numba.core.errors import NumbaPerformanceWarning

    @cuda.jit
    def k(a):
        a[0] = 1

    host = np.zeros(2)
    with pytest.warns(NumbaPerformanceWarning, match="NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"):
        k[1, 1](host)
    monkeypatch.setattr(config, "CUDA_WARN_ON_IMPLICIT_COPY", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)
        k[1, 1](host)
    monkeypatch.setattr(config, "CUDA_WARN_ON_IMPLICIT_COPY", 1)
    monkeypatch.setattr(config, "DISABLE_PERFORMANCE_WARNINGS", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)
        k[1, 1](host)


def test_array_interface_sync_setting(fake, monkeypatch):
    from numba import cuda
    from numba.core import config

    s = cuda.stream()
    d = cuda.device_array(4)

    class Foreign:
        __cuda_array_interface__ = dict(d.__cuda_array_interface__, stream=int(s))

    def syncs():
        return [e for e in fake.log if e[0] == "cuStreamSynchronize" and int(e[1]) == int(s)]

    fake.log.clear()
    cuda.as_cuda_array(Foreign())
    assert len(syncs()) == 1
    monkeypatch.setattr(config, "CUDA_ARRAY_INTERFACE_SYNC", 0)
    fake.log.clear()
    cuda.as_cuda_array(Foreign())
    assert syncs() == []


def test_the_settings_fall_back_to_the_environment(monkeypatch):
    from numba.core import config

    from numba_cuda.runtime import user_settings

    monkeypatch.delattr(config, "CUDA_ARRAY_INTERFACE_SYNC", raising=False)
    monkeypatch.delattr(config, "CUDA_MEMORY_MANAGER", raising=False)
    monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")
    monkeypatch.setenv("NUMBA_CUDA_MEMORY_MANAGER", "some.plugin")
    assert user_settings.array_interface_sync() is False
    assert user_settings.memory_manager_module() == "some.plugin"
    monkeypatch.delenv("NUMBA_CUDA_MEMORY_MANAGER")
    assert user_settings.memory_manager_module() == "default"


def test_device_record(fake):
    from numba import cuda

    rec_t = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.int16, (3,))], align=True)
    host = np.zeros(1, rec_t)
    host[0]["a"] = 5
    host[0]["b"] = 2.5
    host[0]["c"] = [1, 2, 3]
    d = cuda.to_device(host[0])
    assert isinstance(d, cuda.DeviceRecord) and d.shape == () and d.dtype == rec_t
    assert d["a"] == 5 and d["b"] == 2.5
    np.testing.assert_array_equal(d["c"].copy_to_host(), [1, 2, 3])
    d["a"] = 7
    assert d.copy_to_host()["a"] == 7
    from numba import typeof
    from numba.core import types

    assert isinstance(typeof(d), types.Record)

    @cuda.jit
    def k(r):
        r.a = 1

    fake.on_launch = lambda drv, launch: seen.append(struct.unpack("<Q", launch["params"][0])[0])
    seen = []
    fake.log.clear()
    k[1, 1](d)
    assert seen == [d.device_pointer_value]  # passed by address, no copy
    assert not [e for e in fake.log if e[0].startswith("cuMemcpy")]
    import pickle

    again = pickle.loads(pickle.dumps(d))
    assert isinstance(again, cuda.DeviceRecord) and again.copy_to_host()["a"] == 7
    empty = cuda.cudadrv.devicearray.from_record_like(host[0])
    assert isinstance(empty, cuda.DeviceRecord) and empty.dtype == rec_t


def test_like_functions_keep_numbas_strides(fake):
    """device_array_like of a strided view is contiguous with the view's axis order (NumPy's
    ``empty_like`` rule, which Numba follows), not C-ordered."""
    from numba import cuda

    base = np.zeros((4, 6, 8), dtype=np.float32)
    views = (base[:, ::2, :], base.transpose(1, 0, 2)[:, ::2], base.transpose(2, 0, 1)[::2],
             base[::2].T, np.asfortranarray(base), base[:, 1], base[:, :, ::4])
    for view in views:
        expect = np.empty_like(view).strides
        assert cuda.device_array_like(view).strides == expect, view.strides
        dev_view = cuda.to_device(base)[:, ::2, :].transpose((2, 0, 1))
        assert cuda.device_array_like(dev_view).strides == \
            np.empty_like(base[:, ::2, :].transpose(2, 0, 1)).strides
    permuted = base.transpose(2, 0, 1)[::2]
    assert cuda.pinned_array_like(permuted).strides == np.empty_like(permuted).strides
    assert cuda.mapped_array_like(permuted).strides == np.empty_like(permuted).strides
    f = cuda.to_device(np.asfortranarray(np.arange(12.0).reshape(3, 4)))
    like = cuda.device_array_like(f)
    assert like.is_f_contiguous() and not like.is_c_contiguous()


def test_copy_to_host_keeps_the_device_layout(fake):
    from numba import cuda

    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    d = cuda.to_device(f)
    out = d.copy_to_host()
    assert out.flags.f_contiguous and not out.flags.c_contiguous and out.strides == f.strides
    np.testing.assert_array_equal(out, f)
    strided = cuda.to_device(np.arange(24.0).reshape(4, 6))[:, ::2]
    out = strided.copy_to_host()
    assert out.strides == strided.strides  # Numba returns the device array's strides
    np.testing.assert_array_equal(out, np.arange(24.0).reshape(4, 6)[:, ::2])


def test_record_copies_and_auto_device(fake):
    from numba import cuda, typeof
    from numba.core import types

    rec_t = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    host = np.zeros(2, rec_t)
    host[1] = (3, 1.5)
    dev, converted = cuda.cudadrv.devicearray.auto_device(host[1])
    assert converted and isinstance(dev, cuda.DeviceRecord)
    assert isinstance(typeof(dev), types.Record)
    target = np.zeros(1, rec_t)[0].copy()  # a numpy.void that owns its bytes
    assert dev.copy_to_host(target) is target and target["a"] == 3 and target["b"] == 1.5
    view = np.zeros(3, rec_t)
    dev.copy_to_host(view[2])  # a void viewing an array element writes the array
    assert view[2]["a"] == 3 and view[0]["a"] == 0


def test_cudadrv_helpers(fake):
    from numba import cuda

    d = cuda.to_device(np.arange(8, dtype=np.uint8))
    cuda.cudadrv.driver.device_memset(d, 0x5A, 4)
    np.testing.assert_array_equal(d.copy_to_host(), [0x5A] * 4 + [4, 5, 6, 7])
    d.gpu_data.memset(1, 2)
    assert d.copy_to_host()[:3].tolist() == [1, 1, 0x5A]


def test_host_memory_objects_are_buffers_and_memset_takes_mapped_arrays(fake):
    from numba import cuda

    ctx = cuda.current_context()
    mem = ctx.memhostalloc(16, mapped=True)
    view = np.frombuffer(mem.__buffer__(0), dtype=np.uint8)  # what numpy uses on 3.12+
    view[:] = 3
    assert bytes(np.asarray(mem)) == b"\x03" * 16
    m = cuda.mapped_array(8, dtype=np.uint8)
    cuda.cudadrv.driver.device_memset(m, 0x11, 8)
    assert m.tolist() == [0x11] * 8

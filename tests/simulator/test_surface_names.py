"""The simulator's side of the surface code written for Numba touches (the real target's is
tests/runtime/test_surface_names.py): the same names, Numba's simulator behaviour."""

import warnings

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


def test_context_is_named_as_in_numbas_simulator():
    ctx = cuda.current_context()
    assert ctx.__class__.__name__ == "FakeCUDAContext"
    info = ctx.get_memory_info()
    assert type(info).__name__ == "MemoryInfo" and isinstance(info, cuda.MemoryInfo)
    assert 0 < info.free <= info.total and info == (info.free, info.total)
    ctx.deallocations.clear()  # valid, nothing is ever deferred
    assert len(ctx.deallocations) == 0


def test_module_attributes_and_names():
    assert cuda.devicearray.DeviceNDArray is cuda.DeviceNDArray
    assert cuda.devicearray.DeviceRecord is cuda.DeviceRecord
    assert cuda.devices.get_context() is cuda.current_context()
    assert cuda.cuda_error() is None and cuda.is_supported_version() is True
    assert issubclass(cuda.CudaSupportError, ImportError)
    from numba_cuda import errors

    assert cuda.KernelRuntimeError is errors.KernelRuntimeError
    from numba_cuda import types

    assert cuda.Dim3 is types.Dim3 and cuda.GridGroup is types.GridGroup
    a = np.zeros(3)
    assert cuda.In(a).value is a and cuda.Out(a).value is a and cuda.InOut(a).value is a


def test_copy_to_host_keeps_the_layout():
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    out = cuda.to_device(f).copy_to_host()
    assert out.flags.f_contiguous and not out.flags.c_contiguous
    np.testing.assert_array_equal(out, f)


def test_like_functions_keep_numbas_strides():
    base = np.zeros((4, 6, 8), dtype=np.float32)
    for view in (base[:, ::2, :], base.transpose(2, 0, 1)[::2], base[::2].T, base[:, :, ::4]):
        expect = np.empty_like(view).strides
        d = cuda.device_array_like(view)
        assert d.strides == expect, view.strides
        d[...] = view + 1
        np.testing.assert_array_equal(d.copy_to_host(), view + 1)
        assert cuda.pinned_array_like(view).strides == expect
        assert cuda.mapped_array_like(view).strides == expect
    with pytest.raises(ValueError, match="strides"):
        cuda.device_array((2, 3), strides=(8,))


def _plugin(version):
    class Plugin(cuda.HostOnlyCUDAMemoryManager):
        def initialize(self):
            pass

        def memalloc(self, size):
            return cuda.MemoryPointer(self.context, 0x1000, size, finalizer=lambda: None)

        def get_memory_info(self):
            return cuda.MemoryInfo(1, 2)

        def get_ipc_handle(self, memory):
            raise NotImplementedError

        @property
        def interface_version(self):
            return version

    return Plugin


def test_emm_plugins_are_checked_and_not_called():
    with pytest.warns(RuntimeWarning, match="does not call the memory manager .*Plugin"):
        cuda.set_memory_manager(_plugin(1))
    d = cuda.device_array(4)  # numpy memory, whatever the plugin
    assert isinstance(d.copy_to_host(), np.ndarray)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="version 1 required"):
            cuda.set_memory_manager(_plugin(2))
    assert issubclass(cuda.HostOnlyCUDAMemoryManager, cuda.BaseCUDAMemoryManager)
    for cls in (cuda.MemoryPointer, cuda.MappedMemory, cuda.PinnedMemory):
        freed = []
        mem = cls(None, 0x2000, 16, finalizer=lambda: freed.append(1))
        assert mem.size == 16
        del mem
        assert freed == [1]


def test_emm_memory_objects_are_the_driverless_ones_and_work_over_host_memory():
    import weakref

    from numba_cuda.common import emm_memory

    assert (cuda.MemoryPointer, cuda.MappedMemory, cuda.PinnedMemory) == (
        emm_memory.MemoryPointer, emm_memory.MappedMemory, emm_memory.PinnedMemory)
    ctx = cuda.current_context()
    buf = np.arange(8, dtype=np.uint8)
    address = buf.__array_interface__["data"][0]
    freed = []
    mapped = cuda.MappedMemory(weakref.proxy(ctx), address, 8, finalizer=lambda: freed.append("m"))
    # simulated device memory is host memory: the mapped device address is the host one
    assert mapped.context is ctx and mapped.host_pointer == mapped.device_pointer_value == address
    assert mapped.as_bytes_array().tolist() == list(range(8))
    pinned = cuda.PinnedMemory(ctx, address, 8, owner=buf, finalizer=lambda: freed.append("p"))
    pinned.as_bytes_array()[0] = 42
    assert buf[0] == 42 and pinned.owned is buf
    pinned.free()
    pinned.free()  # once only
    assert freed == ["p"]
    mapped.free()
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        mapped.free()
    assert freed == ["p", "m"]


def test_emm_names_are_one_set_in_cuda_and_cudadrv_driver():
    from numba_cuda.simulator import memory_managers

    names = set(memory_managers.__all__)
    assert {"MemoryPointer", "HostOnlyCUDAMemoryManager", "IpcHandle", "set_memory_manager",
            "MemoryInfo", "BaseCUDAMemoryManager", "GetIpcHandleMixin", "MappedMemory",
            "PinnedMemory"} == names
    for name in names:
        assert getattr(cuda, name) is getattr(cuda.driver, name) is \
            getattr(memory_managers, name), name
    assert cuda.open_ipc_array is memory_managers.open_ipc_array
    assert not hasattr(cuda.driver, "open_ipc_array")  # numba.cuda's only, as on the GPU


def test_ipc_needs_a_gpu():
    d = cuda.to_device(np.arange(3))
    with pytest.raises(cuda.NotAvailableInSimulator, match="IPC"):
        d.get_ipc_handle()
    with pytest.raises(cuda.NotAvailableInSimulator, match="IPC"):
        with cuda.open_ipc_array(b"\0" * 64, 3, np.int64):
            pass
    with pytest.raises(cuda.NotAvailableInSimulator):
        cuda.IpcHandle(None, b"\0" * 64, 8).open(cuda.current_context())
    with pytest.raises(cuda.NotAvailableInSimulator):
        cuda.HostOnlyCUDAMemoryManager.memhostalloc(None, 8)


def test_cuda_stream_protocol_objects_are_streams():
    class ProtocolStream:  # cuda.core's Stream as the simulator sees it
        def __cuda_stream__(self):
            return (0, 1234)

    @cuda.jit
    def k(a):
        a[0] = 1

    a = np.zeros(1)
    k[1, 1, ProtocolStream()](a)
    d = cuda.to_device(a, stream=ProtocolStream())
    assert d.copy_to_host(stream=ProtocolStream())[0] == 1
    cuda.event().record(ProtocolStream())
    assert cuda.stream().__cuda_stream__()[0] == 0

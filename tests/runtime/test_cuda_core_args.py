"""cuda.core Buffer and StridedMemoryView as kernel arguments (zero-copy, as NVIDIA types them):
a Buffer is a 1-d uint8 C array of its ``size`` bytes at its ``handle``; a StridedMemoryView is an
array of its dtype, shape and strides at its ``ptr``.  On the host-memory fake driver, with real
cuda.core Buffers (they need no GPU) and a StridedMemoryView stand-in with cuda.core's attributes
(cuda.core makes views only through a driver); the GPU test uses cuda.core's own objects."""

import struct

import numpy as np
import pytest
from numba import types

from tests.support.fake_driver import installed_for_launches

core = pytest.importorskip("cuda.core", reason="cuda-core is in the test extra")


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch, ndevices=1)


class StridedMemoryView:
    """cuda.core.utils.StridedMemoryView's attributes: ``ptr``, ``shape``, ``strides`` (counts of
    elements; None when C-contiguous), ``dtype``, ``readonly``, ``device_id``,
    ``is_device_accessible``."""

    def __init__(self, ptr, shape, dtype, strides=None, readonly=False, device=True):
        self.ptr, self.shape, self.dtype, self.strides = ptr, tuple(shape), dtype, strides
        self.readonly, self.device_id, self.is_device_accessible = readonly, 0, device


StridedMemoryView.__module__ = "cuda.core._memoryview"  # where cuda.core's class lives


def _array_params(raw, ndim):
    """(data pointer, shape, strides) from an array argument's 5 + 2*ndim parameters."""
    values = [struct.unpack("<q", p)[0] for p in raw[:5 + 2 * ndim]]
    return values[4], tuple(values[5:5 + ndim]), tuple(values[5 + ndim:])


def test_a_buffer_is_a_1d_uint8_array(fake):
    from numba import cuda

    d = cuda.to_device(np.zeros(64, np.uint8))
    buf = core.Buffer.from_handle(ptr=d.device_pointer_value, size=64)

    @cuda.jit
    def k(a):
        a[0] = 1

    k[1, 1](buf)
    assert k.signatures == [(types.Array(types.uint8, 1, "C"),)]
    assert _array_params(fake.launches[-1]["params"], 1) == (d.device_pointer_value, (64,), (1,))


@pytest.mark.parametrize("shape, strides, layout, byte_strides", [
    ((3, 4), None, "C", (16, 4)),
    ((3, 4), (1, 3), "F", (4, 12)),
    ((3, 2), (4, 2), "A", (16, 8)),
])
def test_a_strided_memory_view_is_an_array_of_its_layout(fake, shape, strides, layout,
                                                         byte_strides):
    from numba import cuda

    d = cuda.to_device(np.zeros(12, np.float32))
    view = StridedMemoryView(d.device_pointer_value, shape, np.dtype(np.float32), strides)

    @cuda.jit
    def k(a):
        a[0, 0] = 1

    k[1, 1](view)
    assert k.signatures == [(types.Array(types.float32, 2, layout),)]
    assert _array_params(fake.launches[-1]["params"], 2) == (d.device_pointer_value, shape,
                                                             byte_strides)


def test_host_only_memory_is_refused(fake):
    from numba import cuda

    @cuda.jit
    def k(a):
        a[0] = 1

    with pytest.raises(TypeError, match="is_device_accessible is False"):
        k[1, 1](StridedMemoryView(0x1000, (4,), np.dtype(np.int32), device=False))
    with pytest.raises(TypeError, match="has no dtype"):
        k[1, 1](StridedMemoryView(0x1000, (4,), None))


def test_as_cuda_array_views_them_too(fake):
    from numba import cuda

    d = cuda.to_device(np.arange(8, dtype=np.uint8))
    arr = cuda.as_cuda_array(core.Buffer.from_handle(ptr=d.device_pointer_value, size=8))
    assert arr.shape == (8,) and arr.dtype == np.uint8
    np.testing.assert_array_equal(arr.copy_to_host(), np.arange(8, dtype=np.uint8))


@pytest.mark.gpu
def test_cuda_core_objects_on_a_gpu():
    from cuda.core import Device
    from cuda.core.utils import StridedMemoryView as RealView

    from numba import cuda

    dev = Device()
    dev.set_current()
    buf = dev.allocate(16)

    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    fill[1, 16](buf, 7)
    cuda.synchronize()
    host = np.zeros(16, np.uint8)
    cuda.as_cuda_array(buf).copy_to_host(host)
    assert (host == 7).all()

    d = cuda.to_device(np.zeros((2, 3), np.float32))
    view = RealView.from_cuda_array_interface(d, stream_ptr=-1)

    @cuda.jit
    def ones(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = 1

    ones[1, (2, 3)](view)
    np.testing.assert_array_equal(d.copy_to_host(), np.ones((2, 3), np.float32))

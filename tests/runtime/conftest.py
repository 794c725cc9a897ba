"""Fixtures for runtime tests that need no GPU: device arrays over fake device addresses."""

import numpy as np
import pytest


class FakeAllocation:
    """Stands in for device memory: an address and a size, never dereferenced."""

    def __init__(self, pointer, size):
        self.device_pointer_value = pointer
        self.size = size
        self.context = None

    def view(self, start, stop=None):
        stop = self.size if stop is None else stop
        assert 0 <= start <= stop <= self.size, (start, stop, self.size)
        return FakeAllocation(self.device_pointer_value + start, stop - start)


def make_fake_device_array(shape, dtype, order="C", pointer=0x7F0000000000):
    from numba_cuda.runtime.devicearray import DeviceNDArray

    host = np.empty(shape, dtype=dtype, order=order)
    return DeviceNDArray(host.shape, host.strides, host.dtype,
                         gpu_data=FakeAllocation(pointer, host.nbytes))


@pytest.fixture
def fake_device_array():
    return make_fake_device_array

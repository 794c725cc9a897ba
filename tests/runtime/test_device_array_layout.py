"""DeviceNDArray views and metadata over fake device addresses (nothing is dereferenced)."""

import numpy as np
import pytest
from numba import typeof
from numba.core import types

import numba_cuda.runtime.api  # noqa: F401 - registers typeof for DeviceNDArray
from numba_cuda.runtime.devicearray import is_contiguous_layout, span

BASE = 0x10000


def test_metadata(fake_device_array):
    arr = fake_device_array((4, 5), np.float64, pointer=BASE)
    assert arr.shape == (4, 5) and arr.strides == (40, 8) and arr.dtype == np.float64
    assert arr.size == 20 and arr.nbytes == 160 and arr.ndim == 2 and len(arr) == 4
    assert arr.is_c_contiguous() and not arr.is_f_contiguous()
    f = fake_device_array((4, 5), np.float64, order="F")
    assert f.is_f_contiguous() and not f.is_c_contiguous()


@pytest.mark.parametrize("index", [
    (slice(1, 3),), (slice(None), 2), (slice(None, None, -1),), (Ellipsis, slice(1, 5, 2)),
    (None, slice(2)), (1,), (slice(3, 1, -1), slice(None, None, 3)),
])
def test_slicing_matches_numpy(fake_device_array, index):
    arr = fake_device_array((4, 6), np.int32, pointer=BASE)
    host = np.empty((4, 6), np.int32)
    view = arr[index]
    expect = host[index]
    assert view.shape == expect.shape and view.strides == expect.strides
    offset = expect.__array_interface__["data"][0] - host.__array_interface__["data"][0]
    assert view.device_pointer_value == BASE + offset
    # the view's kernel parameters point at its first element
    assert view.kernel_params[4] == BASE + offset


def test_fancy_indexing_is_refused(fake_device_array):
    arr = fake_device_array((4,), np.int32)
    with pytest.raises(IndexError, match="basic indexing only"):
        arr[[0, 1]]
    with pytest.raises(IndexError, match="basic indexing only"):
        arr[np.array([True, False, True, False])]


def test_reshape_ravel_transpose_view(fake_device_array):
    arr = fake_device_array((4, 6), np.float32, pointer=BASE)
    r = arr.reshape(2, -1)
    assert r.shape == (2, 12) and r.strides == (48, 4) and r.device_pointer_value == BASE
    assert arr.reshape((24,)).shape == (24,)
    assert arr.ravel().shape == (24,)
    t = arr.T
    assert t.shape == (6, 4) and t.strides == (4, 24) and t.is_f_contiguous()
    assert t.reshape(24, order="F").strides == (4,)
    with pytest.raises(NotImplementedError, match="non-C-contiguous"):
        t.reshape(24)
    with pytest.raises(NotImplementedError):
        arr[:, ::2].ravel()
    with pytest.raises(ValueError, match="cannot reshape array of size 24"):
        arr.reshape(5, 5)
    v = arr.view(np.int16)
    assert v.shape == (4, 12) and v.strides == (24, 2)


def test_split(fake_device_array):
    arr = fake_device_array((10,), np.int64, pointer=BASE)
    parts = arr.split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]
    assert [p.device_pointer_value for p in parts] == [BASE, BASE + 32, BASE + 64]
    with pytest.raises(ValueError, match="1-D"):
        fake_device_array((2, 2), np.int64).split(1)


def test_typeof_gives_array_type_with_layout(fake_device_array):
    c = fake_device_array((3, 4), np.float32)
    assert typeof(c) == types.Array(types.float32, 2, "C")
    assert typeof(c.T) == types.Array(types.float32, 2, "F")
    assert typeof(c[:, ::2]) == types.Array(types.float32, 2, "A")
    assert typeof(fake_device_array((5,), np.complex128)) == types.Array(types.complex128, 1, "C")


def test_span_and_contiguity_helpers():
    assert span((3, 4), (16, 4), 4) == (0, 48)
    assert span((3,), (-8,), 8) == (-16, 8)
    assert span((0, 5), (20, 4), 4) == (0, 0)
    assert is_contiguous_layout((3, 1), (4, 100), 4, "C")
    assert not is_contiguous_layout((3, 2), (4, 12), 4, "C")
    assert is_contiguous_layout((3, 2), (4, 12), 4, "F")


def test_the_two_contiguity_questions_stay_apart():
    """numba_cuda.common.array_layout answers two questions: Numba's ``is_contiguous(ary)`` (broadcast
    dimensions ignored: what a copy moves) and NumPy's rule on a layout tuple."""
    import numpy as np

    from numba_cuda.common.array_layout import is_contiguous, is_contiguous_layout

    b = np.broadcast_to(np.arange(3.0), (4, 3))  # strides (0, 8)
    assert is_contiguous(b)
    assert not is_contiguous_layout(b.shape, b.strides, 8, "C")
    empty = np.zeros((0, 3))[:, ::2]  # no elements: contiguous by NumPy's rule
    assert is_contiguous_layout(empty.shape, empty.strides, 8, "C") is empty.flags.c_contiguous

"""numba.cuda.cudadrv.dummyarray.Array (runtime/array_views.py): layouts answer as NumPy's arrays."""

import itertools

import numpy as np
import pytest

from numba_cuda.runtime.array_views import Array, Extent


def _of(nparr, offset=0):
    return Array.from_desc(offset, nparr.shape, nparr.strides, nparr.dtype.itemsize)


def _same(arr, nparr):
    assert arr.shape == nparr.shape and arr.strides == nparr.strides
    if nparr.size:
        assert arr.flags["C_CONTIGUOUS"] == nparr.flags["C_CONTIGUOUS"]
        assert arr.flags["F_CONTIGUOUS"] == nparr.flags["F_CONTIGUOUS"]


KEYS = [np.s_[1:], np.s_[:-1], np.s_[::2], np.s_[::-1], np.s_[1, :], np.s_[:, 2], np.s_[-1],
        np.s_[1:3, ::2], np.s_[..., 1], np.s_[None, 1], np.s_[2, None, ::-2]]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_indexing_gives_numpys_views(order, key):
    nparr = np.empty((4, 5, 3), order=order)
    base = nparr.__array_interface__["data"][0]
    got, expect = _of(nparr, offset=64)[key], nparr[key]
    _same(got, expect)
    assert got.offset - 64 == expect.__array_interface__["data"][0] - base


def test_ints_out_of_range_and_too_many_are_index_errors():
    arr = _of(np.empty((2, 3)))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 3"):
        arr[0, 3]
    with pytest.raises(IndexError, match="too many indices"):
        arr[0, 0, 0]


@pytest.mark.parametrize("shape, newshape, order", [
    ((4, 5), (5, 4), "C"), ((3, 4, 5), (12, 5), "C"), ((3, 4, 5), (5, -1, 4), "C"),
    ((3, 4, 5), (-1,), "C"), ((3, 4), (2, 6), "F"), ((3, 4), (12,), "F"),
])
def test_reshape(shape, newshape, order):
    nparr = np.empty(shape, order=order)
    got, extents = _of(nparr).reshape(*newshape, order=order)
    _same(got, nparr.reshape(newshape, order=order))
    assert extents == [got.extent]


def test_reshape_refusals():
    arr = _of(np.empty((3, 4, 5)))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        arr.reshape(-1, -1, 3)
    with pytest.raises(ValueError, match="cannot infer valid shape for unknown dimension"):
        arr.reshape(-1, 7)
    with pytest.raises(ValueError, match="cannot reshape an array of size 60"):
        arr.reshape(7, 9)
    with pytest.raises(NotImplementedError, match="not C-contiguous"):
        arr[:, ::2].reshape(30)


def test_squeeze():
    nparr = np.empty((1, 2, 1, 4, 1, 3))
    arr = _of(nparr)
    _same(arr.squeeze()[0], nparr.squeeze())
    for axis in (0, 2, 4, (0, 2), (0, 2, 4)):
        _same(arr.squeeze(axis=axis)[0], nparr.squeeze(axis=axis))
    with pytest.raises(ValueError):
        arr.squeeze(axis=1)


@pytest.mark.parametrize("key, pieces", [(np.s_[:], 1), (np.s_[::2], 2), (np.s_[:, ::2], 12),
                                         (np.s_[1:3, 1:4], 2)])
def test_contiguous_extents_cover_the_view(key, pieces):
    nparr = np.zeros((4, 6), np.float64)
    view = nparr[key]
    base = nparr.__array_interface__["data"][0]
    extents = list(_of(nparr)[key].iter_contiguous_extent())
    assert len(extents) == pieces
    touched = np.zeros(nparr.nbytes, bool)
    for begin, end in extents:
        assert isinstance(Extent(begin, end), tuple) and not touched[begin:end].any()
        touched[begin:end] = True
    expect = np.zeros(nparr.nbytes, bool)
    for idx in itertools.product(*map(range, view.shape)):
        at = view.__array_interface__["data"][0] - base + sum(
            i * s for i, s in zip(idx, view.strides))
        expect[at:at + 8] = True
    assert (touched == expect).all()


def test_extent_flags_iteration_and_numpy_integers():
    arr = Array.from_desc(0, (np.int32(4), np.int64(5)), (np.intp(40), np.int32(8)), 8)
    assert arr.shape == (4, 5) and all(type(n) is int for n in arr.shape + arr.strides)
    assert arr.extent == (0, 160) and arr.flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": False}
    assert [row.shape for row in arr] == [(5,)] * 4 and len(arr) == 4
    for shape in [(0,), (5, 0, 3)]:
        empty = _of(np.empty(shape))
        assert empty.flags == {"C_CONTIGUOUS": True, "F_CONTIGUOUS": True}
        assert list(empty.iter_contiguous_extent()) == []
    assert arr.T.shape == (5, 4) and arr.T.strides == (8, 40)

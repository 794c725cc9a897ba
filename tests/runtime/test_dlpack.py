"""DLPack capsules: what numba-cuda exports is read back by NumPy (a real third-party
consumer) and what NumPy exports is read by numba-cuda's importer (host memory; no GPU)."""

import gc

import numpy as np
import pytest

from numba_cuda.runtime import dlpack, interop

_NUMPY = tuple(int(x) for x in np.__version__.split(".")[:2])


class HostExport:
    """Exports a numpy array's memory through numba-cuda's capsule maker, as kDLCPU."""

    def __init__(self, arr, versioned):
        self.arr = arr
        self.versioned = versioned

    def __dlpack_device__(self):
        return (dlpack.kDLCPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        a = self.arr
        return dlpack.make_capsule(a.__array_interface__["data"][0], a.shape, a.strides, a.dtype,
                                   dlpack.kDLCPU, 0, a,
                                   versioned=self.versioned and max_version is not None)


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128, np.bool_, np.uint64])
def test_numpy_reads_our_capsules(versioned, dtype):
    src = (np.arange(24).reshape(4, 6) % 3).astype(dtype)
    view = src[::2, 1::2]
    got = np.from_dlpack(HostExport(view, versioned))
    np.testing.assert_array_equal(got, view)
    assert got.__array_interface__["data"][0] == view.__array_interface__["data"][0]
    assert got.strides == view.strides


def test_export_is_released_by_the_consumer():
    src = np.arange(10.0)
    before = len(dlpack._exports)
    got = np.from_dlpack(HostExport(src, True))
    assert len(dlpack._exports) == before + 1
    del got
    gc.collect()
    assert len(dlpack._exports) == before


def test_unconsumed_capsule_releases_on_collection():
    before = len(dlpack._exports)
    capsule = HostExport(np.arange(3.0), False).__dlpack__()
    assert len(dlpack._exports) == before + 1
    del capsule
    gc.collect()
    assert len(dlpack._exports) == before


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_we_read_numpys_capsules(max_version):
    if max_version is not None and _NUMPY < (2, 1):
        pytest.skip(f"NumPy {np.__version__} produces no versioned DLPack capsules (max_version "
                    "needs NumPy 2.1); the versioned path is tested with newer NumPy")
    src = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::-1]
    kwargs = {} if max_version is None else {"max_version": max_version}
    capsule = src.__dlpack__(**kwargs)
    info, keeper = dlpack.consume_capsule(capsule, src)
    assert info["device_type"] == dlpack.kDLCPU
    assert info["shape"] == (3, 4) and info["strides"] == src.strides
    assert info["dtype"] == np.int32
    assert info["pointer"] == src.__array_interface__["data"][0]
    with pytest.raises(BufferError, match="not an unconsumed DLPack capsule"):
        dlpack.consume_capsule(capsule)
    del keeper  # calls numpy's deleter
    gc.collect()


def test_dtype_mapping():
    assert dlpack.np_dtype(dlpack.dl_dtype(np.float16)) == np.float16
    assert dlpack.np_dtype(dlpack.dl_dtype(np.complex64)) == np.complex64
    with pytest.raises(BufferError):
        dlpack.dl_dtype(np.dtype([("a", "i4")]))


def test_strides_must_be_whole_elements():
    with pytest.raises(BufferError, match="not a multiple of the item size"):
        dlpack.make_capsule(0x1000, (2,), (6,), np.float32, dlpack.kDLCUDA, 0, None)


def test_non_cuda_producer_is_refused():
    with pytest.raises(BufferError, match="not a CUDA device"):
        interop.from_dlpack(np.arange(3))

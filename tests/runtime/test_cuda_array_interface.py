"""CUDA Array Interface v3: checking and normalising interface dicts (no GPU)."""

import numpy as np
import pytest

from numba_cuda.runtime.array_interface import (
    _streams_ordered,
    kernel_params,
    parse_cuda_array_interface,
)
from numba_cuda.runtime.interop import is_cuda_array


def cai(**overrides):
    desc = {"shape": (4, 3), "typestr": "<f4", "data": (0x10000, False), "version": 3,
            "strides": None, "stream": None}
    desc.update(overrides)
    return desc


def test_c_contiguous_default_strides():
    p = parse_cuda_array_interface(cai())
    assert p.shape == (4, 3) and p.strides == (12, 4) and p.dtype == np.float32
    assert p.pointer == 0x10000 and p.readonly is False and p.stream is None
    assert (p.lo, p.hi) == (0, 48)
    assert kernel_params(p) == (0, 0, 12, 4, 0x10000, 4, 3, 12, 4)


def test_explicit_and_negative_strides():
    p = parse_cuda_array_interface(cai(strides=(4, 16)))
    assert p.strides == (4, 16) and (p.lo, p.hi) == (0, 4 * 3 + 16 * 2 + 4)
    p = parse_cuda_array_interface(cai(shape=(5,), strides=(-8,)))
    assert (p.lo, p.hi) == (-32, 4)


def test_stream_semantics():
    assert parse_cuda_array_interface(cai(stream=1)).stream == 1
    assert parse_cuda_array_interface(cai(stream=2)).stream == 2
    assert parse_cuda_array_interface(cai(stream=0xABCDEF)).stream == 0xABCDEF
    assert parse_cuda_array_interface(cai(stream=None)).stream is None
    with pytest.raises(ValueError, match="'stream' is 0, which version 3 disallows"):
        parse_cuda_array_interface(cai(stream=0))
    with pytest.raises(ValueError, match="'stream' must be None or an integer"):
        parse_cuda_array_interface(cai(stream="s"))
    # version 2 producers have no stream key
    desc = cai(version=2)
    del desc["stream"]
    assert parse_cuda_array_interface(desc).stream is None


def test_stream_ordering_rule():
    assert _streams_ordered(None, 0x1234)
    assert _streams_ordered(0x1234, 0x1234)
    assert _streams_ordered(1, 0) and _streams_ordered(2, 1)
    assert not _streams_ordered(0x1234, 0)
    assert not _streams_ordered(1, 0x1234)


@pytest.mark.parametrize("change,match", [
    ({"shape": (4, -1)}, "'shape' must be a tuple of non-negative integers"),
    ({"typestr": "<x9"}, "is not a numpy type string"),
    ({"typestr": "|O"}, "Python object items"),
    ({"data": (0x1000,)}, "'data' must be a"),
    ({"data": (0, False)}, "null for an array of 12 elements"),
    ({"strides": (4,)}, "'strides' must be None or 2 integers"),
    ({"version": -1}, "'version' must be a non-negative integer"),
])
def test_invalid(change, match):
    with pytest.raises(ValueError, match=match):
        parse_cuda_array_interface(cai(**change))


def test_missing_key_and_mask():
    desc = cai()
    del desc["typestr"]
    with pytest.raises(ValueError, match="the required key 'typestr' is missing"):
        parse_cuda_array_interface(desc)
    with pytest.raises(NotImplementedError, match="masked"):
        parse_cuda_array_interface(cai(mask=object()))
    with pytest.raises(TypeError, match="must be a dict"):
        parse_cuda_array_interface([1])


def test_empty_array_may_have_null_pointer():
    p = parse_cuda_array_interface(cai(shape=(0, 3), data=(0, False)))
    assert (p.lo, p.hi) == (0, 0)


def test_structured_descr():
    dtype = np.dtype([("a", "<i4"), ("b", "<f8")], align=True)
    p = parse_cuda_array_interface(cai(typestr=dtype.str, descr=dtype.descr, shape=(2,)))
    assert p.dtype == dtype and p.strides == (16,)


def test_is_cuda_array():
    class Foreign:
        __cuda_array_interface__ = cai()

    assert is_cuda_array(Foreign())
    assert not is_cuda_array(np.zeros(3))


def test_device_array_exports_interface(fake_device_array):
    arr = fake_device_array((4, 3), np.float32, pointer=0x9000)
    desc = arr.__cuda_array_interface__
    assert desc["version"] == 3 and desc["stream"] is None and desc["strides"] is None
    assert desc["data"] == (0x9000, False) and desc["typestr"] == "<f4"
    p = parse_cuda_array_interface(arr.T.__cuda_array_interface__)
    assert p.shape == (3, 4) and p.strides == (4, 12) and p.pointer == 0x9000

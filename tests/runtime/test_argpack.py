"""Kernel argument packing: layouts checked against Numba's data model, bytes checked
against hand-computed values (fake device pointers, no GPU)."""

import struct

import numpy as np
import pytest
from llvmlite import ir
from numba.core import types
from numba.core.datamodel import default_manager

from numba_cuda.runtime.argpack import ArgPacker


def _leaves(llty):
    if isinstance(llty, (tuple, list)):
        for item in llty:
            yield from _leaves(item)
    else:
        yield llty


def _llvm_size(llty):
    if isinstance(llty, ir.IntType):
        return max(llty.width // 8, 1)
    if isinstance(llty, ir.HalfType):
        return 2
    if isinstance(llty, ir.FloatType):
        return 4
    if isinstance(llty, ir.DoubleType):
        return 8
    if isinstance(llty, ir.PointerType):
        return 8
    raise AssertionError(f"unexpected parameter type {llty}")


def data_model_sizes(ty):
    return [_llvm_size(t) for t in _leaves(default_manager.lookup(ty).get_argument_type())]


RECORD = types.Record.make_c_struct([("a", types.int32), ("b", types.float64)])
TYPES = [
    types.int8, types.uint8, types.int16, types.uint16, types.int32, types.uint32, types.int64,
    types.uint64, types.float32, types.float64, types.boolean, types.complex64,
    types.complex128, types.NPDatetime("s"), types.NPTimedelta("ms"),
    types.UniTuple(types.int32, 3), types.Tuple((types.int8, types.complex128, types.float32)),
    types.Tuple((types.UniTuple(types.int16, 2), types.boolean)), RECORD, types.voidptr,
    types.CPointer(types.float32), types.none,
] + [types.Array(dt, nd, layout) for dt in (types.float32, types.complex128, types.int8)
     for nd in (0, 1, 2, 3) for layout in "CFA"]


@pytest.mark.parametrize("ty", TYPES, ids=str)
def test_parameters_match_numbas_data_model(ty):
    packer = ArgPacker((ty,))
    sizes = [struct.calcsize("<" + c) for c in packer.codes]
    assert sizes == data_model_sizes(ty)


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_array_parameter_count(ndim):
    packer = ArgPacker((types.Array(types.float64, ndim, "A"),))
    assert packer.nparams == 5 + 2 * ndim


def test_offsets_are_naturally_aligned():
    packer = ArgPacker((types.int8, types.float64, types.boolean, types.int32, types.complex64,
                        types.Array(types.float32, 1, "C")))
    for code, offset in zip(packer.codes, packer.offsets):
        assert offset % struct.calcsize("<" + code) == 0
    assert packer.offsets[:4] == [0, 8, 16, 20]


@pytest.mark.parametrize("order", ["C", "F"])
def test_array_bytes(order, fake_device_array):
    arr = fake_device_array((3, 4), np.float32, order=order, pointer=0x1000)
    packer = ArgPacker((types.Array(types.float32, 2, order),))
    raw = packer.packed_bytes((arr,))
    values = struct.unpack("<QQqqQqqqq", raw)
    strides = (16, 4) if order == "C" else (4, 12)
    assert values == (0, 0, 12, 4, 0x1000, 3, 4) + strides


def test_strided_slice_bytes(fake_device_array):
    arr = fake_device_array((10, 8), np.int16, pointer=0x2000)
    view = arr[2:8:3, ::-2]
    packer = ArgPacker((types.Array(types.int16, 2, "A"),))
    values = struct.unpack("<QQqqQqqqq", packer.packed_bytes((view,)))
    # element [2, 7] is the view's first: 0x2000 + 2*16 + 7*2
    assert values == (0, 0, 8, 2, 0x2000 + 2 * 16 + 7 * 2, 2, 4, 48, -4)


def test_scalars_complex_bool_tuple_bytes():
    sig = (types.int8, types.boolean, types.complex64, types.UniTuple(types.int64, 2),
           types.Tuple((types.float32, types.Tuple((types.uint16, types.boolean)))), types.float64)
    packer = ArgPacker(sig)
    raw = packer.packed_bytes((-3, True, 1.5 - 2j, (7, 8), (0.25, (65535, False)), 2.5))
    fmt = packer.struct.format
    assert struct.unpack(fmt, raw) == (-3, 1, 1.5, -2.0, 7, 8, 0.25, 65535, 0, 2.5)
    assert raw[0:1] == b"\xfd" and raw[1:2] == b"\x01"


def test_datetime_in_type_unit():
    packer = ArgPacker((types.NPDatetime("s"), types.NPTimedelta("ms")))
    raw = packer.packed_bytes((np.datetime64("1970-01-01T00:01:00"), np.timedelta64(2, "s")))
    assert struct.unpack(packer.struct.format, raw) == (60, 2000)


def test_pointer_and_none():
    import ctypes

    packer = ArgPacker((types.voidptr, types.CPointer(types.int32), types.none))
    raw = packer.packed_bytes((0xABC, ctypes.c_void_p(0xDEF), None))
    assert struct.unpack("<QQQ", raw) == (0xABC, 0xDEF, 0)


def test_pack_reuses_one_buffer_per_thread():
    packer = ArgPacker((types.int32, types.float64))
    first = packer.pack((1, 2.0))
    second = packer.pack((3, 4.0))
    assert first == second != 0
    import ctypes

    ptrs = (ctypes.c_void_p * 2).from_address(second)
    assert ctypes.c_int32.from_address(ptrs[0]).value == 3
    assert ctypes.c_double.from_address(ptrs[1]).value == 4.0


def test_no_arguments():
    packer = ArgPacker(())
    assert packer.nparams == 0 and packer.pack(()) == 0


def test_errors_name_the_argument(fake_device_array):
    packer = ArgPacker((types.Array(types.float32, 2, "C"),))
    with pytest.raises(TypeError, match="compiled for a 2-d array, got a 1-d one"):
        packer.flatten((fake_device_array((4,), np.float32),))
    with pytest.raises(TypeError, match="takes 1 arguments, 2 were given"):
        packer.flatten((1, 2))
    with pytest.raises(TypeError, match="cannot pass arguments of type"):
        ArgPacker((types.unicode_type,))
    packer = ArgPacker((types.uint8,))
    with pytest.raises(TypeError, match="do not fit the compiled parameter types"):
        packer.pack((300,))


def test_cuda_array_interface_argument_is_zero_copy():
    class Foreign:
        __cuda_array_interface__ = {"shape": (5,), "typestr": "<f8", "data": (0x5000, False),
                                    "version": 3, "strides": None, "stream": None}

    packer = ArgPacker((types.Array(types.float64, 1, "C"),))
    values = struct.unpack("<QQqqQqq", packer.packed_bytes((Foreign(),)))
    assert values == (0, 0, 5, 8, 0x5000, 5, 8)

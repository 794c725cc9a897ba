"""Stores in the simulator: the target and index are evaluated once, and the stored value
is what the GPU stores (the conversions our compiler emits, read from its PTX)."""

import math
import re

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def test_index_with_a_side_effect_is_evaluated_once_when_the_value_overflows():
    @cuda.jit
    def k(out, count):
        out[cuda.atomic.add(count, 0, 1)] = -1

    out = np.zeros(8, np.uint32)
    count = np.zeros(1, np.int64)
    k[1, 3](out, count)
    assert count[0] == 3
    assert out.tolist() == [0xFFFFFFFF] * 3 + [0] * 5


def test_array_and_index_evaluated_once_in_augmented_chained_and_tuple_stores():
    calls = []

    @cuda.jit(device=True)
    def pick(a, tag):
        calls.append(tag)
        return a

    @cuda.jit
    def k(a, b, count):
        pick(a, "aug")[cuda.atomic.add(count, 0, 1)] += 300     # overflows uint8 (0 + 300)
        pick(a, "c1")[5] = pick(b, "c2")[cuda.atomic.add(count, 1, 1)] = -1
        pick(a, "t1")[6], pick(b, "t2")[7] = 256 + 7, 1.0e10

    a = np.zeros(8, np.uint8)
    b = np.zeros(8, np.uint32)
    count = np.zeros(2, np.int64)
    k[1, 1](a, b, count)
    assert calls == ["aug", "c1", "c2", "t1", "t2"]
    assert count.tolist() == [1, 1]
    assert a.tolist() == [44, 0, 0, 0, 0, 255, 7, 0]
    assert b.tolist() == [0xFFFFFFFF, 0, 0, 0, 0, 0, 0, 0xFFFFFFFF]


def _gpu_float_to_int(value, dtype):
    """cvt.rzi to max(width, 16) bits (saturating, NaN -> 0), then the low bits are stored."""
    info = np.iinfo(dtype)
    width = max(info.bits, 16)
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if info.min < 0 else (0, 2**width - 1)
    if math.isnan(value):
        r = 0
    elif value >= hi:
        r = hi
    elif value <= lo:
        r = lo
    else:
        r = math.trunc(value)
    r &= 2**info.bits - 1
    if info.min < 0 and r >= 2 ** (info.bits - 1):
        r -= 2**info.bits
    return r


FLOATS = [0.0, -0.0, 2.9, -2.9, 127.5, 128.5, -129.7, 255.9, 256.2, 300.7, -1.5, 40000.0,
          70000.2, -70000.2, 3e9, -3e9, 5e9, 1e19, 2e19, -1e19, 1e30, -1e30,
          float("inf"), float("-inf"), float("nan")]


def test_the_reference_table_against_hand_picked_gpu_answers():
    assert _gpu_float_to_int(300.7, np.int8) == 44          # cvt.rzi.s16 -> 300 -> low byte
    assert _gpu_float_to_int(70000.2, np.uint8) == 255      # cvt.rzi.u16 saturates at 65535
    assert _gpu_float_to_int(-1.5, np.uint32) == 0          # unsigned saturates at 0
    assert _gpu_float_to_int(float("nan"), np.int32) == 0
    assert _gpu_float_to_int(1e10, np.int32) == 2**31 - 1
    assert _gpu_float_to_int(float("-inf"), np.int64) == -(2**63)


@pytest.mark.parametrize("ftype", [float, np.float64, np.float32])
@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda t: t.__name__)
def test_float_stored_into_an_integer_array_converts_like_cvt_rzi(dtype, ftype):
    @cuda.jit
    def k(out, values, conv):
        for i in range(values.size):
            out[i] = conv(values[i])
            out[values.size + i] = 0
            out[values.size + i] += conv(values[i])   # augmented: 0 + float -> float -> int

    values = np.array(FLOATS, np.float64)
    out = np.zeros(2 * len(FLOATS), dtype)
    k[1, 1](out, values, ftype)
    expected = [_gpu_float_to_int(float(ftype(v)), dtype) for v in FLOATS]
    assert out[: len(FLOATS)].tolist() == expected
    assert out[len(FLOATS):].tolist() == expected


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32], ids=lambda t: t.__name__)
def test_integer_stores_wrap_modulo_the_width(dtype):
    @cuda.jit
    def k(out, big):
        out[0] = 2**40 + 5
        out[1] = -3
        out[2] = big           # a numpy int64 that does not fit
        out[3] = 7
        out[3] -= 10

    out = np.zeros(4, dtype)
    k[1, 1](out, np.int64(2**33 + 2**7 + 1))
    info = np.iinfo(dtype)

    def wrap(v):
        r = v & (2**info.bits - 1)
        return r - 2**info.bits if info.min < 0 and r >= 2 ** (info.bits - 1) else r

    assert out.tolist() == [wrap(v) for v in (2**40 + 5, -3, 2**33 + 2**7 + 1, -3)]


def test_record_field_stores_convert_too():
    rec_t = np.dtype([("a", np.int8), ("b", np.uint16), ("c", np.float32)])

    @cuda.jit
    def k(recs):
        r = recs[0]
        r.a = 300.7
        r.b = -1
        r.c = 1.5
        recs[1]["a"] = float("nan")
        recs[1]["b"] = 1e10
        recs[1].a += 300

    recs = np.zeros(2, rec_t)
    k[1, 1](recs)
    assert recs[0].tolist() == (44, 65535, 1.5)
    assert recs[1].tolist() == (44, 65535, 0.0)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda t: t.__name__)
def test_integer_constructors_and_int_convert_floats_like_cvt_rzi(dtype):
    @cuda.jit
    def k(out, values, asint):
        for i in range(values.size):
            out[i] = dtype(values[i])
            asint[i] = int(values[i])

    values = np.array(FLOATS, np.float64)
    out = np.zeros(len(FLOATS), dtype)
    asint = np.zeros(len(FLOATS), np.int64)
    k[1, 1](out, values, asint)
    assert out.tolist() == [_gpu_float_to_int(v, dtype) for v in FLOATS]
    assert asint.tolist() == [_gpu_float_to_int(v, np.int64) for v in FLOATS]


@pytest.fixture(scope="module")
def compile_ptx():
    try:
        from numba import cuda as real

        real.compile_ptx(lambda a: None, "void(int32[:])")
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"the real compiler is not usable here: {exc}")
    return real.compile_ptx


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda t: t.__name__)
def test_the_gpu_semantics_above_are_what_our_compiler_emits(compile_ptx, dtype):
    """The reference table assumes cvt.rzi to max(width, 16) bits and a store of the low bits."""
    info = np.iinfo(dtype)

    def k(a, x):
        a[0] = x

    name = np.dtype(dtype).name
    ptx, _ = compile_ptx(k, f"void({name}[:], float64)")
    sign = "s" if info.min < 0 else "u"
    assert re.search(rf"cvt\.rzi\.{sign}{max(info.bits, 16)}\.f64\b", ptx), ptx
    assert re.search(rf"st\.global\.[us]{info.bits}\b", ptx), ptx

    def wide(a, x):
        a[0] = x

    ptx, _ = compile_ptx(wide, f"void({name}[:], int64)")
    assert "cvt.rzi" not in ptx and re.search(rf"st\.global\.[us]{info.bits}\b", ptx), ptx


def test_atomic_operands_are_converted_to_the_array_type_first():
    @cuda.jit
    def k(i32, u32, old):
        old[0] = cuda.atomic.add(i32, 0, -0.6)     # adds int32(-0.6) == 0, not -0.6
        cuda.atomic.add(i32, 1, 2.9)               # adds 2
        cuda.atomic.max(u32, 0, -1)                # compares 0xFFFFFFFF
        cuda.atomic.min(u32, 1, 1e10)              # compares the saturated 0xFFFFFFFF
        cuda.atomic.exch(i32, 2, float("nan"))     # stores 0
        old[1] = cuda.atomic.cas(u32, 2, -1, 5)    # -1 is 0xFFFFFFFF: it matches

    i32 = np.array([1, 1, 7], np.int32)
    u32 = np.array([3, 3, 0xFFFFFFFF], np.uint32)
    old = np.zeros(2, np.int64)
    k[1, 1](i32, u32, old)
    assert i32.tolist() == [1, 3, 0]
    assert u32.tolist() == [0xFFFFFFFF, 3, 5]
    assert old.tolist() == [1, 0xFFFFFFFF]


def test_slice_and_subarray_stores_convert_too():
    @cuda.jit
    def k(a, b, rows, src):
        a[:] = -1                 # a Python int that does not fit uint32: wraps
        a[1:3] = 1e10             # a float: saturates
        b[::2] = src              # a float array into int8: each element as cvt.rzi
        rows[0] = src[:3]         # a row of a 2-D array
        rows[1, :] += 300.7       # augmented, on a slice

    a = np.zeros(4, np.uint32)
    b = np.zeros(8, np.int8)
    rows = np.zeros((2, 3), np.int16)
    src = np.array([300.7, float("nan"), -1e10, 70000.0])
    k[1, 1](a, b, rows, src)
    assert a.tolist() == [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF]
    assert b.tolist() == [44, 0, 0, 0, 0, 0, -1, 0]
    assert rows.tolist() == [[300, 0, -32768], [300, 300, 300]]

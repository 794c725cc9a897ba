"""Array element access lowered from the array value (``numba_cuda.compiler.array_access``)
must generate the same code as Numba's implementations after libNVVM's optimiser: compared
here instruction by instruction (register numbers and order aside) on kernels covering
layouts, ranks, index types and dtypes."""

import re
from collections import Counter

import numpy as np
import pytest
from numba import (
    bool_, complex64, float32, float64, from_dtype, int8, int16, int32, int64, uint8,
    uint32, uint64, void,
)
from numba.core import types

float16 = types.float16

from tests.support.ptx_helpers import assemble

CC = (8, 0)


def copy_1d(out, a):
    i = 0
    while i < a.size:
        out[i] = a[i]
        i += 1


def negative_and_literal(out, a, i):
    out[0] = a[-1] + a[i] + a[2]


def unsigned_index(out, a, i):
    out[i] = a[i] * 2


def copy_2d(out, a, i, j):
    out[i, j] = a[i, j] + a[j, i]


def mixed_index_types(out, a, i, j):
    out[i, j] = a[i, j]


def copy_3d(out, a, i, j, k):
    out[i, j, k] = a[k, j, i]


def cast_on_store(out, x):
    out[0] = x
    out[1] = x + 1


def bools(out, a):
    out[0] = a[0] and not a[1]


def row_of_matrix(out, m, i):
    # fewer indices than dimensions: a view, Numba's implementation
    r = m[i]
    out[0] = r[0] + r[1]


def slice_then_index(out, a):
    out[0] = a[1:][0]


def store_row(m, v):
    m[0] = v  # a view store: Numba's implementation


def attributes(out, a, b):
    out[0] = a.size + a.shape[0] + a.strides[1] + b.shape[1] + b.size


def lengths(out, a, m):
    out[0] = len(a) + len(m)
    for i in range(len(m)):
        out[i + 1] = m[i, 0]


def loop_over_shape(out, m):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i * m.shape[1] + j] = m[i, j]


def attributes_of_views(out, m, n):
    # extents computed (slice lengths): read as Numba reads them, else libNVVM makes other code
    v = m[:]
    out[0] = v[v.shape[0] - 1, 0] + len(m[n:]) + m[1:, ::2].size + v.strides[1]
    w = m[::-1, 1:3]
    out[1] = w[w.shape[0] - 1, w.shape[1] - 1]


NESTED = from_dtype(np.dtype([("n", np.int32), ("v", np.float32, (2, 3))], align=True))


def nested_array_in_record(out, recs, i, j):
    # recs[0].v is a NestedArray (an Array subclass with the same value layout)
    v = recs[0].v
    v[i, j] = v[j, i] + v.shape[1] + v.size
    out[0] = v[1, 2]


ARR = types.Array
CASES = [
    (nested_array_in_record, void(float32[::1], NESTED[::1], int64, int64)),
    (attributes, void(int64[::1], float32[:, :], float64[::1, :])),
    (attributes, void(int64[::1], complex64[:, :, ::1], int8[:, ::1])),
    (loop_over_shape, void(float32[::1], float32[:, ::1])),
    (lengths, void(int64[::1], float32[::1], int64[:, ::1])),
    (lengths, void(float64[::1], ARR(float32, 1, "A", aligned=False), float64[::1, :])),
    (lengths, void(int64[::1], NESTED[:], int64[:, :])),
    (copy_1d, void(float32[::1], float32[::1])),
    (copy_1d, void(float64[:], float64[:])),
    (copy_1d, void(ARR(float32, 1, "A", aligned=False), ARR(float32, 1, "A", aligned=False))),
    (negative_and_literal, void(int64[::1], int64[::1], int64)),
    (negative_and_literal, void(int8[::1], int8[:], int16)),
    (unsigned_index, void(float32[::1], float32[::1], uint32)),
    (unsigned_index, void(float32[:], float32[::1], uint64)),
    (copy_2d, void(float32[:, ::1], float32[:, ::1], int64, int64)),
    (copy_2d, void(float32[::1, :], float32[::1, :], int32, int32)),
    (copy_2d, void(float64[:, :], float64[:, :], int64, int64)),
    (mixed_index_types, void(float32[:, ::1], float32[:, :], uint8, int64)),
    (copy_3d, void(float32[:, :, ::1], float32[:, :, :], int64, int64, int64)),
    (copy_3d, void(complex64[::1, :, :], complex64[::1, :, :], int32, int64, uint32)),
    (cast_on_store, void(float64[::1], int32)),
    (cast_on_store, void(int8[::1], float32)),
    (cast_on_store, void(float16[::1], float16)),
    (bools, void(bool_[::1], bool_[::1])),
    (row_of_matrix, void(float32[::1], float32[:, ::1], int64)),
    (slice_then_index, void(int64[::1], int64[::1])),
    (store_row, void(float32[:, ::1], float32)),
    (attributes_of_views, void(float32[::1], float32[:, :], int64)),
    (attributes_of_views, void(float32[::1], float32[:, ::1], int64)),
]


def _normalised(ptx):
    body = [line.strip() for line in ptx.splitlines()
            if line.strip() and not line.startswith("//")]
    # symbol names carry a per-compile unique id; registers are numbered in emission order
    return Counter(re.sub(r"%(r[dfhsp]?|p|f|fd|rs)\d+", r"%\1", re.sub(r"_ZN\w+", "SYM", line))
                   for line in body)


def _compile(cuda, fn, sig, monkeypatch=None, numba_only=False):
    from numba_cuda.compiler import array_access

    if numba_only:
        monkeypatch.setattr(array_access, "handles", lambda context, aryty, idxty: False)
        monkeypatch.setattr(array_access, "has_value_attribute", lambda context, typ, attr: False)
        monkeypatch.setattr(array_access, "has_value_length", lambda context, aryty: False)
    ptx, _ = cuda.compile_ptx(fn, sig, cc=CC)
    if numba_only:
        monkeypatch.undo()
    return ptx


@pytest.mark.parametrize("fn,sig", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_same_code_as_numbas_implementation(cuda, monkeypatch, fn, sig):
    ours = _compile(cuda, fn, sig)
    numbas = _compile(cuda, fn, sig, monkeypatch, numba_only=True)
    assert _normalised(ours) == _normalised(numbas)
    assemble(ours, CC)


def _ir_lines(body, sig):
    from numba_cuda.compiler.pipeline import CompileOptions, compile_cuda

    cres = compile_cuda(body, None, sig, CompileOptions())
    return sum(text.count("\n") for _name, text in cres.library.ir_modules())


def _element_access(out, a, i, j):
    out[i, j] = a[i, j]


def _lengths(out, a):
    out[0] = len(a) + len(out)


def _attribute_reads(out, a):
    out[0] = a.shape[0] + a.strides[1] + a.size


@pytest.mark.parametrize("body,sig,switch", [
    (_element_access, (float32[:, ::1], float32[:, :], int64, int64), "handles"),
    (_attribute_reads, (int64[::1], float32[:, :]), "has_value_attribute"),
    (_lengths, (int64[::1], float32[:, :]), "has_value_length"),
])
def test_fast_path_emits_less_ir(cuda, monkeypatch, body, sig, switch):
    from numba_cuda.compiler import array_access

    ours = _ir_lines(body, sig)
    monkeypatch.setattr(array_access, switch, lambda *args: False)
    numbas = _ir_lines(body, sig)
    assert ours < numbas * 0.8, (ours, numbas)


RECORD = from_dtype(np.dtype([("x", np.float32), ("y", np.int32)], align=True))


@pytest.mark.parametrize("aryty,idxty,expected", [
    (float32[::1], types.int64, True),
    (float32[:, :], types.UniTuple(types.int64, 2), True),
    (float32[:, :], types.Tuple((types.uint8, types.int32)), True),
    (float32[:, :], types.int64, False),                         # a row view
    (float32[:, :], types.Tuple((types.int64, types.slice2_type)), False),
    (RECORD[::1], types.int64, False),                           # records are views
    (types.Array(float32, 0, "C"), types.Tuple(()), False),      # 0-d
    (bool_[::1], types.intp, True),
    (complex64[:], types.uint64, True),
])
def test_which_accesses_are_taken(cuda, aryty, idxty, expected):
    from numba_cuda.compiler import array_access
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    assert array_access.handles(context, aryty, idxty) is expected


def test_bounds_checked_access_uses_numbas_implementation(cuda):
    from numba_cuda.compiler import array_access
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context.subtarget(enable_boundscheck=True)
    assert not array_access.handles(context, float32[::1], types.int64)
    ptx, _ = cuda.compile_ptx(copy_1d, void(float32[::1], float32[::1]), cc=CC,
                              debug=True, opt=False)
    assert ptx  # compiles; the bounds-check reporting itself is tested in tests/device_errors


def test_length_of_a_0d_array_is_a_clear_error(cuda):
    # Numba types len() of any array and then failed building the IR ("Can't index at [0] in
    # [0 x i64]", no kernel location)
    from numba.core.errors import NumbaTypeError

    def length(out, a):
        out[0] = len(a)

    with pytest.raises(NumbaTypeError, match=r"len\(\) of unsized object") as info:
        cuda.compile_ptx(length, void(int64[::1], types.Array(int64, 0, "C")), cc=CC)
    assert "test_array_access.py" in str(info.value)  # the kernel's line

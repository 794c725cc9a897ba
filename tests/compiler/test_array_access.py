"""Array element access lowered from the array value (``numba_cuda.compiler.array_access``)
must generate the same code as Numba's implementations after libNVVM's optimiser: compared
here instruction by instruction (register numbers and order aside) on kernels covering
layouts, ranks, index types and dtypes."""

import re
from collections import Counter

import numpy as np
import pytest
from numba import (
    bool_, complex64, complex128, float32, float64, from_dtype, int8, int16, int32, int64, uint8,
    uint32, uint64, void,
)
from numba.core import types

float16 = types.float16

from tests.compiler.corpus_compiler import array_iteration  # for x in a, enumerate(a)
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


# ---- views (basic indexing with integers and slices) and iteration ----------------------------
def _uses(view, ndim, at):
    # every field of the view reaches ``out``: extents, strides, size and two elements
    first, last = ", ".join(["0"] * ndim), ", ".join(f"{view}.shape[{d}] - 1" for d in range(ndim))
    fields = " + ".join([f"{view}.size"] + [f"{view}.shape[{d}] + {view}.strides[{d}]"
                                            for d in range(ndim)])
    return [f"    out[{at}] = {fields}",
            f"    if {view}.size > 1:",
            f"        out[{at + 1}] = {view}[{first}] + {view}[{last}]"]


def _views_kernel(name, params, views):
    """``def name(out, params)`` taking each view ``(expression, its ndim)`` and using it."""
    lines = [f"def {name}(out, {params}):"]
    for k, (expr, ndim) in enumerate(views):
        lines.append(f"    v{k} = {expr}")
        lines += _uses(f"v{k}", ndim, 2 * k)
    namespace = {}
    exec(compile("\n".join(lines) + "\n", f"<{name}>", "exec"), namespace)
    return namespace[name]


slice_forms_1d = _views_kernel("slice_forms_1d", "a, n, lo, hi, step", [
    ("a[1:]", 1), ("a[:n]", 1), ("a[1:-1]", 1), ("a[-3:]", 1), ("a[:-2]", 1), ("a[::2]", 1),
    ("a[::-1]", 1), ("a[5:1:-1]", 1), ("a[::step]", 1), ("a[lo:hi:step]", 1), ("a[None:n]", 1),
    ("a[lo:None:-1]", 1), ("a[:]", 1), ("a[-1:-5:-2]", 1), ("a[()]", 1), ("a[n:n]", 1),
])

slice_unsigned_bounds = _views_kernel("slice_unsigned_bounds", "a, lo, hi", [("a[lo:hi]", 1)])


def slice_literal(dst, src):
    s = src[1:-1:2]
    d = dst[:s.size]
    i = 0
    while i < d.size:
        d[i] = s[i]
        i += 1


slice_forms_2d = _views_kernel("slice_forms_2d", "m, i, j, step", [
    ("m[i]", 1), ("m[-1]", 1), ("m[:, j]", 1), ("m[i, :]", 1), ("m[i, 1:]", 1),
    ("m[::step, j]", 1), ("m[1:, ::2]", 2), ("m[::-1, 1:3]", 2), ("m[:]", 2),
    ("m[:, ::step]", 2), ("m[()]", 2), ("m[-2:, -1]", 1),
])

slice_forms_3d = _views_kernel("slice_forms_3d", "t, i, j", [
    ("t[i]", 2), ("t[i, j]", 1), ("t[:, i, 1:]", 2), ("t[1:, :, j]", 2), ("t[i, :, ::-1]", 2),
    ("t[i, ::2, j]", 1), ("t[1:, ::-1, :2]", 3), ("t[:, :, j]", 2), ("t[::2]", 3),
])


def view_of_view(out, m, i):
    r = m[1:][i][::-1]
    out[0] = r[0] + r.size + r.strides[0]


def setitem_through_views(a, m, x, i, j):
    a[1:][0] = x
    a[::-1][i] = x
    m[:, j][i] = x
    m[i][j] = x
    m[1:, ::2][i, j] = x


def record_view(out, recs, i):
    r = recs[1:]
    out[0] = r.size + r.strides[0]
    out[1] = r[i].x


def iterate_rows(out, m):
    total = 0.0
    for row in m:
        for v in row:
            total += v
        total += row.size + row.strides[0]
    out[0] = total


def iterate_3d(out, t):
    total = 0.0
    for plane in t:
        total += plane.size + plane.strides[1]
        for row in plane:
            for v in row:
                total += v
    out[0] = total


def iterate_bools(out, a):
    n = 0
    for v in a:
        if v:
            n += 1
    out[0] = n


def iterate_records(out, recs):
    s = 0.0
    for r in recs:
        s += r.x + r.y
    out[0] = s


def iterate_slice(out, a, n):
    s = 0.0
    for v in a[n:]:
        s += v
    for v in a[::-2]:
        s -= v
    out[0] = s


RECORD = from_dtype(np.dtype([("x", np.float32), ("y", np.int32)], align=True))
NESTED = from_dtype(np.dtype([("n", np.int32), ("v", np.float32, (2, 3))], align=True))


def nested_array_views(out, recs, i):
    v = recs[0].v
    row = v[i, ::-1]
    out[0] = row[0] + row.size + v[1:].shape[0]
    for r in v:
        for x in r:
            out[1] += x


def iterate_record_rows(out, recs):
    s = 0.0
    for row in recs:
        for r in row:
            s += r.x
        s += len(row)
    out[0] = s


def lengths_of_views(out, a, m, n):
    out[0] = len(a[n:]) + len(m[1:]) + len(m[:, ::2]) + len(m[n])


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
    # views
    (slice_forms_1d, void(int64[::1], float32[::1], int64, int64, int64, int64)),
    (slice_forms_1d, void(int64[::1], float64[:], int32, int64, int32, int64)),
    (slice_forms_1d, void(int64[::1], ARR(float32, 1, "A", aligned=False), int64, int64, int64,
                          int64)),
    (slice_unsigned_bounds, void(int64[::1], float32[::1], uint32, uint64)),
    (slice_literal, void(float64[::1], float64[::1])),
    (slice_literal, void(int16[:], int16[:])),
    (slice_forms_2d, void(int64[::1], float32[:, ::1], int64, int64, int64)),
    (slice_forms_2d, void(int64[::1], float32[::1, :], int32, int64, int64)),
    (slice_forms_2d, void(int64[::1], float64[:, :], int64, uint32, int64)),
    (slice_forms_2d, void(int64[::1], ARR(float32, 2, "A", aligned=False), int64, int64, int64)),
    (slice_forms_3d, void(float64[::1], float32[:, :, ::1], int64, int64)),
    (slice_forms_3d, void(float64[::1], float32[::1, :, :], int64, int64)),
    (slice_forms_3d, void(complex128[::1], complex64[:, :, :], int64, int32)),
    (view_of_view, void(float64[::1], float64[:, ::1], int64)),
    (view_of_view, void(float64[::1], float64[::1, :], int64)),
    (setitem_through_views, void(float32[::1], float32[:, ::1], float32, int64, int64)),
    (setitem_through_views, void(int8[:], int8[::1, :], float64, int32, int64)),
    (setitem_through_views, void(ARR(float32, 1, "A", aligned=False),
                                 ARR(float32, 2, "A", aligned=False), float32, int64, int64)),
    (record_view, void(float32[::1], RECORD[::1], int64)),
    # iteration
    (array_iteration, void(float64[::1], float64[::1])),
    (array_iteration, void(float32[:], float64[::1])),
    (array_iteration, void(ARR(float64, 1, "A", aligned=False), float64[::1])),
    (iterate_rows, void(float64[::1], float64[:, ::1])),
    (iterate_rows, void(float64[::1], float32[::1, :])),
    (iterate_rows, void(float64[::1], ARR(float64, 2, "A", aligned=False))),
    (iterate_3d, void(float64[::1], float32[:, :, ::1])),
    (iterate_3d, void(float64[::1], int32[:, :, :])),
    (iterate_bools, void(int64[::1], bool_[:])),
    (iterate_records, void(float64[::1], RECORD[:])),
    (iterate_slice, void(float64[::1], float64[::1], int64)),
    (iterate_records, void(float64[::1], RECORD[::1])),
    (iterate_record_rows, void(float64[::1], RECORD[:, ::1])),
    (nested_array_views, void(float32[::1], NESTED[::1], int64)),
    (lengths_of_views, void(int64[::1], float32[::1], float32[:, :], int64)),
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
        monkeypatch.setattr(array_access, "handles_view", lambda context, aryty, idxty: False)
        monkeypatch.setattr(array_access, "handles_iteration", lambda context, aryty: False)
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


NRT_CASES = [
    (slice_forms_2d, void(int64[::1], float32[:, ::1], int64, int64, int64)),
    (slice_literal, void(float64[::1], float64[::1])),
    (setitem_through_views, void(float32[::1], float32[:, ::1], float32, int64, int64)),
    (array_iteration, void(float32[:], float64[::1])),
    (iterate_rows, void(float64[::1], float64[:, ::1])),
    (iterate_3d, void(float64[::1], float32[:, :, ::1])),
]


@pytest.mark.parametrize("fn,sig", NRT_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(NRT_CASES)])
def test_same_code_with_nrt(cuda, monkeypatch, fn, sig):
    # with the NRT, views and iterators take references (Numba's impl_ret_borrowed, incref)
    from numba.core import config

    with pytest.MonkeyPatch.context() as nrt:
        nrt.setattr(config, "CUDA_ENABLE_NRT", True, raising=False)
        ours = _compile(cuda, fn, sig)
        numbas = _compile(cuda, fn, sig, monkeypatch, numba_only=True)
    assert "NRT_incref" in ours
    assert _normalised(ours) == _normalised(numbas)


@pytest.mark.parametrize("fn,sig", [
    (array_iteration, void(float32[:], float64[::1])),
    (iterate_rows, void(float64[::1], float64[:, ::1])),
    (iterate_3d, void(float64[::1], int32[:, :, :])),
    (iterate_records, void(float64[::1], RECORD[:])),
])
def test_iternext_emits_numbas_ir(cuda, monkeypatch, fn, sig):
    # Numba's iternext (the same signature, chosen by Numba's get_function once arrayobj is
    # installed) and the one the target context hands out: the same NVVM IR, line for line
    from numba.core import base
    from numba.np import arrayobj

    from numba_cuda.compiler import nvvm, target_context

    texts = []
    real = nvvm.compile_ir

    def recording(modules, *args, **kwargs):
        texts.append([re.sub(r"_ZN\w+", "SYM", re.sub(r'ModuleID = "[^"]*"', "", text))
                      for _name, text in modules])
        return real(modules, *args, **kwargs)

    assert arrayobj.iternext_array  # imported: installed at the next lookup
    monkeypatch.setattr(nvvm, "compile_ir", recording)
    cuda.compile_ptx(fn, sig, cc=CC)
    monkeypatch.setattr(target_context.CUDATargetContext, "get_function",
                        base.BaseContext.get_function)
    cuda.compile_ptx(fn, sig, cc=CC)
    assert len(texts) == 2 and texts[0] == texts[1]


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


# (of arrays that are arguments; views, iteration and the attributes of other arrays read them
# as Numba does -- ``array_access._Slot`` -- and emit as much IR: theirs is the import spared)
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


@pytest.mark.parametrize("aryty,idxty,expected", [
    (float32[::1], types.slice2_type, True),
    (float32[::1], types.slice3_type, True),
    (float32[:, :], types.int64, True),                          # a row
    (float32[:, ::1], types.Tuple((types.int64, types.slice2_type)), True),
    (float32[:, ::1], types.Tuple((types.slice3_type, types.uint32)), True),
    (float32[:, :, :], types.UniTuple(types.slice2_type, 3), True),
    (float32[:, :], types.Tuple(()), True),                      # a[()]: the whole array
    (RECORD[::1], types.slice2_type, True),                      # a view of records
    (float32[:, :], types.UniTuple(types.int64, 2), False),      # an element
    (float32[::1], types.none, False),                           # np.newaxis
    (float32[:, :], types.Tuple((types.ellipsis, types.int64)), False),
    (float32[:, :], types.Tuple((types.slice2_type, types.none)), False),
    (float32[::1], types.UniTuple(types.slice2_type, 2), False),  # too many indices
    (float32[::1], float32[::1], False),                         # an array as the index
    (float32[::1], types.boolean, False),
    (types.Array(float32, 0, "C"), types.Tuple(()), False),      # 0-d
])
def test_which_views_are_taken(cuda, aryty, idxty, expected):
    from numba_cuda.compiler import array_access
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    assert array_access.handles_view(context, aryty, idxty) is expected
    assert not array_access.handles_view(context.subtarget(enable_boundscheck=True), aryty, idxty)


@pytest.mark.parametrize("aryty,expected", [
    (float32[::1], True), (float64[:, ::1], True), (int8[:, :, :], True),
    (RECORD[:], True), (ARR(float32, 2, "A", aligned=False), True),
    (types.Array(float32, 0, "C"), False),
])
def test_which_iterations_are_taken(cuda, aryty, expected):
    from numba_cuda.compiler import array_access
    from numba_cuda.compiler.target import cuda_target

    assert array_access.handles_iteration(cuda_target.target_context, aryty) is expected


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

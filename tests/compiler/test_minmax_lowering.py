"""``min``/``max`` of integers and floats are typed by a CUDA template and lowered in place with
Numba's ``do_minmax`` (``compiler.minmax``) instead of compiling Numba's ``@overload``
implementation through a nested pipeline.  The result types must be Numba's and the PTX must
be instruction for instruction what Numba's implementation gives (register numbering aside),
with and without fast math and line info; what the template leaves alone (booleans, complex,
tuples, keyword arguments) still goes to Numba."""

import re

import numpy as np
import pytest
from numba import boolean, float32, float64, int32, int64, types, uint32, uint64
from numba import void

from tests.support.lowering_inputs import UNIQUE

CC = (8, 0)
_REGISTER = re.compile(r"%(rd|r|fd|f|p|rs|h|hh)\d+")


def _instructions(ptx):
    ptx = ptx.split("\t.section", 1)[0]  # DWARF sections (line info) encode unique names
    lines = [UNIQUE.sub("ID", line).strip() for line in ptx.splitlines()]
    return [_REGISTER.sub(r"%\1", line) for line in lines
            if line and not line.startswith((".reg", "//", ".loc", ".file"))]


def two(out, a, b):
    out[0] = min(a, b)
    out[1] = max(a, b)


def three(out, a, b):
    out[0] = min(a, b, 3)
    out[1] = max(b, a, a)


def clamp_loop(out, a, lo, hi):
    for i in range(a.size):
        out[i] = min(max(a[i], lo), hi)


PAIRS = [(int32, int32), (int64, int32), (uint32, int64), (uint64, int64), (float32, float32),
         (float32, float64), (int64, float64), (uint64, float32)]
CASES = ([pytest.param(two, void(float64[::1], x, y), id=f"two-{x}-{y}") for x, y in PAIRS]
         + [pytest.param(three, void(float64[::1], x, y), id=f"three-{x}-{y}")
            for x, y in PAIRS[::2]]
         + [pytest.param(clamp_loop, void(float32[::1], float32[::1], float32, float64),
                         id="clamp-float"),
            pytest.param(clamp_loop, void(int64[::1], int32[::1], int64, int32),
                         id="clamp-int")])


def _compile(cuda, monkeypatch, fn, sig, numbas, **options):
    from numba.core.typing import templates

    from numba_cuda.compiler import minmax
    from numba_cuda.compiler.target import cuda_target

    nested = []
    build = templates._OverloadFunctionTemplate._build_impl

    def counting(self, *args, **kwargs):
        nested.append(getattr(self._overload_func, "__name__", "?"))
        return build(self, *args, **kwargs)

    monkeypatch.setattr(templates._OverloadFunctionTemplate, "_build_impl", counting)
    if numbas:
        monkeypatch.setattr(minmax._MinMaxTemplate, "generic", lambda self, args, kws: None)
    typing = cuda_target.typing_context
    for table in (typing._call_signatures, typing._function_call_types):
        table.clear()
    try:
        ptx, resty = cuda.compile_ptx(fn, sig, cc=CC, **options)
    finally:
        monkeypatch.undo()
        for table in (typing._call_signatures, typing._function_call_types):
            table.clear()
    return ptx, nested


@pytest.mark.parametrize("options", [{}, {"fastmath": True}, {"lineinfo": True}],
                         ids=["plain", "fastmath", "lineinfo"])
@pytest.mark.parametrize("fn,sig", CASES)
def test_same_ptx_as_numbas_min_max(cuda, monkeypatch, fn, sig, options):
    ours, our_nested = _compile(cuda, monkeypatch, fn, sig, numbas=False, **options)
    numbas, numba_nested = _compile(cuda, monkeypatch, fn, sig, numbas=True, **options)
    assert _instructions(ours) == _instructions(numbas)
    assert not any(name in ("ol_min", "ol_max") for name in our_nested), our_nested


def test_numbas_path_is_the_one_replaced(cuda, monkeypatch):
    # the comparison above is only meaningful if the patched run really took Numba's overload
    _, nested = _compile(cuda, monkeypatch, two, void(float64[::1], int64, int16_or_int8()),
                         numbas=True)
    assert {"ol_min", "ol_max"} <= set(nested), nested


def int16_or_int8():
    return types.int16  # a signature the other tests did not compile (Numba caches its impls)


@pytest.mark.parametrize("args", [
    (types.int32, types.int64), (types.uint64, types.int64), (types.float32, types.int64),
    (types.float32, types.float32, types.int8), (types.uint8, types.int8, types.float64),
    (types.IntegerLiteral(3), types.int32),
])
def test_result_types_are_numbas(cuda, monkeypatch, args):
    from numba_cuda.compiler import minmax
    from numba_cuda.compiler.target import cuda_target

    cuda.compile_ptx(two, void(float64[::1], int64, int64), cc=CC)  # contexts set up
    typing = cuda_target.typing_context

    def resolve(builtin):
        typing._call_signatures.clear()
        fnty = typing.resolve_value_type(builtin)
        return typing.resolve_function_type(fnty, args, {})

    ours = [resolve(builtin) for builtin in (min, max)]
    monkeypatch.setattr(minmax._MinMaxTemplate, "generic", lambda self, args, kws: None)
    numbas = [resolve(builtin) for builtin in (min, max)]
    monkeypatch.undo()
    typing._call_signatures.clear()
    assert ours == numbas
    assert all(sig is not None for sig in ours)


def test_other_forms_are_left_to_numba(cuda):
    from numba_cuda.compiler import minmax
    from numba_cuda.compiler.target import cuda_target

    cuda.compile_ptx(two, void(float64[::1], int64, int64), cc=CC)  # contexts set up
    template = minmax.MinTemplate(cuda_target.typing_context)
    for args in [(types.boolean, types.boolean), (types.int64, types.boolean),
                 (types.complex128, types.complex128), (types.float16, types.float16),
                 (types.UniTuple(types.int64, 3),),
                 (types.int64,)]:
        assert template.generic(args, {}) is None, args
    assert template.generic((types.int64, types.int64), {"key": types.int64}) is None

    def booleans_and_tuples(out, flag, t):
        out[0] = min(flag, True)  # Numba's boolval_min
        out[1] = max(t)           # Numba's tuple form
        out[2] = min(t)

    ptx, _ = cuda.compile_ptx(booleans_and_tuples,
                              void(int64[::1], boolean, types.UniTuple(int64, 3)), cc=CC)
    assert ".entry" in ptx


def test_python_semantics_in_the_simulator_match_the_reference_values():
    # the values the kernels above compute, as Python gives them (first of equals, NaN rules)
    nan = float("nan")
    assert max(1.5, nan, 2.5) == 2.5
    assert np.isnan(min(nan, 1.0)) and min(1.0, nan) == 1.0

"""``CUDALower.lower_binop``/``lower_getitem``/``lower_setitem`` (operator signatures from the typing context's
remembered answers, ``CUDATypingContext.function_call_type``) must emit exactly what Numba's
``Lower`` emits: the NVVM IR handed to libNVVM is compared line by line with the pipeline
running Numba's methods, on every corpus entry and on kernels whose operators resolve through
third-party ``@overload(target="cuda")`` and ``@intrinsic`` extensions; the PTX too."""

import operator

import pytest
from numba import int64, types, void
from numba.extending import intrinsic, overload

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.support.lowering_inputs import UNIQUE, nvvm_inputs
from tests.support.ptx_helpers import assemble

CC = (8, 0)


@intrinsic
def as_meters(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.int64)

    return types.int64(x), codegen


@overload(operator.add, target="cuda")
def _tuple_add(a, b):
    # a third party's operator overload for CUDA: (int, int) tuple + int
    if isinstance(a, types.UniTuple) and a.count == 2 and isinstance(b, types.Integer):
        def impl(a, b):
            return (a[0] + b, a[1] + b)
        return impl


def uses_extensions(out, n):
    t = (n, n + 1) + as_meters(n)
    out[0] = t[0] * t[1]
    out[1] = out[0] - n


EXTRA = [pytest.param(uses_extensions, void(int64[::1], int64), False, id="extensions")]

def ir_and_ptx(cuda, monkeypatch, fn, sig, device, replacements=None, **options):
    """The NVVM IR texts handed to libNVVM (unique names masked) and the PTX of one compile,
    with ``replacements`` (``{name: function}``) set on ``CUDALower`` for its duration."""
    from numba_cuda.compiler import lowering

    triples = [(lowering.CUDALower, name, function)
               for name, function in (replacements or {}).items()]
    return nvvm_inputs(cuda, monkeypatch, fn, sig, device, triples, cc=CC, **options)


def _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods):
    from numba.core.lowering import Lower

    numbas = {"lower_binop": Lower.lower_binop, "lower_getitem": Lower.lower_getitem,
              "lower_setitem": Lower.lower_setitem}
    return ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas if numbas_methods else None)


@pytest.mark.parametrize("fn,sig,device", CORPUS + EXTRA)
def test_same_ir_as_numbas_lowering(cuda, monkeypatch, fn, sig, device):
    ours, our_ptx = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=False)
    numbas, numba_ptx = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=True)
    assert ours == numbas
    assert UNIQUE.sub("ID", our_ptx) == UNIQUE.sub("ID", numba_ptx)


def test_extensions_still_work(cuda, monkeypatch):
    texts, ptx = _ir_and_ptx(cuda, monkeypatch, uses_extensions, void(int64[::1], int64), False,
                             numbas_methods=False)
    # the overload's implementation (a device function adding to both elements) is linked in
    assert any(text.startswith('; ModuleID = "_tuple_add.<locals>.impl') for text in texts)
    assert "mul.lo.s64" in ptx
    assemble(ptx, CC)


def test_remembered_answer_sets_the_implementation_key(cuda):
    from numba_cuda.compiler.target import cuda_target

    typingctx = cuda_target.typing_context
    fnty = typingctx.resolve_value_type(operator.add)
    first = typingctx.function_call_type(fnty, (types.int64, types.int64))
    key = fnty._impl_keys[first.args]
    fnty._impl_keys[first.args] = "something else"
    again = typingctx.function_call_type(fnty, (types.int64, types.int64))
    assert again == first
    assert fnty._impl_keys[again.args] == key

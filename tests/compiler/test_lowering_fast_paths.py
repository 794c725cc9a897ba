"""The lowering pass's own versions of Numba's ``Lower`` methods and target-context lookups
(``CUDALower`` in ``compiler/lowering.py``, ``local_variables``, ``CUDATargetContext``'s
remembered implementations, argument packers and mangled names, ``CUDAFlags``' mangle string)
must emit exactly what Numba's emit: the NVVM IR handed to libNVVM is compared line by line
with the pipeline running Numba's methods instead, on every corpus entry (plain, with line
info, with debug info) and on kernels using third-party ``@overload``/``@intrinsic``/
``@lower_builtin`` extensions, including ones registered after the first compile."""

import operator

import pytest
from numba import int64, types, void
from numba.core import base, errors, ir
from numba.core.lowering import Lower

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.compiler.test_operator_lowering import _UNIQUE, EXTRA

CC = (8, 0)


def _numbas_lower_inst(self, inst):
    # CUDALower's location bookkeeping, then Numba's statement lowering
    helper = getattr(self, "call_helper", None)
    if helper is not None:
        helper.loc = self.loc
    self.library.lowering_loc = self.loc
    return Lower.lower_inst(self, inst)


def numbas_methods():
    """(class, attribute, Numba's version) for every piece the lowering pass replaces."""
    from numba_cuda.compiler import lowering, target, target_context

    lower = lowering.CUDALower
    ctx = target_context.CUDATargetContext
    return [
        (lower, "lower_block", Lower.lower_block),
        (lower, "lower_inst", _numbas_lower_inst),
        (lower, "_lower_assignment", Lower.lower_inst),
        (lower, "_find_singly_assigned_variable", Lower._find_singly_assigned_variable),
        (lower, "_disable_sroa_like_opt", Lower._disable_sroa_like_opt),
        (lower, "delvar", Lower.delvar),
        (lower, "lower_assign", Lower.lower_assign),
        (lower, "lower_call", Lower.lower_call),
        (lower, "lower_binop", Lower.lower_binop),
        (lower, "lower_getitem", Lower.lower_getitem),
        (lower, "lower_setitem", Lower.lower_setitem),
        (ctx, "get_function", base.BaseContext.get_function),
    ]


def ir_and_ptx(cuda, monkeypatch, fn, sig, device, replacements=(), **options):
    """The NVVM IR texts handed to libNVVM (unique names masked) and the PTX of one compile,
    with ``replacements`` ((class, name, value) triples) set for its duration."""
    from numba_cuda.compiler import nvvm

    for cls, name, value in replacements:
        monkeypatch.setattr(cls, name, value)
    texts = []
    original = nvvm.compile_ir

    def recording(modules, *args, **kwargs):
        texts.extend(_UNIQUE.sub("ID", text) for _name, text in modules)
        return original(modules, *args, **kwargs)

    monkeypatch.setattr(nvvm, "compile_ir", recording)
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, device=device, cc=CC, **options)
    finally:
        monkeypatch.undo()
    return texts, _UNIQUE.sub("ID", ptx)


def _compare(cuda, monkeypatch, fn, sig, device, **options):
    ours = ir_and_ptx(cuda, monkeypatch, fn, sig, device, **options)
    numbas = ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods(), **options)
    assert ours[0] == numbas[0]
    if not (options.get("lineinfo") or options.get("debug")):
        # (with line tables the PTX holds the function names' unique ids as bytes)
        assert ours[1] == numbas[1]
    return ours


@pytest.mark.parametrize("fn,sig,device", CORPUS + EXTRA)
def test_same_ir_as_numbas_lowering(cuda, monkeypatch, fn, sig, device):
    _compare(cuda, monkeypatch, fn, sig, device)


@pytest.mark.parametrize("fn,sig,device", CORPUS[::3])
def test_same_ir_with_line_info(cuda, monkeypatch, fn, sig, device):
    texts, _ = _compare(cuda, monkeypatch, fn, sig, device, lineinfo=True)
    assert any("!DILocation" in text for text in texts)


@pytest.mark.parametrize("fn,sig,device", CORPUS[1::3])
def test_same_ir_with_debug_info(cuda, monkeypatch, fn, sig, device):
    texts, _ = _compare(cuda, monkeypatch, fn, sig, device, debug=True, opt=False)
    assert any("!DILocalVariable" in text for text in texts)


# ---- the analysis of singly assigned variables ----------------------------------------------
def _lowered_ir(cuda, fn, sig, device):
    """(func_ir, singly assigned set as Numba computes it, ours) for the kernel's function."""
    from numba_cuda.compiler import local_variables, lowering

    seen = []
    original = lowering.CUDALower._find_singly_assigned_variable

    def spy(self):
        Lower._find_singly_assigned_variable(self)
        numbas = set(self._singly_assigned_vars)
        seen.append((numbas, local_variables.singly_assigned_variables(self.func_ir.blocks)))
        original(self)

    lowering.CUDALower._find_singly_assigned_variable = spy
    try:
        cuda.compile_ptx(fn, sig, device=device, cc=CC)
    finally:
        lowering.CUDALower._find_singly_assigned_variable = original
    return seen


@pytest.mark.parametrize("fn,sig,device", CORPUS)
def test_singly_assigned_variables_are_numbas(cuda, fn, sig, device):
    seen = _lowered_ir(cuda, fn, sig, device)
    assert seen
    for numbas, ours in seen:
        assert ours == numbas


def test_singly_assigned_variables_defer_to_ir_extensions(monkeypatch):
    from numba.core import analysis

    from numba_cuda.compiler import local_variables

    loc = ir.Loc("f", 1)
    block = ir.Block(ir.Scope(None, loc), loc)
    node = type("Node", (ir.Stmt,), {})()
    block.body = [node]
    blocks = {0: block}
    assert local_variables.singly_assigned_variables(blocks) == set()
    monkeypatch.setitem(analysis.ir_extension_usedefs, type(node), None)
    assert local_variables.singly_assigned_variables(blocks) is None
    monkeypatch.undo()
    monkeypatch.setitem(analysis.ir_extension_use_alloca, type(node), None)
    assert local_variables.singly_assigned_variables(blocks) is None


def test_singly_assigned_variables_cases():
    """Reads before the assignment, reassignment, two blocks, ``x = x + 1``: as Numba says."""
    from numba_cuda.compiler import local_variables

    loc = ir.Loc("f", 1)
    scope = ir.Scope(None, loc)

    def var(name):
        return ir.Var(scope, name, loc)

    def assign(value, target):
        return ir.Assign(value, var(target), loc)

    one = ir.Const(1, loc)
    b0 = ir.Block(scope, loc)
    b0.body = [assign(one, "a"), assign(one, "b"), assign(var("b"), "b"),
               assign(ir.Expr.binop(operator.add, var("a"), var("c"), loc), "d"),
               assign(ir.Expr.binop(operator.add, var("e"), var("e"), loc), "e"),
               ir.Del("a", loc), ir.Branch(var("d"), 1, 1, loc)]
    b1 = ir.Block(scope, loc)
    b1.body = [assign(one, "c"), assign(one, "f"), ir.SetItem(var("f"), var("a"), var("g"), loc),
               ir.Return(var("d"), loc)]
    blocks = {0: b0, 1: b1}

    class FakeLower:
        pass

    fake = FakeLower()
    fake.func_ir = type("IR", (), {"blocks": blocks,
                                   "func_id": type("Id", (), {"is_generator": False})()})()
    fake.blocks = blocks
    Lower._find_singly_assigned_variable(fake)
    assert local_variables.singly_assigned_variables(blocks) == fake._singly_assigned_vars
    assert fake._singly_assigned_vars  # something qualifies (a, f ...), something does not


def test_lowering_error_keeps_numbas_context(cuda, monkeypatch):
    from numba.extending import intrinsic

    @intrinsic(target="cuda")
    def refuses(typingctx, x):
        def codegen(context, builder, sig, args):
            raise errors.NumbaError("refused while lowering")

        return types.int64(types.int64), codegen

    def kernel(a):
        if a[0] > 0:
            a[1] = refuses(a[2])

    def message(replacements):
        for cls, name, value in replacements:
            monkeypatch.setattr(cls, name, value)
        try:
            with pytest.raises(errors.NumbaError) as info:
                cuda.compile_ptx(kernel, void(int64[::1]), cc=CC)
        finally:
            monkeypatch.undo()
        return str(info.value)

    ours = message(())
    assert "refused while lowering" in ours
    assert ours == message(numbas_methods())

"""A compile leaves its objects to reference counting, not to the cyclic garbage collector:
the function's IR, the interpreter that made it and a kernel wrapper template's module are
freed as soon as nothing uses them, with the collector off (``collection_pause`` pauses it for
a compile; whatever a compile leaves in reference cycles costs the collection after it).

Sources of such cycles that are avoided: the interpreter's cache of its own bound methods
(``front_end.CUDAInterpreter``), Numba's ``resolve_func_from_module`` (a recursive closure
holding the IR, called by ``FindLiterallyCalls`` and ``InlineInlinables`` for every call of a
getattr chain: ``pass_manager.resolve_module_attribute`` answers in its place), the printed
llvmlite module of a kernel wrapper template, and the ``TypingError`` (with its traceback) of
typing ``cuda.grid(1)`` with a non-literal ``ndim`` first."""

import gc
import weakref

import numba
import pytest
from numba import int64, literally, types, void
from numba.core import bytecode, errors, ir, ir_utils

from tests.compiler.corpus_compiler import CORPUS

CC = (9, 0)


@pytest.fixture
def collector_off():
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _translated(fn):
    from numba_cuda.compiler.front_end import CUDAInterpreter

    func_id = bytecode.FunctionIdentity.from_function(fn)
    interp = CUDAInterpreter(func_id)
    return interp, interp.interpret(bytecode.ByteCode(func_id))


def grid_kernel(a, b):
    i = numba.cuda.grid(1)
    if i < a.size:
        a[i] = b[i] * 2


def test_interpreter_is_freed_by_reference_counting(cuda, collector_off):
    interp, func_ir = _translated(grid_kernel)
    watched = [weakref.ref(interp), weakref.ref(func_ir)]
    del interp, func_ir
    assert [ref() for ref in watched] == [None, None]


def test_interpreter_dispatch_cache_is_dropped_when_interpretation_fails(cuda, collector_off):
    from numba_cuda.compiler.front_end import CUDAInterpreter

    class Failing(CUDAInterpreter):
        def op_RETURN_VALUE(self, inst, *args, **kwargs):
            assert self.__dict__.get("_handlers")  # (the cache is in use)
            raise RuntimeError("refused")

        op_RETURN_CONST = op_RETURN_VALUE  # Python 3.12+: ``return None``

    func_id = bytecode.FunctionIdentity.from_function(grid_kernel)
    interp = Failing(func_id)
    with pytest.raises(RuntimeError, match="refused"):
        interp.interpret(bytecode.ByteCode(func_id))
    assert "_handlers" not in interp.__dict__


@pytest.mark.parametrize("entry", CORPUS, ids=[entry[0] for entry in CORPUS])
def test_compile_leaves_the_function_ir_to_reference_counting(cuda, monkeypatch, entry):
    from numba_cuda.compiler import front_end

    name, fn, sig, device = entry
    cuda.compile_ptx(fn, sig, device=device, cc=CC)  # (first-use caches filled)
    refs = []
    original = front_end.TranslateBytecodeQuickly.run_pass

    def spy(self, state):
        changed = original(self, state)
        refs.append(weakref.ref(state.func_ir))
        return changed

    monkeypatch.setattr(front_end.TranslateBytecodeQuickly, "run_pass", spy)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        cuda.compile_ptx(fn, sig, device=device, cc=CC)
        assert refs and all(ref() is None for ref in refs)
    finally:
        if enabled:
            gc.enable()


def _getattr_definitions():
    """(func_ir, getattr expression) of every getattr chain in the corpus' functions."""
    from numba.core.compiler import run_frontend

    out = []
    for entry in CORPUS:
        func_ir = run_frontend(entry[1])
        for block in func_ir.blocks.values():
            for expr in block.find_exprs(op="getattr"):
                out.append((func_ir, expr))
    return out


def test_module_attributes_resolve_as_numbas(cuda):
    from numba_cuda.compiler.pass_manager import resolve_module_attribute

    pairs = _getattr_definitions()
    assert len(pairs) > 50
    resolved = 0

    def outcome(resolve, func_ir, expr):
        try:
            return ir_utils.guard(resolve, func_ir, expr)
        except Exception as exc:  # noqa: BLE001 - a stub refusing the attribute (threadIdx.x)
            return (type(exc), str(exc))

    for func_ir, expr in pairs:
        ours = outcome(resolve_module_attribute, func_ir, expr)
        numbas = outcome(ir_utils.resolve_func_from_module, func_ir, expr)
        assert ours is numbas or (type(ours) is tuple and ours == numbas)
        resolved += ours is not None and type(ours) is not tuple
    assert resolved > 20
    # not a getattr chain, or one not starting at a module
    some_ir = pairs[0][0]
    assert resolve_module_attribute(some_ir, ir.Const(1, loc=some_ir.loc)) is None
    assert resolve_module_attribute(some_ir, None) is None


def test_resolving_a_module_attribute_leaves_no_cycle(cuda, collector_off):
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.pass_manager import resolve_module_attribute

    func_ir = run_frontend(grid_kernel)
    gc.collect()
    exprs = [expr for block in func_ir.blocks.values() for expr in block.find_exprs(op="getattr")]
    found = [resolve_module_attribute(func_ir, expr) for expr in exprs]
    assert numba.cuda.grid in found
    watched = weakref.ref(func_ir)
    del func_ir, exprs
    assert watched() is None


def literally_by_name(a, n):
    a[0] = literally(n)


def literally_through_module(a, n):
    a[0] = numba.literally(n)


@pytest.mark.parametrize("fn", [literally_by_name, literally_through_module])
def test_literally_calls_are_still_found(cuda, fn):
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.front_end import calls_literally

    assert calls_literally(run_frontend(fn))
    assert not calls_literally(run_frontend(grid_kernel))
    with pytest.raises(errors.ForceLiteralArg) as info:
        cuda.compile_ptx(fn, void(int64[::1], int64), cc=CC)
    assert "find_literally" in str(info.value)


def test_a_literally_call_compiles_through_the_dispatcher(cuda):
    kernel = cuda.jit(literally_through_module)
    kernel.compile((types.int64[::1], types.IntegerLiteral(3)))
    assert any("3" in str(sig) for sig in kernel.overloads)


def test_wrapper_template_module_is_freed_by_reference_counting(cuda, monkeypatch, collector_off):
    from numba_cuda.compiler import target_context
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    modules = []
    original = target_context.CUDATargetContext.build_kernel_wrapper

    def spy(self, *args, **kwargs):
        module, ll_args = original(self, *args, **kwargs)
        modules.append(weakref.ref(module))
        return module, ll_args

    monkeypatch.setattr(target_context.CUDATargetContext, "build_kernel_wrapper", spy)
    argtypes = (types.int16, types.Tuple((types.float32, types.complex64)), types.uint8[:, ::1])
    context._wrapper_templates.pop((argtypes, types.none, 37, True, None), None)
    template = context.kernel_wrapper_template(argtypes, types.none, 37, True)
    assert len(modules) == 1 and modules[0]() is None
    assert template.render("k", "f").startswith('; ModuleID = "k.kernel"')


def test_typing_grid_leaves_no_cyclic_garbage(cuda, collector_off):
    from numba_cuda.compiler.target import cuda_target
    from numba_cuda.lang import indexing

    typingctx = cuda_target.typing_context
    for template in (indexing.GridTemplate, indexing.GridsizeTemplate):
        fnty = types.Function(template)
        for ndim in (1, 2, 3):
            gc.collect()
            sig = fnty.get_call_type(typingctx, (types.IntegerLiteral(ndim),), {})
            assert sig.args == (types.IntegerLiteral(ndim),)
            assert gc.collect() == 0


def test_grid_with_a_variable_ndim_is_still_refused(cuda):
    def kernel(a, n):
        a[cuda.grid(n)] = 1

    with pytest.raises(errors.TypingError, match="needs ndim to be the constant 1, 2 or 3"):
        cuda.compile_ptx(kernel, void(int64[::1], int64), cc=CC)


@pytest.mark.parametrize("name", ["grid", "gridsize"])
def test_a_run_time_ndim_is_numbas_require_literal_value(cuda, name):
    # the peers raise Numba's RequireLiteralValue here; their suites match its name
    fn = getattr(cuda, name)

    def kernel(a, n):
        a[0] = fn(n)

    with pytest.raises(errors.TypingError,
                       match=r"RequireLiteralValue: cuda\.\w+\(ndim\) needs ndim .* run time"):
        cuda.compile_ptx(kernel, void(int64[::1], int64), cc=CC)

    def kernel4(a):
        a[0] = fn(4)[0]

    # a constant, just not 1, 2 or 3: the literal attempt's TypingError says which
    with pytest.raises(errors.TypingError, match=r"TypingError: cuda\.\w+\(ndim\) needs ndim to be "
                       r"the constant 1, 2 or 3, got Literal\[int\]\(4\)"):
        cuda.compile_ptx(kernel4, void(int64[::1]), cc=CC)

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
from numba.core import analysis, base, errors, ir, itanium_mangler
from numba.core.compiler import Flags
from numba.core.lowering import Lower

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.compiler.test_operator_lowering import EXTRA
from tests.support.lowering_inputs import UNIQUE, nvvm_inputs

CC = (8, 0)


def dominated_variables(func_ir):
    """The variables beside Numba's singly assigned ones that ``CUDALower`` keeps out of stack
    slots (``local_variables.singly_assigned_variables(..., across_blocks=True)``), found here
    with Numba's own analyses: assigned by one statement of the function, in a block that
    does not read them before, dominates (``CFGraph.dominators``) every block reading them
    (``compute_use_defs``) or deleting them, and precedes each in label order."""
    blocks = func_ir.blocks
    assigned = {}
    for label, block in blocks.items():
        for stmt in block.find_insts(ir.Assign):
            assigned.setdefault(stmt.target.name, []).append(label)
    usedefs = analysis.compute_use_defs(blocks)
    dominators = analysis.compute_cfg_from_blocks(blocks).dominators()
    users = {}
    for label, names in usedefs.usemap.items():
        for name in names:
            users.setdefault(name, set()).add(label)
    for label, block in blocks.items():
        defined = set()
        for stmt in block.body:
            if isinstance(stmt, ir.Del) and stmt.value not in defined:
                users.setdefault(stmt.value, set()).add(label)
            elif isinstance(stmt, ir.Assign):
                defined.add(stmt.target.name)
    out = set()
    for name, labels in assigned.items():
        if len(labels) != 1 or name not in users:
            continue
        (label,) = labels
        if all(user > label and label in dominators.get(user, ()) for user in users[name]):
            out.add(name)
    return out


def _numbas_find_singly_assigned_variable(self):
    # Numba's analysis, and the variables CUDALower adds to it (found with Numba's analyses)
    Lower._find_singly_assigned_variable(self)
    from numba_cuda.compiler import local_variables

    if local_variables.ACROSS_BLOCKS and not (self._disable_sroa_like_opt
                                              or self._describes_variables):
        self._singly_assigned_vars |= dominated_variables(self.func_ir)


def _numbas_disable_sroa_like_opt(self):
    # Numba's property, but for line information alone (see CUDALower._disable_sroa_like_opt)
    flags = self.flags
    if flags is not None and flags.debuginfo and flags.dbg_directives_only:
        return False
    return Lower._disable_sroa_like_opt.fget(self)


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
        (lower, "setup_function", Lower.setup_function),
        (lower, "lower_block", Lower.lower_block),
        (lower, "pre_block", Lower.pre_block),
        (lower, "alloca_lltype", Lower.alloca_lltype),
        (lower, "lower_inst", _numbas_lower_inst),
        (lower, "_lower_assignment", Lower.lower_inst),
        (lower, "_find_singly_assigned_variable", _numbas_find_singly_assigned_variable),
        (lower, "_disable_sroa_like_opt", property(_numbas_disable_sroa_like_opt)),
        (lower, "delvar", Lower.delvar),
        (lower, "lower_assign", Lower.lower_assign),
        (lower, "lower_call", Lower.lower_call),
        (lower, "lower_binop", Lower.lower_binop),
        (lower, "lower_getitem", Lower.lower_getitem),
        (lower, "lower_setitem", Lower.lower_setitem),
        (ctx, "get_function", base.BaseContext.get_function),
        (ctx, "get_arg_packer", base.BaseContext.get_arg_packer),
        (ctx, "subtarget", base.BaseContext.subtarget),
        (ctx, "mangler", _numbas_mangler),
        (target.CUDAFlags, "get_mangle_string", Flags.get_mangle_string),
    ]


def _numbas_mangler(self, name, argtypes, *, abi_tags=(), uid=None):
    return itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags, uid=uid)


def ir_and_ptx(cuda, monkeypatch, fn, sig, device, replacements=(), **options):
    """The NVVM IR texts handed to libNVVM and the PTX of one compile (unique names masked in
    both), with ``replacements`` ((class, name, value) triples) set for its duration."""
    texts, ptx = nvvm_inputs(cuda, monkeypatch, fn, sig, device, replacements, cc=CC, **options)
    return texts, UNIQUE.sub("ID", ptx)


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


# ---- remembered manglings, mangle strings, argument packers --------------------------------
@pytest.fixture(scope="module")
def corpus_requests(cuda):
    """Every mangler, mangle-string and argument-packer request of a compile of the corpus
    (with and without debug info), as (arguments, our answer)."""
    from numba_cuda.compiler import target, target_context

    ctx = target_context.CUDATargetContext
    requests = {"mangler": [], "flags": [], "packer": []}
    mangler, flags, packer = ctx.mangler, target.CUDAFlags.get_mangle_string, ctx.get_arg_packer

    def spy_mangler(self, name, argtypes, *, abi_tags=(), uid=None):
        answer = mangler(self, name, argtypes, abi_tags=abi_tags, uid=uid)
        requests["mangler"].append(((name, tuple(argtypes), tuple(abi_tags), uid), answer))
        return answer

    def spy_flags(self):
        answer = flags(self)
        requests["flags"].append((self.copy(), answer))
        return answer

    def spy_packer(self, fe_args):
        answer = packer(self, fe_args)
        requests["packer"].append(((self, tuple(fe_args)), answer))
        return answer

    ctx.mangler, target.CUDAFlags.get_mangle_string, ctx.get_arg_packer = (
        spy_mangler, spy_flags, spy_packer)
    try:
        for param in CORPUS[::2]:
            fn, sig, device = param.values
            cuda.compile_ptx(fn, sig, device=device, cc=CC)
            cuda.compile_ptx(fn, sig, device=device, cc=CC, debug=True, opt=False)
    finally:
        ctx.mangler, target.CUDAFlags.get_mangle_string, ctx.get_arg_packer = (
            mangler, flags, packer)
    return requests


def test_mangled_names_are_numbas(corpus_requests):
    assert len(corpus_requests["mangler"]) > 40
    for (name, argtypes, abi_tags, uid), answer in corpus_requests["mangler"]:
        assert answer == itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags, uid=uid)


@pytest.mark.parametrize("name", ["f", "a.b.<locals>.c", "9lives", "caf\u00e9.k$1", "x__y", ""])
def test_mangled_name_forms(name):
    from numba_cuda.compiler.target_context import mangle

    for argtypes in [(), (types.int64, types.float32[:, ::1]), (types.UniTuple(types.int8, 3), 4),
                     [types.boolean, "tag"]]:
        for abi_tags, uid in [((), None), (("cuda",), 7), (("a b", "\u00fc"), None)]:
            assert (mangle(name, argtypes, abi_tags=abi_tags, uid=uid)
                    == itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags, uid=uid))
    # an unhashable argument value is mangled by Numba's function as it is
    assert mangle("f", ([1],)) == itanium_mangler.mangle("f", ([1],))


def test_mangle_strings_are_numbas(corpus_requests):
    answers = corpus_requests["flags"]
    assert len({answer for _flags, answer in answers}) >= 2  # with and without debug info
    for flags, answer in answers:
        assert answer == Flags.get_mangle_string(flags)


def test_argument_packers_are_numbas(corpus_requests):
    assert corpus_requests["packer"]
    for (ctx, fe_args), packer in corpus_requests["packer"]:
        fresh = base.BaseContext.get_arg_packer(ctx, fe_args)
        assert packer._dm_args == fresh._dm_args
        assert packer.argument_types == fresh.argument_types
        assert packer._unflattener._code == fresh._unflattener._code
        assert packer._nargs == fresh._nargs


# ---- failed implementation lookups ------------------------------------------------------------
def _fresh_key(name):
    return f"cuda_test_lowering_fast_paths_{name}"


def test_failed_lookup_is_remembered_until_something_is_registered(cuda):
    from numba.core import typing
    from numba.core.imputils import builtin_registry

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.target_context
    key = _fresh_key("registered")
    sig = typing.signature(types.int64, types.int64)
    for _ in range(2):
        with pytest.raises(NotImplementedError, match="No definition for lowering"):
            ctx.get_function(key, sig)
    assert any(entry[0] == key for entry in ctx._refused)

    @builtin_registry.lower(key, types.int64)
    def impl(context, builder, sig, args):
        return args[0]

    assert ctx.get_function(key, sig)._imp is impl


def test_failed_lookup_is_forgotten_when_a_definition_is_inserted(cuda):
    from numba.core import typing

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.target_context
    key = _fresh_key("inserted")
    sig = typing.signature(types.int64, types.int64)
    with pytest.raises(NotImplementedError):
        ctx.get_function(key, sig)

    def impl(context, builder, sig, args):
        return args[0]

    ctx.insert_func_defn([(impl, key, (types.int64,))])
    assert ctx.get_function(key, sig)._imp is impl


def test_failed_lookup_message_is_numbas(cuda):
    from numba.core import typing

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.target_context
    key = _fresh_key("message")
    sig = typing.signature(types.float32, types.int64, types.float32)
    messages = []
    for _ in range(2):  # found, then remembered
        with pytest.raises(NotImplementedError) as info:
            ctx.get_function(key, sig)
        messages.append(str(info.value))
    with pytest.raises(NotImplementedError) as info:
        base.BaseContext.get_function(ctx, key, sig)
    assert messages == [str(info.value)] * 2


def late_negate(x):
    """Typed and lowered by registrations the test below makes after a first compile."""


def test_extensions_registered_after_the_first_compile(cuda, monkeypatch):
    """A kernel compiled, then an ``@intrinsic``, an ``@overload`` and a ``@lower_builtin``
    registered and used: the same IR as Numba's lookups, the new implementations used."""
    from numba.core import typing
    from numba.core.imputils import lower_builtin
    from numba.core.typing.templates import AbstractTemplate, infer_global
    from numba.extending import intrinsic, overload

    def first(a):
        a[0] = 1
        a[1] = a[0] + 2

    _compare(cuda, monkeypatch, first, void(int64[::1]), False)

    @intrinsic(target="cuda")
    def late_double(typingctx, x):
        def codegen(context, builder, sig, args):
            return builder.mul(args[0], context.get_constant(types.int64, 2))

        return types.int64(types.int64), codegen

    def late_triple(x):
        pass

    @overload(late_triple, target="cuda")
    def _late_triple(x):
        def impl(x):
            return x * 3

        return impl

    @infer_global(late_negate)
    class _LateNegate(AbstractTemplate):
        def generic(self, args, kws):
            if len(args) == 1 and args[0] == types.int64:
                return typing.signature(types.int64, types.int64)

    @lower_builtin(late_negate, types.int64)
    def _lower_late_negate(context, builder, sig, args):
        return builder.neg(args[0])

    def second(a):
        a[0] = 1
        a[1] = late_double(a[0]) + late_triple(a[2]) + late_negate(a[3])

    texts, ptx = _compare(cuda, monkeypatch, second, void(int64[::1]), False)
    joined = "\n".join(texts)
    assert "mul i64" in joined and "sub i64 0" in joined


# ---- value names, data models ---------------------------------------------------------------
def test_fast_name_scope_names_as_llvmlite():
    from llvmlite.ir._utils import DuplicatedNameError, NameScope

    from numba_cuda.compiler.lowering import FastNameScope

    requests = [("", True)] * 3 + [("x", True), ("x", True), ("x.1", True), ("x", True),
                                   ("arg.a", False), ("y", False), ("", True), ("x.2.1", True),
                                   ("x.2", True), ("x", True)]
    ours, llvmlites = FastNameScope(), NameScope()
    for name, dedup in requests:
        assert ours.register(name, deduplicate=dedup) == llvmlites.register(name, deduplicate=dedup)
    assert ours._useset == llvmlites._useset
    assert dict(ours._basenamemap) == dict(llvmlites._basenamemap)
    with pytest.raises(DuplicatedNameError):
        ours.register("y")
    assert ours.deduplicate("x") == llvmlites.deduplicate("x")


def test_lowered_functions_use_the_fast_name_scope(cuda, monkeypatch):
    from numba_cuda.compiler import lowering

    scopes = []
    original = lowering.CUDALower.setup_function

    def spy(self, fndesc):
        original(self, fndesc)
        scopes.append(type(self.function.scope))

    monkeypatch.setattr(lowering.CUDALower, "setup_function", spy)
    fn, sig, device = CORPUS[0].values
    cuda.compile_ptx(fn, sig, device=device, cc=CC)
    assert scopes and set(scopes) == {lowering.FastNameScope}


def test_data_models_are_numbas(cuda):
    from numba.core.datamodel import DataModelManager

    from numba_cuda.compiler.target import cuda_target

    manager = cuda_target.target_context.data_model_manager
    for param in CORPUS[:10]:
        fn, sig, device = param.values
        cuda.compile_ptx(fn, sig, device=device, cc=CC)
    assert manager._by_identity
    for fetype, model in list(manager._by_identity.values()):
        assert DataModelManager.lookup(manager, fetype) is model
        assert manager[fetype] is model
    # a type equal to a known one but another object (not interned) is Numba's answer too
    probe = types.int64
    assert manager.lookup(probe) is DataModelManager.lookup(manager, probe)


def test_try_block_search_runs_when_exception_check_is_defined():
    from numba.core.unsafe import eh

    from numba_cuda.compiler.lowering import CUDALower

    loc = ir.Loc("f", 1)

    def lowerer(*values):
        fake = type("FakeLower", (), {})()
        fake.func_ir = type("IR", (), {})()
        fake.func_ir._definitions = {"$f": list(values)}
        return CUDALower._calls_exception_check.func(fake)

    assert lowerer(ir.Global("exception_check", eh.exception_check, loc)) is True
    assert lowerer(ir.Global("len", len, loc), ir.Const(1, loc)) is False


def test_subtarget_is_numbas_copy(cuda):
    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.target_context
    ours = ctx.subtarget(enable_debuginfo=True, fndesc="f")
    numbas = base.BaseContext.subtarget(ctx, enable_debuginfo=True, fndesc="f")
    assert type(ours) is type(numbas) is type(ctx)
    assert ours.__dict__.keys() == numbas.__dict__.keys()
    for name, value in numbas.__dict__.items():
        assert ours.__dict__[name] is value or ours.__dict__[name] == value, name
    assert ours.enable_debuginfo is True and ctx.enable_debuginfo is not ours
    with pytest.raises(NameError, match="unknown option 'no_such_option'"):
        ctx.subtarget(no_such_option=1)

"""``ir_printer.module_text`` gives exactly ``str(module)`` (llvmlite's printer): on every module
the corpus compiles (plain, with line info, with debug info), end to end in the NVVM IR and PTX
against compiles printed by llvmlite, and on hand-built modules holding every instruction kind
llvmlite can build, names that need quoting, metadata, cached and stale strings, and subclasses.
"""

import pytest
from llvmlite import ir

from numba_cuda.compiler import codelibrary, ir_printer
from numba_cuda.compiler.api import compile_to_library
from numba_cuda.compiler.pipeline import CompileOptions
from tests.compiler.corpus_compiler import CORPUS

OPTION_SETS = {
    "plain": {},
    "lineinfo": {"lineinfo": True},
    "debug": {"debug": True, "opt": False},
    "fastmath": {"fastmath": True},
}


@pytest.fixture
def compared(monkeypatch):
    """Every module printed while the test runs is also printed by llvmlite; the list of
    ``(module name, ours, llvmlite's)`` that differ, and the count of modules compared."""
    seen = {"count": 0, "different": []}
    fast = ir_printer.module_text

    def both(module):
        ours = fast(module)
        theirs = str(module)
        seen["count"] += 1
        if ours != theirs:
            seen["different"].append((module.name, ours, theirs))
        return ours

    monkeypatch.setattr(ir_printer, "module_text", both)
    return seen


def _library(fn, sig, device, options):
    options = CompileOptions.from_user(**options)
    library, _ = compile_to_library(fn, sig, options, device=device,
                                    abi="c" if device else "numba")
    return library


@pytest.mark.parametrize("options", sorted(OPTION_SETS))
def test_corpus_modules_print_as_llvmlite_prints_them(compared, options):
    for name, fn, sig, device in CORPUS:
        _library(fn, sig, device, OPTION_SETS[options])
    assert compared["count"] >= len(CORPUS)
    assert [name for name, _ours, _theirs in compared["different"]] == []


@pytest.fixture
def shadowed(monkeypatch):
    """Libraries finalized while the test runs also keep ``_llvmlite_texts``: their modules as
    ``finalize`` makes them from llvmlite's ``str(module)`` (printed right after
    ``module_text``, before the module is released, so that nothing llvmlite caches while
    printing is there before ours)."""
    from numba_cuda.compiler import nvvmir

    printed = {}
    fast = ir_printer.module_text

    def both(module):
        ours = fast(module)
        printed[id(module)] = (module, nvvmir.downgrade_for_llvm7(
            nvvmir.ir_version_text(module, str(module))))
        return ours

    monkeypatch.setattr(ir_printer, "module_text", both)
    original = codelibrary.CUDACodeLibrary.finalize

    def finalize(self):
        modules = None if self._finalized else list(self._modules)
        original(self)
        if modules is not None:
            self._llvmlite_texts = [
                module if isinstance(module, tuple) else
                (module.name, printed.pop(id(module))[1])
                for module in modules]

    monkeypatch.setattr(codelibrary.CUDACodeLibrary, "finalize", finalize)


def _with_llvmlite_texts(library):
    """``library``'s NVVM IR and PTX (9.0) made again from the texts llvmlite printed: every
    library of the program gets those texts and loses what it cached from its own."""
    saved = []
    for lib in library.all_libraries():
        saved.append((lib, lib._texts, lib._defined, lib._relink_cache, lib._ir_modules,
                      lib._ptx_cache))
        lib._texts = getattr(lib, "_llvmlite_texts", lib._texts)
        lib._defined, lib._relink_cache, lib._ir_modules, lib._ptx_cache = None, {}, None, {}
    try:
        return library.get_llvm_str(), library.get_ptx((9, 0))
    finally:
        for lib, *state in saved:
            (lib._texts, lib._defined, lib._relink_cache, lib._ir_modules,
             lib._ptx_cache) = state


@pytest.mark.parametrize("options", ["plain", "lineinfo", "debug"])
@pytest.mark.parametrize("entry", CORPUS, ids=[entry[0] for entry in CORPUS])
def test_nvvm_ir_and_ptx_are_those_of_llvmlites_printer(shadowed, entry, options):
    name, fn, sig, device = entry
    library = _library(fn, sig, device, OPTION_SETS[options])
    ours = library.get_llvm_str(), library.get_ptx((9, 0))
    theirs = _with_llvmlite_texts(library)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert any(hasattr(lib, "_llvmlite_texts") for lib in library.all_libraries())


def test_finalize_prints_with_module_text(monkeypatch):
    """The library's text comes from ``module_text`` (not ``str(module)``)."""
    calls = []

    def recording(module):
        calls.append(module.name)
        return str(module)

    monkeypatch.setattr(ir_printer, "module_text", recording)
    library = codelibrary.CUDACodegen("test").create_library("lib")
    module = library.create_ir_module("printed")
    library.add_ir_module(module)
    library.finalize()
    assert calls == ["printed"]


def test_known_instructions_are_not_printed_through_llvmlite(monkeypatch):
    """The fast path is taken: llvmlite's ``descr`` of the instruction kinds it handles is
    never called."""
    module = _every_instruction_module()
    expected = str(_every_instruction_module())
    for cls in ir_printer._DESCRIBE:
        def refuse(self, buf, cls=cls):
            raise AssertionError(f"{cls.__name__}.descr called")

        monkeypatch.setattr(cls, "descr", refuse)

    def refuse_prototype(self, buf):
        raise AssertionError("Function.descr_prototype called")

    monkeypatch.setattr(ir.Function, "descr_prototype", refuse_prototype)
    for cls in (ir.values.MDValue, ir.values.DIValue):
        monkeypatch.setattr(cls, "descr", refuse)
    assert ir_printer.module_text(module) == expected


# ---- hand-built modules ---------------------------------------------------------------------
i1, i8, i32, i64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
f32, f64 = ir.FloatType(), ir.DoubleType()


def _every_instruction_module(name="every"):
    """A module with every instruction kind ``llvmlite.ir.IRBuilder`` makes, each with and
    without metadata, and the options each one prints (flags, alignment, attributes ...)."""
    # (its own context: an identified type made in llvmlite's global one would be printed in
    # every module printed after it)
    module = ir.Module(name, context=ir.context.Context())
    module.triple = "nvptx64-nvidia-cuda"
    struct = ir.LiteralStructType([i32, f64, ir.ArrayType(i8, 3)])
    vec = ir.VectorType(f32, 4)
    callee = ir.Function(module, ir.FunctionType(i32, [i32, i8.as_pointer()]), "callee")
    callee.args[1].add_attribute("noalias")
    varargs = ir.Function(module, ir.FunctionType(i32, [i32], var_arg=True), "printf_like")
    void_fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), 'odd"name\\here')
    personality = ir.Function(module, ir.FunctionType(i32, [], var_arg=True), "personality")
    fast = ir.Function(module, ir.FunctionType(i8.as_pointer(), [i32, i8.as_pointer()]),
                       "fast.callee")
    fast.calling_convention = "fastcc"
    fast.linkage = "linkonce_odr"
    fast.return_value.add_attribute("noalias")
    fast.args[1].attributes.dereferenceable_or_null = 8
    fast.args[0].add_attribute("zeroext")
    fast.attributes.add("alwaysinline")
    fast.attributes.alignstack = 16
    ir.IRBuilder(fast.append_basic_block()).ret(fast.args[1])
    gv = ir.GlobalVariable(module, i32, "counter")
    gv.initializer = i32(7)
    gv.align = 4
    const_gv = ir.GlobalVariable(module, ir.ArrayType(i8, 4), "text", addrspace=4)
    const_gv.global_constant = True
    const_gv.linkage = "internal"
    const_gv.initializer = ir.Constant(ir.ArrayType(i8, 4), bytearray(b'a"\\\x00'))
    ir.GlobalVariable(module, i64, "declared")

    fnty = ir.FunctionType(i32, [i32, i64, f32, f64, struct.as_pointer(), vec, i1])
    fn = ir.Function(module, fnty, "everything")
    fn.attributes.add("noinline")
    fn.attributes.personality = personality
    a, b, x, y, sp, v, flag = fn.args
    a.name, b.name = "a", 'quoted"arg'
    sp.add_attribute("noalias")
    sp.attributes.align = 8
    sp.attributes.dereferenceable = 16
    fn.calling_convention = ""

    di_file = module.add_debug_info("DIFile", {"filename": "k.py", "directory": "/tmp"})
    di_cu = module.add_debug_info("DICompileUnit", {
        "language": ir.DIToken("DW_LANG_Python"), "file": di_file, "producer": "test",
        "runtimeVersion": 0, "isOptimized": True, "emissionKind": 1}, is_distinct=True)
    di_sub = module.add_debug_info("DISubprogram", {
        "name": "everything", "file": di_file, "line": 1, "unit": di_cu, "isDefinition": True},
        is_distinct=True)
    fn.set_metadata("dbg", di_sub)
    loc = module.add_debug_info("DILocation", {"line": 2, "column": 1, "scope": di_sub})
    module.add_debug_info("DIBasicType", {"name": 'odd "type"\\', "size": 32,
                                          "encoding": ir.DIToken("DW_ATE_signed"),
                                          "flag": False, "other": None, "value": i32(4),
                                          "list": [i32(1), None, "x"]})
    module.add_metadata([None, i32(3), ir.MetaDataString(module, 'q"uote'), f32(1.5),
                         callee, [i32(9)]])
    plain_md = module.add_metadata([i32(1), ir.MetaDataString(module, "note")])
    module.add_named_metadata("named").add(plain_md)

    entry = fn.append_basic_block("entry")
    other = fn.append_basic_block('odd block"name')
    loop = fn.append_basic_block("loop.header")
    cases = fn.append_basic_block("")
    unwind = fn.append_basic_block("unwind")
    done = fn.append_basic_block("done")
    jump = fn.append_basic_block("jump")
    builder = ir.IRBuilder(entry)
    made = []

    def keep(value, with_metadata):
        if with_metadata and hasattr(value, "set_metadata"):
            value.set_metadata("dbg", loc)
            value.set_metadata("custom", plain_md)
        made.append(value)
        return value

    for md in (False, True):
        keep(builder.add(a, a, name="sum"), md)
        keep(builder.add(a, i32(1), flags=["nsw", "nuw"]), md)
        keep(builder.sub(a, a), md)
        keep(builder.mul(b, b), md)
        keep(builder.sdiv(a, a), md)
        keep(builder.udiv(a, a), md)
        keep(builder.srem(a, a), md)
        keep(builder.urem(a, a), md)
        keep(builder.shl(a, a), md)
        keep(builder.lshr(a, a), md)
        keep(builder.ashr(a, a), md)
        keep(builder.and_(a, a), md)
        keep(builder.or_(a, a), md)
        keep(builder.xor(a, a), md)
        keep(builder.not_(a), md)
        keep(builder.neg(a), md)
        keep(builder.fadd(x, x, flags=("fast",)), md)
        keep(builder.fsub(y, y), md)
        keep(builder.fmul(y, y, flags=("nnan", "ninf")), md)
        keep(builder.fdiv(y, y), md)
        keep(builder.frem(y, y), md)
        keep(builder.fneg(y), md)
        keep(builder.icmp_signed("<", a, a), md)
        keep(builder.icmp_unsigned(">=", b, b), md)
        keep(builder.fcmp_ordered("==", x, x, flags=("nnan",)), md)
        keep(builder.fcmp_unordered("!=", y, y), md)
        keep(builder.select(flag, a, a), md)
        keep(builder.select(flag, x, x, flags=("fast",)), md)
        keep(builder.trunc(b, i32), md)
        keep(builder.zext(a, i64), md)
        keep(builder.sext(a, i64), md)
        keep(builder.fptrunc(y, f32), md)
        keep(builder.fpext(x, f64), md)
        keep(builder.fptosi(x, i32), md)
        keep(builder.fptoui(x, i32), md)
        keep(builder.sitofp(a, f64), md)
        keep(builder.uitofp(a, f64), md)
        keep(builder.ptrtoint(sp, i64), md)
        keep(builder.inttoptr(b, i8.as_pointer()), md)
        keep(builder.bitcast(sp, i8.as_pointer()), md)
        keep(builder.addrspacecast(sp, struct.as_pointer(1)), md)
        slot = keep(builder.alloca(i32, name="slot"), md)
        keep(builder.alloca(f64, size=i32(4)), md)
        aligned = keep(builder.alloca(struct), md)
        aligned.align = 16
        keep(builder.load(slot), md)
        keep(builder.load(slot, align=4), md)
        keep(builder.store(a, slot), md)
        keep(builder.store(a, slot, align=4), md)
        keep(builder.load_atomic(slot, "acquire", 4), md)
        keep(builder.store_atomic(a, slot, "release", 4), md)
        keep(builder.gep(sp, [i32(0), i32(1)], inbounds=True), md)
        keep(builder.gep(sp, [b]), md)
        agg = keep(builder.load(sp), md)
        keep(builder.extract_value(agg, 0), md)
        keep(builder.extract_value(agg, [2, 1]), md)
        keep(builder.insert_value(agg, a, 0), md)
        keep(builder.insert_value(agg, i8(3), [2, 0]), md)
        keep(builder.extract_element(v, i32(1)), md)
        keep(builder.insert_element(v, x, i32(2)), md)
        keep(builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, 2), [0, 5])), md)
        keep(builder.call(callee, [a, ir.Constant(i8.as_pointer(), None)]), md)
        keep(builder.call(callee, [a, ir.Constant(i8.as_pointer(), None)], tail=True,
                          cconv="fastcc", attrs=("nounwind",), arg_attrs={1: ("noalias",)}), md)
        keep(builder.call(callee, [a, ir.Constant(i8.as_pointer(), None)], tail="musttail",
                          fastmath=("fast",)), md)
        keep(builder.call(varargs, [a, y, b]), md)
        keep(builder.call(void_fn, []), md)
        asm = ir.InlineAsm(ir.FunctionType(i32, [i32]), "mov.u32 $0, $1;", "=r,r",
                           side_effect=True)
        keep(builder.call(asm, [a]), md)
        keep(builder.atomic_rmw("add", slot, a, "monotonic"), md)
        keep(builder.cmpxchg(slot, a, a, "acq_rel", "monotonic"), md)
        keep(builder.fence("seq_cst"), md)
        keep(builder.fence("acquire", "agent"), md)
        keep(builder.comment("a comment"), md)
        keep(builder.assume(flag), md)
        keep(builder.ctpop(a), md)
        keep(builder.fma(x, x, x), md)
        keep(builder.bswap(a), md)
        keep(builder.ctlz(a, ir.Constant(i1, 0)), md)
        keep(builder.uadd_with_overflow(a, a), md)
        keep(builder.add(i32(5), ir.Constant(i32, ir.Undefined)), md)
        keep(builder.fadd(f64(1.5), f64(float("inf"))), md)
        keep(builder.fadd(f32(0.1), f32(-0.0)), md)
        keep(builder.add(i64(-3), i64(1 << 40)), md)
        keep(builder.and_(i1(True), i1(False)), md)
        keep(builder.ptrtoint(gv, i64), md)
        keep(builder.ptrtoint(gv.bitcast(i8.as_pointer()).gep([i32(1)]), i64), md)
        keep(builder.insert_value(ir.Constant(struct, [i32(1), f64(2.0), ir.Constant(
            ir.ArrayType(i8, 3), [i8(1), i8(2), i8(3)])]), a, 0), md)
        keep(builder.insert_value(ir.Constant(struct, None), a, 0), md)
    builder.cbranch(flag, other, loop)

    builder.position_at_end(other)
    keep(builder.call(callee, [a, ir.Constant(i8.as_pointer(), None)]), True)
    keep(builder.branch(loop), True)

    builder.position_at_end(loop)
    phi = builder.phi(i32, name="p")
    phi.add_incoming(a, entry)
    phi.add_incoming(i32(0), other)
    fphi = builder.phi(f32, flags=("fast",))
    fphi.add_incoming(x, entry)
    fphi.add_incoming(f32(1.0), other)
    fphi.set_metadata("dbg", loc)
    cond = builder.cbranch(flag, cases, done)
    cond.set_weights([3, 5])
    cond.set_metadata("dbg", loc)

    builder.position_at_end(cases)
    switch = builder.switch(a, done)
    switch.add_case(1, other)
    switch.add_case(i32(2), loop)
    switch.set_metadata("dbg", loc)

    builder.position_at_end(unwind)
    pad = builder.landingpad(ir.LiteralStructType([i8.as_pointer(), i32]), cleanup=True)
    pad.add_clause(ir.CatchClause(ir.Constant(i8.as_pointer(), None)))
    # (IRBuilder.resume makes a Branch named "resume"; the Resume class is built directly)
    builder._set_terminator(ir.instructions.Resume(builder.block, "resume", [pad]))

    builder.position_at_end(done)
    builder.invoke(callee, [a, ir.Constant(i8.as_pointer(), None)], jump, unwind)

    builder.position_at_end(jump)
    indirect = builder.branch_indirect(ir.BlockAddress(fn, other))
    indirect.add_destination(other)
    indirect.add_destination(loop)

    sink = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32]), "sink")
    sink.linkage = "internal"
    sink.section = ".text.sink"
    b2 = ir.IRBuilder(sink.append_basic_block("body"))
    b2.unreachable()
    returns = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "returns")
    b3 = ir.IRBuilder(returns.append_basic_block())
    b3.ret_void()
    ret_md = ir.Function(module, ir.FunctionType(i32, []), "ret_md")
    b4 = ir.IRBuilder(ret_md.append_basic_block())
    b4.ret(i32(3)).set_metadata("dbg", loc)
    identified = module.context.get_identified_type("printer.test.opaque")
    ir.GlobalVariable(module, identified.as_pointer(), "opaque_ptr")
    return module


def test_every_instruction_kind_prints_as_llvmlite_prints_it():
    ours = ir_printer.module_text(_every_instruction_module("every1"))
    theirs = str(_every_instruction_module("every1"))
    assert ours == theirs
    # and printing llvmlite's way second, on the very same objects
    module = _every_instruction_module("every2")
    assert ir_printer.module_text(module) == str(module)


def test_builder_methods_are_covered():
    """Each instruction class llvmlite defines is built by ``_every_instruction_module`` (a
    new llvmlite class is then either added there or printed by llvmlite)."""
    import inspect

    module = _every_instruction_module("coverage")
    built = {type(instr) for fn in module.functions for block in fn.blocks
             for instr in block.instructions}
    classes = {cls for _name, cls in inspect.getmembers(ir.instructions, inspect.isclass)
               if issubclass(cls, ir.instructions.Instruction)}
    abstract = {ir.instructions.Terminator, ir.instructions.PredictableInstr,
                ir.instructions.CompareInstr}
    assert classes - abstract - built == set()
    assert set(ir_printer._DESCRIBE) <= built


def test_strings_llvmlite_cached_are_printed_as_cached():
    """llvmlite prints an instruction's cached string even when the instruction changed since
    it was computed; so does ``module_text``."""
    module = ir.Module("cached")
    fn = ir.Function(module, ir.FunctionType(i32, [i32]), "f")
    builder = ir.IRBuilder(fn.append_basic_block())
    added = builder.add(fn.args[0], i32(1))
    stored = builder.alloca(i32)
    builder.store(added, stored)
    builder.ret(added)
    str(added)
    added.set_metadata("custom", module.add_metadata([i32(1)]))  # not in the cached string
    assert "custom" not in str(module)
    assert ir_printer.module_text(module) == str(module)


def test_instructions_changed_before_printing():
    """Operand replacement, renaming and metadata added after building (nothing cached)."""
    module = ir.Module("changed")
    fn = ir.Function(module, ir.FunctionType(i32, [i32, i32]), "f")
    builder = ir.IRBuilder(fn.append_basic_block("start"))
    first = builder.add(fn.args[0], fn.args[1], name="first")
    second = builder.mul(first, first, name="second")
    builder.ret(second)
    replacement = ir.Constant(i32, 9)
    second.replace_usage(first, replacement)
    fn.args[0].name = "renamed"
    second.set_metadata("late", module.add_metadata([i32(2)]))
    assert ir_printer.module_text(module) == str(module)


def test_subclasses_are_printed_by_llvmlite():
    class Module(ir.Module):
        def __repr__(self):
            return "custom module text"

    assert ir_printer.module_text(Module("m")) == "custom module text"

    class Function(ir.Function):
        def __str__(self):
            return "custom function text"

    class Add(ir.instructions.Instruction):
        def descr(self, buf):
            buf.append("custom instruction\n")

    module = ir.Module("subclasses")
    Function(module, ir.FunctionType(i32, []), "f")
    g = ir.Function(module, ir.FunctionType(i32, []), "g")
    block = g.append_basic_block()
    builder = ir.IRBuilder(block)
    custom = Add(block, i32, "add", [i32(1), i32(2)])
    builder._insert(custom)
    builder.ret(custom)
    text = ir_printer.module_text(module)
    assert text == str(module)
    assert "custom function text" in text and "custom instruction" in text


def test_references_and_types_llvmlite_cached_are_used_as_cached():
    """A reference llvmlite cached before a rename is what llvmlite prints (the old name);
    so does ``module_text``.  References and types it has not cached are computed as it would."""
    module = ir.Module("stale")
    ptr = i8.as_pointer()
    fn = ir.Function(module, ir.FunctionType(i32, [i32, ptr]), "f")
    builder = ir.IRBuilder(fn.append_basic_block("b"))
    first = builder.add(fn.args[0], i32(1), name="first")
    builder.store(i8(0), fn.args[1])
    builder.ret(builder.mul(first, i32(-2)))
    first.get_reference()
    first.name = "renamed"
    fn.args[0].get_reference()
    fn.args[0].name = "arg0"
    expected = str(module)
    assert '%"first"' in expected and "renamed" not in expected and "arg0" not in expected
    assert ir_printer.module_text(module) == expected
    fresh_ptr = i8.as_pointer()
    assert ir_printer._type_text(fresh_ptr) == str(i8.as_pointer()) == "i8*"
    for value in (i32(5), ir.Constant(i1, True), ir.Constant(ptr, None), ir.Constant(i32, None),
                  f64(0.1), ir.Constant(i32, ir.Undefined), first, fn, fn.args[1]):
        assert ir_printer._reference(value) == value.get_reference()


def test_debug_info_with_an_operand_llvmlite_refuses():
    module = ir.Module("bad")
    module.add_debug_info("DIBasicType", {"name": "x", "bad": 1.5})
    with pytest.raises(TypeError) as theirs:
        str(module)
    with pytest.raises(TypeError) as ours:
        ir_printer.module_text(module)
    assert str(ours.value) == str(theirs.value)

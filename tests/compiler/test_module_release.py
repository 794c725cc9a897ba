"""A code library empties the ``llvmlite.ir`` modules it owns once it has printed them
(``codelibrary.release_module``): their objects are freed by reference counting at once, not
left to the cyclic garbage collector; modules it does not own are left alone.  (That the text
is the same is checked on the whole corpus by ``test_ir_printer``.)"""

import gc
import weakref

from llvmlite import ir

from numba_cuda.compiler import codelibrary

i32 = ir.IntType(32)


def _loop_function(module):
    """A function whose control flow loops (a reference cycle through its branches) and whose
    values carry metadata (cycles through the module)."""
    fn = ir.Function(module, ir.FunctionType(i32, [i32]), "looping")
    entry, loop, done = (fn.append_basic_block(name) for name in ("entry", "loop", "done"))
    builder = ir.IRBuilder(entry)
    builder.branch(loop)
    builder.position_at_end(loop)
    counter = builder.phi(i32, name="i")
    step = builder.add(counter, i32(1), name="next")
    step.set_metadata("note", module.add_metadata([i32(1)]))
    counter.add_incoming(fn.args[0], entry)
    counter.add_incoming(step, loop)
    builder.cbranch(builder.icmp_signed("<", step, i32(10)), loop, done)
    builder.position_at_end(done)
    builder.ret(step)
    gv = ir.GlobalVariable(module, i32, "g")
    gv.initializer = i32(0)
    module.add_named_metadata("named").add(module.add_metadata([i32(2)]))
    return fn


def _library():
    return codelibrary.CUDACodegen("test").create_library("lib")


def test_owned_module_is_freed_without_the_collector():
    enabled = gc.isenabled()
    gc.disable()
    try:
        library = _library()
        module = library.create_ir_module("owned")
        fn = _loop_function(module)
        library.add_ir_module(module)  # (as Numba's lowering does with the module it made)
        watched = [weakref.ref(obj) for obj in (module, fn, fn.blocks[1], fn.args[0],
                                                fn.blocks[1].instructions[1])]
        expected = str(module)
        del fn, module
        library.finalize()
        assert all(ref() is None for ref in watched)
        assert library._texts[0][1].startswith(expected)
    finally:
        if enabled:
            gc.enable()


def test_module_added_as_owned_is_emptied():
    library = _library()
    module = ir.Module("given")
    _loop_function(module)
    library.add_ir_module(module, owned=True)
    library.finalize()
    assert not module.globals and not module.metadata and not module.namedmetadata


def test_module_not_owned_is_left_alone():
    library = _library()
    module = ir.Module("not owned")
    fn = _loop_function(module)
    text = str(module)
    library.add_ir_module(module)
    library.finalize()
    assert str(module) == text
    assert fn.blocks and fn.blocks[1].instructions and fn.args[0].parent is fn


def test_released_module_objects_keep_their_attributes():
    module = ir.Module("released")
    fn = _loop_function(module)
    block = fn.blocks[1]
    step = block.instructions[1]
    codelibrary.release_module(module)
    assert not fn.blocks and not block.instructions
    assert (step.opname, step.name, step.parent) == ("add", "next", block)

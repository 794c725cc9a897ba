"""archselect: libNVVM answers __nvvm_reflect("__CUDA_ARCH") with the compiled-for compute
capability on both of its IR readers, and only the chosen branch reaches the PTX."""

import pytest
from llvmlite import ir

from numba_cuda.compiler import nvvm, nvvmir
from numba_cuda.lang import archselect

from tests.support.ptx_helpers import assemble


def _module(body):
    module = nvvmir.new_module("reflect")
    nvvmir.add_ir_version(module)
    i32 = ir.IntType(32)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32.as_pointer()]), "k")
    builder = ir.IRBuilder(fn.append_basic_block())
    builder.store(body(builder), fn.args[0])
    builder.ret_void()
    nvvmir.mark_kernel(module, fn)
    return str(module)


@pytest.mark.parametrize("opt", ["-opt=3", "-opt=0"])
def test_reflect_gives_the_compiled_for_cc(ccs, opt):
    text = _module(archselect.cuda_arch)
    for cc in ccs:
        ptx = nvvm.compile_ir([("m", text)], f"compute_{cc[0]}{cc[1]}", [opt], libdevice=False)
        assert str(cc[0] * 100 + cc[1] * 10) in ptx, (cc, ptx)


@pytest.mark.parametrize("opt", ["-opt=3", "-opt=0"])
def test_only_the_selected_branch_survives(ccs, opt):
    i32 = ir.IntType(32)

    def body(builder):
        return archselect.select_by_arch(
            builder, i32,
            [((9, 0), lambda b: ir.Constant(i32, 0x900900)), ((8, 0), lambda b: ir.Constant(i32, 0x800800))],
            lambda b: ir.Constant(i32, 0x123123))

    text = _module(body)
    for cc in ccs:
        ptx = nvvm.compile_ir([("m", text)], f"compute_{cc[0]}{cc[1]}", [opt], libdevice=False)
        assemble(ptx, cc)
        expected = 0x900900 if cc >= (9, 0) else 0x800800 if cc >= (8, 0) else 0x123123
        others = {0x900900, 0x800800, 0x123123} - {expected}
        assert str(expected) in ptx, (cc, opt)
        assert not any(str(v) in ptx for v in others), (cc, opt)

"""numba.cuda.cudadrv.nvvm: the names of Numba's module that code (and Numba's suite) uses."""

from llvmlite import binding as llvm
from llvmlite import ir

from numba_cuda.cudadrv import nvvm


def test_is_available_with_the_wheel_toolkit():
    assert nvvm.is_available() is True


def test_numba_form_of_compile_ir_returns_ptx_bytes():
    c = ir.Constant(ir.ArrayType(ir.IntType(8), 4), bytearray(b"abcd"))
    m = ir.Module()
    m.triple = "nvptx64-nvidia-cuda"
    nvvm.add_ir_version(m)
    gv = ir.GlobalVariable(m, c.type, "myconstant")
    gv.global_constant = True
    gv.initializer = c
    m.data_layout = nvvm.NVVM().data_layout
    ptx = nvvm.compile_ir(str(llvm.parse_assembly(str(m))))
    assert isinstance(ptx, bytes)
    assert b"myconstant[4] = {97, 98, 99, 100}" in ptx


def test_nvvm_object_reports_versions():
    assert nvvm.NVVM().get_ir_version() == nvvm.ir_version()
    assert nvvm.NVVM().get_version() == nvvm.version()

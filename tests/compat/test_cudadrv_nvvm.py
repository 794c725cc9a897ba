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


def test_descriptor_alias_is_the_compilers_target():
    from numba_cuda import descriptor
    from numba_cuda.compiler.target import cuda_target

    assert descriptor.cuda_target is cuda_target


def test_devicearray_layout_helpers_on_both_targets():
    import numpy as np

    from numba_cuda import strided
    from numba_cuda.cudadrv import devicearray
    from numba_cuda.simulator.cudadrv import devicearray as sim_devicearray

    assert devicearray.is_contiguous is strided.is_contiguous
    assert sim_devicearray.array_core is strided.array_core
    broadcast = np.broadcast_to(np.arange(3.0), (4, 3))
    assert strided.is_contiguous(broadcast)
    assert strided.array_core(broadcast).shape == (3,)
    assert not strided.is_contiguous(np.zeros((3, 4))[:, ::2])
    assert strided.is_contiguous(np.zeros((3, 1, 4))[:, :, :])
    assert not strided.is_contiguous(np.zeros((3, 4), order="F"))


def test_compile_entry_points_importable_from_numba_cuda_compiler():
    # Numba's module path (``from numba.cuda.compiler import compile_ptx``)
    import numba_cuda.compiler as compiler
    from numba_cuda.compiler import api

    for name in ("compile", "compile_ptx", "compile_ptx_for_current_device",
                 "compile_for_current_device", "declare_device"):
        assert getattr(compiler, name) is getattr(api, name)
    import pytest

    with pytest.raises(AttributeError):
        compiler.no_such_name  # noqa: B018

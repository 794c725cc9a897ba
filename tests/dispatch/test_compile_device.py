"""``dispatcher.compile_device(args, return_type=None)``: Numba's and NVIDIA's method (both
suites' ``test_device_func`` call it), here without a GPU."""

import pytest
from numba import cuda, types

CC = (9, 0)


def test_device_function_compiles_once_and_names_the_function():
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y

    args = (types.int32, types.int32)
    cres = foo.compile_device(args)
    assert cres is foo.compile_device(args)  # once per signature
    assert cres.signature.return_type == types.int64
    assert "foo" in cres.fndesc.mangled_name
    assert cres.fndesc.mangled_name in foo.inspect_llvm(args)

    # the device function's PTX holds it (exported: its own library's linkonce_odr code would
    # give an empty module)
    ptx = foo.inspect_asm(args, cc=CC)
    assert f".visible .func  (.param .b32 func_retval0) {cres.fndesc.mangled_name}(" in ptx
    assert foo.inspect_asm(cc=CC) == {args: ptx}


def test_return_type_casts_the_result():
    @cuda.jit(device=True)
    def half(x):
        return x / 2

    cres = half.compile_device((types.int32,), types.float32)
    assert cres.signature == types.float32(types.int32)


def test_a_kernel_compiles_through_its_device_function_twin():
    @cuda.jit
    def kernel(x):
        x[0] = 1

    cres = kernel.compile_device((types.int32[::1],))
    assert cres.signature.return_type == types.none
    assert kernel.as_device_function().overloads[(types.int32[::1],)] is cres
    assert not kernel.overloads  # the kernel itself has compiled nothing


def test_types_the_compiler_refuses_are_its_error():
    @cuda.jit(device=True)
    def foo(x):
        return x.nonexistent

    with pytest.raises(Exception, match="nonexistent"):
        foo.compile_device((types.int32,))

"""NVIDIA's ``numba.cuda.compiler._compile_pyfunc_with_fixup``, as cuda.cccl's ``cuda.compute``
uses it for operators: ``(library, return_type)``, then the library's NVVM IR
(``get_llvm_str()``, split at ``; ModuleID``), PTX (``get_asm_strs``), LTO-IR (``get_ltoir``) and
files to link (``_linking_files``)."""

import pytest
from numba import cuda, types
from numba.cuda import compiler

CC = (9, 0)


def add(a, b):
    return a + b


def test_device_function_in_the_c_abi_matches_cuda_compile():
    lib, resty = compiler._compile_pyfunc_with_fixup(add, (types.int8, types.int8), abi="c",
                                                     device=True, cc=CC)
    assert resty == types.int64
    modules = ["; ModuleID" + part for part in lib.get_llvm_str().split("; ModuleID")[1:]]
    assert modules and all("target triple" in text for text in modules)
    assert any('define i64 @"add"(' in text or "define i64 @add(" in text for text in modules)
    ptx = lib.get_asm_strs(cc=CC)
    assert isinstance(ptx, list) and len(ptx) == 1
    assert ptx[0] == cuda.compile(add, (types.int8, types.int8), abi="c", device=True, cc=CC)[0]
    assert ".visible .func  (.param .b64 func_retval0) add(" in ptx[0]
    assert lib.get_ltoir(cc=CC)[:4].hex() == "ed434e7f"  # LTO-IR (0x7F4E43ED, little-endian)


def test_abi_name_and_lto_flag():
    sig = (types.float32, types.float32)
    lib, _ = compiler._compile_pyfunc_with_fixup(add, sig, abi="c", abi_info={"abi_name": "my_op"},
                                                 lto=True, cc=CC)
    ptx = lib.get_asm_strs(cc=CC)[0]
    assert ptx == cuda.compile(add, sig, abi="c", abi_info={"abi_name": "my_op"}, cc=CC)[0]
    assert " my_op(" in ptx
    assert lib.get_ltoir(cc=CC)[:4].hex() == "ed434e7f"


def test_kernel_with_launch_bounds():
    def kernel(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    sig = (types.float32[::1],)
    lib, resty = compiler._compile_pyfunc_with_fixup(kernel, sig, device=False, abi="numba",
                                                     launch_bounds=128, cc=CC)
    assert resty == types.void
    ptx = lib.get_asm_strs(cc=CC)[0]
    assert ".entry" in ptx and ".maxntid 128" in ptx


def test_link_files_are_the_librarys_and_read_only(tmp_path):
    source = tmp_path / "ext.cu"
    source.write_text('extern "C" __device__ int ext(int *r, int x) { *r = x; return 0; }\n')
    ext = cuda.declare_device("ext", "int32(int32)", link=str(source))

    def calls(x):
        return ext(x) + 1

    lib, _ = compiler._compile_pyfunc_with_fixup(calls, (types.int32,), abi="c", cc=CC)
    assert lib._linking_files == {str(source)}
    with pytest.raises(AttributeError):
        lib._linking_files.add("other.cu")  # adding goes through add_linking_file


@pytest.mark.parametrize("kwargs, error, words", [
    ({"abi": "fortran"}, NotImplementedError, "Unsupported ABI"),
    ({"abi": "c", "device": False}, NotImplementedError, "C ABI is not supported for kernels"),
    ({"abi": "numba", "device": False, "forceinline": True}, ValueError, "force-inline kernels"),
])
def test_refusals_as_nvidias(kwargs, error, words):
    with pytest.raises(error, match=words):
        compiler._compile_pyfunc_with_fixup(add, (types.int32, types.int32), cc=CC, **kwargs)

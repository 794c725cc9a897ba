"""cuda.declare_device(..., abi=, use_cooperative=): the call's shape in the PTX, per ABI."""

import re

import pytest
from numba import float32, int32, types, void

from tests.support.ptx_helpers import assemble

CC = (8, 0)


def _call(ptx, name):
    """The call sequence of ``name`` in ``ptx``: (how the return value is read, e.g.
    ``"ld.param.f32"``, or None; the number of arguments passed)."""
    blocks = re.findall(r"\{ // callseq.*?\} // callseq", ptx, re.S)
    (block,) = [b for b in blocks if re.search(r"call\.uni[^;]*\b" + name + r"\b", b, re.S)]
    nargs = len(re.findall(r"\.param \.\w+ param\d+;", block))
    read = re.search(r"(ld\.param\.\w+)\s+[^,]+,\s*\[retval0", block)
    return (read.group(1) if read else None), nargs


def _extern_decl(ptx, name):
    match = re.search(r"\.extern\s+\.func\s*(\([^)]*\))?\s*" + name + r"\s*\(([^)]*)\)", ptx, re.S)
    assert match, f"no .extern declaration of {name} in:\n{ptx}"
    return match.group(1), match.group(2)


def test_numba_abi_passes_a_return_pointer_and_returns_a_status(cuda):
    ext = cuda.declare_device("ext_numba", "float32(float32, int32)")

    def k(a, n):
        a[0] = ext(a[0], n)

    ptx, _ = cuda.compile_ptx(k, (float32[::1], int32), cc=CC)
    ret, nargs = _call(ptx, "ext_numba")
    assert ret == "ld.param.b32" and nargs == 3  # status = ext(&result, x, n)
    ret_decl, params = _extern_decl(ptx, "ext_numba")
    assert ".b32" in ret_decl  # the int32 status
    assert ".b64" in params.split(",")[0]  # the result pointer first
    assemble(ptx, CC, compile_only=True)


def test_c_abi_passes_the_arguments_and_returns_the_value(cuda):
    ext = cuda.declare_device("ext_c", "float32(float32, int32)", abi="c")

    def k(a, n):
        a[0] = ext(a[0], n)

    ptx, _ = cuda.compile_ptx(k, (float32[::1], int32), cc=CC)
    ret, nargs = _call(ptx, "ext_c")
    assert ret == "ld.param.f32" and nargs == 2  # result = ext(x, n): the float itself
    ret_decl, params = _extern_decl(ptx, "ext_c")
    assert ".b32" in ret_decl
    assert [p.split()[1] for p in params.split(",")] == [".b32", ".b32"]  # no result pointer
    assemble(ptx, CC, compile_only=True)


def test_c_abi_void_function_returns_nothing(cuda):
    ext = cuda.declare_device("ext_void", void(types.CPointer(float32), int32), abi="c")

    def f(p):
        ext(p, 1)

    ptx, _ = cuda.compile_ptx(f, (types.CPointer(float32),), device=True, cc=CC)
    ret, nargs = _call(ptx, "ext_void")
    assert ret is None and nargs == 2
    ret_decl, params = _extern_decl(ptx, "ext_void")
    assert ret_decl is None and ".b64" in params.split(",")[0]
    assemble(ptx, CC, compile_only=True)


def test_declare_device_returns_an_extern_function(cuda):
    from numba.cuda.compiler import ExternFunction

    ext = cuda.declare_device("ext_x", "int32(int32)", abi="c", use_cooperative=True)
    assert isinstance(ext, ExternFunction)
    assert (ext.name, ext.abi, ext.use_cooperative) == ("ext_x", "c", True)
    assert ext.sig == int32(int32)


def test_an_unknown_abi_is_refused(cuda):
    with pytest.raises(NotImplementedError, match="Unsupported ABI: 'fortran'.*'numba' or 'c'"):
        cuda.declare_device("ext_f", "int32(int32)", abi="fortran")


def test_use_cooperative_makes_the_kernel_cooperative(cuda):
    plain = cuda.declare_device("ext_plain", "int32(int32)")
    coop = cuda.declare_device("ext_coop", "int32(int32)", use_cooperative=True)

    def uses_plain(a):
        a[0] = plain(a[0])

    def uses_coop(a):
        a[0] = coop(a[0])

    sig = (int32[::1],)
    assert cuda.jit(sig)(uses_plain).overloads[sig].cooperative is False
    assert cuda.jit(sig)(uses_coop).overloads[sig].cooperative is True


def test_raising_in_a_c_abi_device_function_is_refused(cuda):
    from numba.core.errors import UnsupportedError

    from numba_cuda.compiler.callconv import CUDACABICallConv

    with pytest.raises(UnsupportedError, match="no status to carry an exception"):
        CUDACABICallConv(None).return_user_exc(None, ValueError)

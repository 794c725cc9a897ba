"""cffi's ffi.from_buffer(array) in kernels: the array's data pointer, typed CPointer(dtype)."""

import re

import pytest
from numba import float32, float64, int32, types

from tests.support.ptx_helpers import assemble
from tests.support.subprocesses import run_python

cffi = pytest.importorskip("cffi", reason="cffi is in the test extra")
CC = (8, 0)
ffi = cffi.FFI()


def test_from_buffer_passes_the_data_pointer(cuda):
    takes_ptr = cuda.declare_device("takes_ptr", int32(types.CPointer(float32)), abi="c")

    def k(a):
        takes_ptr(ffi.from_buffer(a))

    ptx, _ = cuda.compile_ptx(k, (float32[::1],), cc=CC)
    # an array argument is (meminfo, parent, nitems, itemsize, data, shape, strides): the
    # pointer passed is the data member, the kernel's 5th parameter
    data_param = re.search(r"ld\.param\.u64\s+(%rd\d+),\s*\[\w+_param_4\]", ptx)
    assert data_param, ptx
    call = re.search(r"st\.param\.b64\s+\[param0\+0\],\s*(%rd\d+);[^}]*call\.uni[^;]*takes_ptr",
                     ptx, re.S)
    assert call and call.group(1) == data_param.group(1), ptx
    assemble(ptx, CC, compile_only=True)


def test_the_pointer_has_the_array_dtype(cuda):
    def f(a):
        return ffi.from_buffer(a)

    for dtype in (float32, float64, int32):
        _, resty = cuda.compile_ptx(f, (dtype[:, ::1],), device=True, cc=CC)
        assert resty == types.CPointer(dtype)


def test_a_non_contiguous_array_is_refused(cuda):
    from numba.core.errors import TypingError

    def f(a):
        return ffi.from_buffer(a)

    with pytest.raises(TypingError, match="non-contiguous"):
        cuda.compile_ptx(f, (float32[::2],), device=True, cc=CC)


def test_a_process_without_cffi_does_not_install_it():
    code = ("import sys\nfrom numba import cuda, float32\n"
            "cuda.compile_ptx(lambda a: None, (float32[::1],), cc=(8, 0))\n"
            "assert 'cffi' not in sys.modules, 'cffi imported'\n"
            "assert 'numba_cuda.lang.cffi_buffers' not in sys.modules, 'family installed'\n")
    proc = run_python(code, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_importing_cffi_keeps_numbas_array_modules_deferred():
    # a process that imported cffi (many libraries do) compiles a kernel without ffi as any
    # other: Numba's array/string/inlining modules stay deferred (compiler.deferred_impls)
    code = ("import sys, cffi\nfrom numba import cuda, float32\n"
            "from numba_cuda.compiler import deferred_impls\n"
            "from numba_cuda.compiler.target import cuda_target\n"
            "cuda.compile_ptx(lambda a: None, (float32[::1],), cc=(8, 0))\n"
            "assert 'numba_cuda.lang.cffi_buffers' in sys.modules, 'family not installed'\n"
            "assert cuda_target.target_context._deferral is not None, 'deferral off'\n"
            "loaded = [m for m in deferred_impls.DEFERRED_MODULES if m in sys.modules]\n"
            "assert not loaded, loaded\n")
    proc = run_python(code, timeout=300)
    assert proc.returncode == 0, proc.stderr

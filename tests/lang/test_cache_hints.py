"""``cuda.ldca/ldcg/ldcs/ldlu/ldcv`` and ``cuda.stcg/stcs/stwb/stwt``: PTX ``ld.global.<op>`` /
``st.global.<op>`` for every dtype width, assembled by ptxas for every cc the installed toolkit
supports; indices (tuples, negative, raw pointers); typing errors; the simulator; the GPU."""

import re

import numpy as np
import pytest
from numba import cuda
from numba.core import types

from tests.support.ptx_helpers import assemble
from tests.support.typing_errors import expect_typing_error

LOADS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv")
STORES = ("stcg", "stcs", "stwb", "stwt")


def copy_kernel(cuda):
    """out[k][i] = in[i] through every load, then written by every store."""

    def k(src, out):
        i = cuda.grid(1)
        if i < src.size:
            cuda.stcg(out, (0, i), cuda.ldca(src, i))
            cuda.stcs(out, (1, i), cuda.ldcg(src, i))
            cuda.stwb(out, (2, i), cuda.ldcs(src, i))
            cuda.stwt(out, (3, i), cuda.ldlu(src, i))
            cuda.stwt(out, (4, i), cuda.ldcv(src, (i,)))

    return k


WIDTH = {"int8": 8, "uint8": 8, "int16": 16, "float16": 16, "uint32": 32, "float32": 32,
         "int64": 64, "float64": 64}


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "int64", "float64"])
def test_every_operator_for_every_supported_cc(dtype, code):
    from numba import cuda
    from numba_cuda.compiler import capability

    width = WIDTH[dtype]
    ccs = capability.supported_ccs()
    assert len(ccs) >= 5, ccs
    for cc in ccs:
        ptx, resty = cuda.compile_ptx(copy_kernel(cuda), f"void({dtype}[:], {dtype}[:, :])", cc=cc)
        assemble(ptx, cc)
        body = code(ptx)
        for name in LOADS:
            assert f"ld.global.{name[2:]}.b{width} " in body, (cc, name)
        for name in STORES:
            assert f"st.global.{name[2:]}.b{width} " in body, (cc, name)


def test_load_result_type_and_store_conversion():
    from numba import cuda

    def k(a, b):
        b[0] = cuda.ldcs(a, 0) * 2  # an int32 load: integer arithmetic
        cuda.stcs(a, 1, 2.75)  # converted to the array's dtype (int32)

    ptx, resty = cuda.compile_ptx(k, "void(int32[:], float64[:])", cc=(7, 5))
    assert "ld.global.cs.b32" in ptx and "st.global.cs.b32" in ptx
    # 2.75 -> int32 truncates (folded to the constant 2), as ``a[1] = 2.75`` does
    assert re.search(r"mov\.[bu]32\s+(%r\d+), 2;.*st\.global\.cs\.b32 \[%rd\d+\], \1;", ptx, re.S)

    from numba_cuda.compiler.api import compile_to_library
    from numba_cuda.compiler.pipeline import CompileOptions

    def load(a):
        return cuda.ldcg(a, 0)

    _, resty = compile_to_library(load, (types.uint16[:],), CompileOptions.from_user())
    assert resty == types.uint16


def test_raw_pointer_and_optional_index(ptx_one):
    from numba import cuda, njit

    @njit
    def maybe(i):
        return None if i < 0 else i

    def k(p, a):
        cuda.stcg(p, 3, cuda.ldca(p, maybe(a[0])))

    ptx = ptx_one(k, (types.CPointer(types.float32), types.int64[:]))
    assert "ld.global.ca.b32" in ptx and "st.global.cg.b32" in ptx


def test_loads_are_not_merged_or_hoisted_across_stores(ptx_one, code):
    """Two loads of the same element around a store are two instructions (the asm is volatile)."""
    from numba import cuda

    def k(a, out):
        x = cuda.ldcv(a, 0)
        a[0] = 5
        out[0] = x + cuda.ldcv(a, 0)

    body = code(ptx_one(k, "void(int32[:], int32[:])"))
    assert body.count("ld.global.cv.b32") == 2


def _bad_load_complex(a):
    cuda.ldca(a, 0)  # MARK-C


def _bad_store_readonly(a):
    cuda.stcg(a, 0, 1)  # MARK-R


def _bad_scalar_index_2d(a):
    cuda.ldcg(a, 0)  # MARK-2


def _bad_bool(a):
    cuda.ldcs(a, 0)  # MARK-B


@pytest.mark.parametrize("fn, sig, marker, words", [
    (_bad_load_complex, "void(complex64[:])", "MARK-C", ("cuda.ldca", "complex64")),
    (_bad_store_readonly, (types.Array(types.int32, 1, "C", readonly=True),), "MARK-R",
     ("cuda.stcg", "read-only")),
    (_bad_scalar_index_2d, "void(int32[:, :])", "MARK-2", ("cuda.ldcg", "2-D")),
    (_bad_bool, "void(boolean[:])", "MARK-B", ("cuda.ldcs", "bool")),
])
def test_typing_errors_name_the_problem_and_line(fn, sig, marker, words):
    expect_typing_error(fn, sig, marker, *words)


def test_simulator_reads_and_writes_the_elements():
    from numba_cuda.simulator import api as sim

    src = np.arange(10, dtype=np.float32) * 1.5
    out = np.zeros((5, 10), dtype=np.float32)
    sim.jit(copy_kernel(sim))[1, 16](src, out)
    for row in out:
        assert row.tolist() == src.tolist()


def test_simulator_refuses_what_the_compiler_refuses():
    from numba_cuda.simulator import api as sim

    with pytest.raises(TypeError, match="cuda.ldca.*complex64"):
        sim.ldca(np.zeros(2, np.complex64), 0)
    with pytest.raises(TypeError, match="cuda.stwt.*array"):
        sim.stwt(5, 0, 1)


def test_simulator_and_gpu_export_the_names():
    from numba import cuda
    from numba_cuda.simulator import api as sim

    for name in LOADS + STORES:
        assert callable(getattr(cuda, name)) and callable(getattr(sim, name)), name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "int64", "float64"])
def test_gpu_copies_through_every_operator(dtype):
    from numba import cuda

    src = (np.arange(300) % 100).astype(dtype)
    out = cuda.to_device(np.zeros((5, 300), dtype=dtype))
    cuda.jit(copy_kernel(cuda))[3, 128](cuda.to_device(src), out)
    for row in out.copy_to_host():
        assert row.tolist() == src.tolist()

"""``literal_unroll`` and ``literally`` in kernels (numba_cuda.lang.literal_unroll)."""

import numpy as np
from numba import cuda, float32, literal_unroll, literally, types

from tests.support.ptx_helpers import assemble


def test_literal_unroll_over_a_heterogeneous_tuple(code):
    def k(a):
        t = (1, 2.5, np.int32(3))
        s = 0.0
        for v in literal_unroll(t):
            s += v
        a[0] = s

    ptx, _ = cuda.compile_ptx(k, (float32[:],), cc=(7, 5))
    assemble(ptx, (7, 5))
    assert "st.global" in code(ptx)


def test_literal_unroll_over_a_tuple_argument():
    def k(a, t):
        s = 0.0
        for v in literal_unroll(t):
            s += v
        a[0] = s

    ptx, _ = cuda.compile_ptx(k, (float32[:], types.Tuple((types.int32, types.float64, types.uint8))),
                              cc=(7, 5))
    assemble(ptx, (7, 5))


def test_literally_compiles_the_device_function_for_the_literal():
    @cuda.jit(device=True)
    def twice(n):
        n = literally(n)
        return n * 2

    def k(a):
        a[0] = twice(3)

    ptx, _ = cuda.compile_ptx(k, (float32[:],), cc=(7, 5))
    assert twice.signatures == [(types.IntegerLiteral(3),)]
    assert f"{np.float32(6.0).view(np.uint32)};" in ptx  # 6.0f stored as a constant


def test_literal_unroll_in_the_simulator(monkeypatch):
    from numba_cuda.simulator import api as sim

    @sim.jit
    def k(a):
        s = 0.0
        for v in literal_unroll((1, 2.5, np.int32(3))):
            s += v
        a[0] = s

    a = np.zeros(1, np.float32)
    k[1, 1](a)
    assert a[0] == 6.5

"""Atomics whose index or operand is ``Optional`` (returned by a helper that may return ``None``).

Numba's built-in target and NVIDIA's package type ``cuda.atomic.add(hist, idx, 1)`` with ``idx``
typed ``Optional(int64)``: the optional value is cast to the index type where the call is lowered.
The same code must compile here (every cc, assembled by ptxas), run under the simulator and, on a
GPU, give the same histogram.
"""

import numpy as np
import pytest
from numba import njit


@njit
def bucket_or_none(x):
    if x < 0:
        return None
    return x % 4


@njit
def weight_or_none(x):
    if x < 0:
        return None
    return x


def histogram(cuda):
    def k(hist, xs):
        i = cuda.grid(1)
        if i < xs.size:
            cuda.atomic.add(hist, bucket_or_none(xs[i]), 1)

    return k


def test_optional_index_compiles_for_every_cc(ptx_for, code):
    from numba import cuda

    for cc, ptx in ptx_for(histogram(cuda), "void(int32[:], int64[:])").items():
        assert "atom.global.add.u32" in code(ptx) or "atom.relaxed" in code(ptx), cc


@pytest.mark.parametrize("opname", ["add", "sub", "max", "min", "exch", "and_", "or_", "xor",
                                    "nanmax", "nanmin"])
def test_every_binary_atomic_accepts_an_optional_index(opname, ptx_one):
    from numba import cuda

    op = getattr(cuda.atomic, opname)

    def k(a, xs):
        op(a, bucket_or_none(xs[0]), 3)

    assert ptx_one(k, "void(int64[:], int64[:])")


def test_optional_inside_a_tuple_index_and_optional_operands(ptx_one):
    from numba import cuda

    def k(a, flat, xs):
        i = bucket_or_none(xs[0])
        cuda.atomic.add(a, (i, 1), weight_or_none(xs[1]))
        cuda.atomic.cas(flat, i, weight_or_none(xs[2]), 7)
        cuda.atomic.compare_and_swap(flat, weight_or_none(xs[3]), 7)

    ptx = ptx_one(k, "void(int64[:, :], int64[:], int64[:])")
    assert "atom.global.cas.b64" in ptx


def test_half_precision_atomic_accepts_an_optional_index(ptx_one):
    from numba import cuda
    from numba.core.types import float16

    def k(a, xs):
        cuda.atomic.add(a, bucket_or_none(xs[0]), float16(1.0))

    assert ptx_one(k, "void(float16[:], int64[:])")


def test_optional_of_a_non_integer_is_still_refused():
    from numba import cuda
    from numba.core.errors import TypingError

    @njit
    def maybe_float(x):
        if x < 0:
            return None
        return 1.5

    def k(a, xs):
        cuda.atomic.add(a, maybe_float(xs[0]), 1)

    with pytest.raises(TypingError, match="index must be an integer"):
        cuda.compile_ptx(k, "void(int32[:], int64[:])", cc=(7, 5))


def test_optional_index_under_the_simulator():
    from numba_cuda.simulator import api as sim

    xs = np.arange(40, dtype=np.int64)
    hist = np.zeros(4, dtype=np.int32)
    sim.jit(histogram(sim))[2, 32](hist, xs)
    assert hist.tolist() == np.bincount(xs % 4, minlength=4).tolist()


@pytest.mark.gpu
def test_gpu_optional_index_histogram():
    from numba import cuda

    xs = np.arange(1000, dtype=np.int64)
    hist = cuda.to_device(np.zeros(4, dtype=np.int32))
    cuda.jit(histogram(cuda))[8, 128](hist, cuda.to_device(xs))
    assert hist.copy_to_host().tolist() == np.bincount(xs % 4, minlength=4).tolist()

"""The simulator's source rewrite never collides with the user's names."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


@pytest.mark.parametrize("mode", ["python", "threads"])
def test_a_parameter_named_like_the_thread_context(mode):
    @cuda.jit(sim_mode=mode)
    def k(_sim_ctx, out):
        out[cuda.threadIdx.x] = _sim_ctx + cuda.threadIdx.x

    out = np.zeros(4, np.int64)
    k[1, 4](10, out)
    assert out.tolist() == [10, 11, 12, 13]


def test_a_local_named_like_an_index_variable_does_not_replace_threadidx():
    @cuda.jit
    def k(out):
        _sim_tx = 100
        out[cuda.threadIdx.x] = _sim_tx + cuda.threadIdx.x

    out = np.zeros(4, np.int64)
    k[1, 4](out)
    assert out.tolist() == [100, 101, 102, 103]


def test_user_names_like_the_rewrites_temporaries_bindings_and_factory():
    _sim_factory = 7  # a closure variable with the rewrite's factory name
    _sim_b0 = 5

    @cuda.jit
    def k(out, _sim_v0, _sim_lane):
        i = cuda.threadIdx.x
        out[i] = _sim_v0 + _sim_lane + _sim_factory + _sim_b0 + cuda.laneid
        cuda.syncthreads()

    out = np.zeros(3, np.int64)
    k[1, 3](out, 1000, 100)
    assert out.tolist() == [1112, 1113, 1114]


def test_a_user_overflowerror_does_not_change_store_truncation():
    OverflowError = KeyError  # noqa: A001,N806 - shadows the builtin the rewrite relied on

    @cuda.jit
    def k(out):
        out[0] = 300  # NumPy refuses, the rewrite's own `except OverflowError` stores the GPU's
        out[1] = OverflowError is KeyError  # the kernel sees its own name (the rewrite's is apart)

    out = np.zeros(2, np.uint8)
    k[1, 1](out)
    assert out.tolist() == [44, 1]


def test_device_function_with_colliding_names():
    @cuda.jit(device=True)
    def dev(_sim_ctx, _sim_tx):
        return _sim_ctx * 10 + _sim_tx

    @cuda.jit
    def k(out):
        out[cuda.threadIdx.x] = dev(cuda.threadIdx.x, 1)

    out = np.zeros(3, np.int64)
    k[1, 3](out)
    assert out.tolist() == [1, 11, 21]


def test_a_device_function_without_source_takes_a_keyword_named_ctx():
    namespace = {}
    exec("def dev(x, _ctx=0):\n    return x + _ctx\n", namespace)  # no source: not rewritten
    dev = cuda.jit(device=True)(namespace["dev"])

    @cuda.jit
    def k(out):
        out[0] = dev(1, _ctx=41)

    out = np.zeros(1, np.int64)
    k[1, 1](out)
    assert out[0] == 42

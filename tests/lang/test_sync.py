"""Barriers and fences: PTX for every cc, ptxas acceptance, typing errors, GPU results."""


import numpy as np
import pytest
from numba import cuda, int32

from tests.support.typing_errors import expect_typing_error


def all_barriers(out):
    i = cuda.threadIdx.x
    out[i] = 1
    cuda.syncthreads()
    count = cuda.syncthreads_count(out[i] > 0)
    every = cuda.syncthreads_and(i)
    some = cuda.syncthreads_or(i == 3)
    cuda.syncwarp()
    cuda.syncwarp(0xFFFF)
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    out[i] = count * 100 + every * 10 + some


def test_barriers_and_fences_compile_for_every_cc(ptx_for, code):
    for cc, ptx in ptx_for(all_barriers, (int32[:],)).items():
        body = code(ptx)
        assert "bar.sync \t0;" in body or "barrier.sync 0;" in body or "bar.sync 0;" in body, cc
        assert "bar.red.popc.u32" in body, cc
        assert "bar.red.and.pred" in body, cc
        assert "bar.red.or.pred" in body, cc
        assert "bar.warp.sync \t-1;" in body and "bar.warp.sync \t65535;" in body, cc
        for fence in ("membar.gl;", "membar.cta;", "membar.sys;"):
            assert fence in body, (cc, fence)


def test_predicates_accept_bool_and_any_integer(ptx_one):
    def k(out, x):
        i = cuda.threadIdx.x
        out[0] = cuda.syncthreads_count(x[i])   # uint64 predicate
        out[1] = cuda.syncthreads_and(True)

    from numba import uint64

    ptx_one(k, (int32[:], uint64[:]))


def test_syncwarp_with_runtime_mask(ptx_one, code):
    def k(masks):
        cuda.syncwarp(masks[0])

    from numba import uint32

    body = code(ptx_one(k, (uint32[:],)))
    assert "bar.warp.sync \t%r" in body


def bad_arity(out):
    cuda.syncthreads(1)  # MARK-ARITY


def bad_predicate(out):
    out[0] = cuda.syncthreads_count(1.5)  # MARK-PRED


def bad_mask(out):
    cuda.syncwarp(1.0)  # MARK-MASK


@pytest.mark.parametrize(
    "fn, marker, words",
    [
        (bad_arity, "MARK-ARITY", "takes no arguments"),
        (bad_predicate, "MARK-PRED", "predicate must be an integer or a boolean"),
        (bad_mask, "MARK-MASK", "mask must be an integer"),
    ],
)
def test_typing_errors_name_the_line(fn, marker, words):
    expect_typing_error(fn, (int32[:],), marker, words)


# ---- GPU ----------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_syncthreads_reductions():
    kernel = cuda.jit(all_barriers)
    out = cuda.to_device(np.zeros(64, dtype=np.int32))
    kernel[1, 64](out)
    got = out.copy_to_host()
    # all 64 threads have out[i] > 0; not all i are non-zero (i == 0); one thread has i == 3
    assert (got == 64 * 100 + 0 * 10 + 1).all(), got


@pytest.mark.gpu
def test_gpu_syncthreads_orders_shared_memory():
    @cuda.jit
    def reverse(data):
        tile = cuda.shared.array(128, dtype=np.int32)
        i = cuda.threadIdx.x
        tile[i] = data[i]
        cuda.syncthreads()
        data[i] = tile[127 - i]

    host = np.arange(128, dtype=np.int32)
    dev = cuda.to_device(host)
    reverse[1, 128](dev)
    np.testing.assert_array_equal(dev.copy_to_host(), host[::-1])


@pytest.mark.gpu
def test_gpu_threadfence_and_syncwarp_run():
    @cuda.jit
    def k(out):
        i = cuda.threadIdx.x
        out[i] = i
        cuda.threadfence_block()
        cuda.threadfence()
        cuda.threadfence_system()
        cuda.syncwarp()
        neighbour = out[(i + 1) % 32]
        cuda.syncwarp()
        out[i] += neighbour

    dev = cuda.to_device(np.zeros(32, dtype=np.int32))
    k[1, 32](dev)
    got = dev.copy_to_host()
    np.testing.assert_array_equal(got, np.arange(32) + (np.arange(32) + 1) % 32)

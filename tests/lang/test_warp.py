"""Warp-level primitives and nanosleep: PTX for every cc, types, errors, GPU results."""


import numpy as np
import pytest
from numba import boolean, cuda, float32, float64, int32, int64, uint32, uint64

from tests.support.typing_errors import expect_typing_error

VALUES = [int32, uint32, int64, uint64, float32, float64]


def shuffles(out, x):
    i = cuda.threadIdx.x
    v = x[i]
    out[i, 0] = cuda.shfl_sync(0xFFFFFFFF, v, 0)
    out[i, 1] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
    out[i, 2] = cuda.shfl_down_sync(0xFFFFFFFF, v, 2)
    out[i, 3] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 16)


@pytest.mark.parametrize("t", VALUES, ids=str)
def test_shuffles(t, ptx_for, code):
    for cc, ptx in ptx_for(shuffles, (t[:, :], t[:])).items():
        body = code(ptx)
        for mode in ("idx", "up", "down", "bfly"):
            assert f"shfl.sync.{mode}.b32" in body, (cc, mode)
        if t.bitwidth == 64:
            assert body.count("shfl.sync.idx.b32") == 2, cc   # two halves


def votes_and_masks(out, x):
    i = cuda.threadIdx.x
    p = x[i] > 0
    out[i, 0] = cuda.all_sync(0xFFFFFFFF, p)
    out[i, 1] = cuda.any_sync(0xFFFFFFFF, p)
    out[i, 2] = cuda.eq_sync(0xFFFFFFFF, p)
    out[i, 3] = cuda.ballot_sync(0xFFFFFFFF, p)
    out[i, 4] = cuda.match_any_sync(0xFFFFFFFF, x[i])
    lanes, same = cuda.match_all_sync(0xFFFFFFFF, x[i])
    out[i, 5] = lanes + same
    out[i, 6] = cuda.activemask()
    out[i, 7] = cuda.lanemask_lt()
    cuda.nanosleep(100)


@pytest.mark.parametrize("t", VALUES, ids=str)
def test_votes_matches_masks(t, ptx_for, code):
    bits = 64 if t.bitwidth == 64 else 32
    for cc, ptx in ptx_for(votes_and_masks, (uint64[:, :], t[:])).items():
        body = code(ptx)
        for op in ("vote.sync.all.pred", "vote.sync.any.pred", "vote.sync.uni.pred",
                   "vote.sync.ballot.b32", f"match.any.sync.b{bits}", f"match.all.sync.b{bits}",
                   "activemask.b32", "%lanemask_lt", "nanosleep.u32"):
            assert op in body, (cc, op)


def test_result_types():
    def f(x, p):
        return (cuda.shfl_sync(0xFFFFFFFF, x, 3), cuda.ballot_sync(-1, p), cuda.all_sync(1, p),
                cuda.match_all_sync(0xFFFFFFFF, x), cuda.activemask(), cuda.shfl_down_sync(-1, p, 1))

    _, resty = cuda.compile_ptx(f, (float64, boolean), device=True, cc=(7, 5))
    assert str(resty) == "Tuple(float64, uint32, bool, Tuple(uint32, bool), uint32, bool)"


def shuffle_array(out, x):
    out[0] = cuda.shfl_sync(0xFFFFFFFF, x, 0)  # MARK-SHFL


def ballot_float_mask(out, x):
    out[0] = cuda.ballot_sync(1.5, True)  # MARK-BALLOT


def match_bool(out, x):
    out[0] = cuda.match_any_sync(0xFFFFFFFF, x[0] > 0)  # MARK-MATCH


@pytest.mark.parametrize(
    "fn, marker, words",
    [
        (shuffle_array, "MARK-SHFL", "value must be one of"),
        (ballot_float_mask, "MARK-BALLOT", "mask must be an integer"),
        (match_bool, "MARK-MATCH", "value must be one of"),
    ],
)
def test_typing_errors_name_the_line(fn, marker, words):
    expect_typing_error(fn, (float64[:], float64[:]), marker, words)


# ---- GPU ----------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
def test_gpu_shuffles(dtype):
    x = (np.arange(32) * 3 + (1 << 33 if dtype.endswith("64") and "int" in dtype else 0)).astype(dtype)
    if dtype.startswith("float"):
        x = x + np.asarray(0.25, dtype=dtype)
    kernel = cuda.jit(shuffles)
    out = cuda.device_array((32, 4), dtype=dtype)
    kernel[1, 32](out, cuda.to_device(x))
    got = out.copy_to_host()
    lane = np.arange(32)
    np.testing.assert_array_equal(got[:, 0], np.full(32, x[0]))
    np.testing.assert_array_equal(got[:, 1], x[np.maximum(lane - 1, 0)])        # lane 0 keeps its own
    np.testing.assert_array_equal(got[:, 2], x[np.where(lane + 2 < 32, lane + 2, lane)])
    np.testing.assert_array_equal(got[:, 3], x[lane ^ 16])


@pytest.mark.gpu
def test_gpu_votes_and_matches():
    x = np.array([(i % 3) - 1 for i in range(32)], dtype=np.int32)   # -1, 0, 1, -1, ...
    kernel = cuda.jit(votes_and_masks)
    out = cuda.device_array((32, 8), dtype=np.uint64)
    kernel[1, 32](out, cuda.to_device(x))
    got = out.copy_to_host()
    positive = x > 0
    ballot = sum(1 << i for i in range(32) if positive[i])
    assert (got[:, 0] == 0).all() and (got[:, 1] == 1).all() and (got[:, 2] == 0).all()
    assert (got[:, 3] == ballot).all()
    for i in range(32):
        same_value = sum(1 << j for j in range(32) if x[j] == x[i])
        assert got[i, 4] == same_value
        assert got[i, 5] == 0          # values differ: match_all gives (0, False)
        assert got[i, 6] == 0xFFFFFFFF
        assert got[i, 7] == (1 << i) - 1


@pytest.mark.gpu
def test_gpu_warp_sum_with_shfl_down():
    @cuda.jit
    def warp_sum(out, x):
        i = cuda.threadIdx.x
        v = x[i]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset //= 2
        if i == 0:
            out[0] = v

    x = np.arange(32, dtype=np.float64) * 0.5
    out = cuda.device_array(1, dtype=np.float64)
    warp_sum[1, 32](out, cuda.to_device(x))
    assert out.copy_to_host()[0] == x.sum()

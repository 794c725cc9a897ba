"""Warp-level functions in the simulator."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda

FULL = 0xFFFFFFFF


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_shuffles(dtype):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        v = a[i]
        out[0, i] = cuda.shfl_sync(FULL, v, 3)
        out[1, i] = cuda.shfl_up_sync(FULL, v, 2)
        out[2, i] = cuda.shfl_down_sync(FULL, v, 5)
        out[3, i] = cuda.shfl_xor_sync(FULL, v, 1)

    a = (np.arange(64) * 3 + 1).astype(dtype)
    out = np.zeros((4, 64), dtype)
    k[1, 64](a, out)
    lane = np.arange(64) % 32
    base = np.arange(64) - lane
    assert np.array_equal(out[0], a[base + 3])
    assert np.array_equal(out[1], np.where(lane >= 2, a[np.arange(64) - 2], a))
    assert np.array_equal(out[2], np.where(lane < 27, a[np.minimum(np.arange(64) + 5, 63)], a))
    assert np.array_equal(out[3], a[np.arange(64) ^ 1])
    assert out.dtype == dtype


def test_warp_reduction_with_shfl_down():
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        v = a[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL, v, off)
            off //= 2
        if cuda.laneid == 0:
            out[i // 32] = v

    a = np.arange(128, dtype=np.float64)
    out = np.zeros(4)
    k[2, 64](a, out)
    assert np.array_equal(out, a.reshape(4, 32).sum(axis=1))


def test_votes_and_ballot():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        out[0, lane] = cuda.all_sync(FULL, lane < 32)
        out[1, lane] = cuda.all_sync(FULL, lane < 31)
        out[2, lane] = cuda.any_sync(FULL, lane == 17)
        out[3, lane] = cuda.any_sync(FULL, lane > 40)
        out[4, lane] = cuda.eq_sync(FULL, lane >= 0)
        out[5, lane] = cuda.eq_sync(FULL, lane % 2)
        out[6, lane] = cuda.ballot_sync(FULL, lane % 4 == 0)

    out = np.zeros((7, 32), np.int64)
    k[1, 32](out)
    assert list(out[:6, 0]) == [1, 0, 1, 0, 1, 0]
    assert (out[6] == 0x11111111).all()


def test_ballot_with_a_partial_mask():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        if lane < 8:
            out[lane] = cuda.ballot_sync(0xFF, lane % 2 == 1)

    out = np.zeros(8, np.uint32)
    k[1, 32](out)
    assert (out == 0xAA).all()


def test_match_any_and_all():
    @cuda.jit
    def k(a, any_out, all_mask, all_pred):
        lane = cuda.laneid
        any_out[lane] = cuda.match_any_sync(FULL, a[lane])
        m, p = cuda.match_all_sync(FULL, a[lane] // 100)
        all_mask[lane] = m
        all_pred[lane] = p

    a = (np.arange(32) % 3).astype(np.int32)
    any_out = np.zeros(32, np.uint32)
    all_mask = np.zeros(32, np.uint32)
    all_pred = np.zeros(32, np.bool_)
    k[1, 32](a, any_out, all_mask, all_pred)
    for lane in range(32):
        expect = sum(1 << j for j in range(32) if a[j] == a[lane])
        assert any_out[lane] == expect
    assert (all_mask == FULL).all() and all_pred.all()


def test_activemask_sees_divergence():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        if lane < 10:
            out[lane] = cuda.activemask()
        else:
            out[lane] = cuda.activemask()

    out = np.zeros(32, np.uint32)
    k[1, 32](out)
    assert (out[:10] == 0x3FF).all()
    assert (out[10:] == (FULL & ~0x3FF)).all()


def test_lanemask_lt_and_syncwarp():
    @cuda.jit
    def k(out, s_out):
        s = cuda.shared.array(32, np.int32)
        lane = cuda.laneid
        out[lane] = cuda.lanemask_lt()
        s[lane] = lane * 2
        cuda.syncwarp()
        s_out[lane] = s[31 - lane]
        cuda.syncwarp(FULL)

    out = np.zeros(32, np.uint32)
    s_out = np.zeros(32, np.int32)
    k[1, 32](out, s_out)
    assert list(out) == [(1 << lane) - 1 for lane in range(32)]
    assert list(s_out) == [2 * (31 - lane) for lane in range(32)]


def test_partial_last_warp():
    @cuda.jit
    def k(out):
        lane = cuda.laneid
        t = cuda.threadIdx.x
        out[0, t] = cuda.shfl_down_sync(FULL, lane, 1)
        out[1, t] = cuda.ballot_sync(FULL, True)

    out = np.zeros((2, 40), np.int64)
    k[1, 40](out)
    assert out[0, 0] == 1 and out[1, 0] == FULL
    assert out[0, 32] == 1 and out[1, 32] == 0xFF    # threads 32..39: a warp of 8 lanes
    assert out[0, 39] == 7                           # lane 8 does not exist: own value


def test_mask_without_own_lane_is_an_error():
    @cuda.jit
    def k(out):
        out[0] = cuda.shfl_sync(0x1, 5, 0)

    with pytest.raises(RuntimeError, match="does not include the calling lane 1"):
        k[1, 2](np.zeros(1, np.int32))


def test_warp_functions_in_device_function():
    @cuda.jit(device=True)
    def warp_sum(v):
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_xor_sync(FULL, v, off)
        return v

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        out[i] = warp_sum(a[i])

    a = np.arange(32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    k[1, 32](a, out)
    assert (out == a.sum()).all()

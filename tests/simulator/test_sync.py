"""Barriers in the simulator: syncthreads and its predicates, early exits, deadlocks, fences."""

import numpy as np
import pytest
from numba import int32

from numba_cuda.simulator import api as cuda
from numba_cuda.simulator.scheduler import SimulatorDeadlock


def test_syncthreads_orders_writes_across_threads():
    @cuda.jit
    def rotate(a, rounds):
        s = cuda.shared.array(32, int32)
        t = cuda.threadIdx.x
        s[t] = a[t]
        for _ in range(rounds):
            cuda.syncthreads()
            v = s[(t + 1) % 32]
            cuda.syncthreads()
            s[t] = v
        cuda.syncthreads()
        a[t] = s[t]

    a = np.arange(32, dtype=np.int32)
    rotate[1, 32](a, 5)
    assert np.array_equal(a, np.roll(np.arange(32), -5))
    assert rotate.sim_mode == "coroutines"


def test_syncthreads_count_and_or():
    @cuda.jit
    def k(out):
        t = cuda.threadIdx.x
        out[t, 0] = cuda.syncthreads_count(t % 3 == 0)
        out[t, 1] = cuda.syncthreads_and(t < 100)
        out[t, 2] = cuda.syncthreads_and(t < 5)
        out[t, 3] = cuda.syncthreads_or(t == 7)
        out[t, 4] = cuda.syncthreads_or(t > 100)

    out = np.zeros((10, 5), np.int32)
    k[1, 10](out)
    assert (out == [4, 1, 0, 1, 0]).all()


def test_exited_threads_count_as_arrived():
    @cuda.jit
    def k(a):
        s = cuda.shared.array(16, int32)
        t = cuda.threadIdx.x
        if t >= 8:
            return
        s[t] = t
        cuda.syncthreads()
        a[t] = s[7 - t]

    a = np.full(16, -1, np.int32)
    k[1, 16](a)
    assert list(a[:8]) == list(range(7, -1, -1))
    assert (a[8:] == -1).all()


def test_divergent_warp_collective_deadlock_is_reported():
    @cuda.jit
    def k(a):
        t = cuda.threadIdx.x
        if t < 16:
            a[t] = cuda.shfl_sync(0xFFFFFFFF, t, 0)
        else:
            cuda.syncthreads()

    with pytest.raises(SimulatorDeadlock, match=r"waiting in shfl_sync\(\) with mask 0xffffffff"):
        k[1, 32](np.zeros(32, np.int32))


def test_fences_are_accepted():
    @cuda.jit
    def k(a):
        a[0] = 1
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()
        cuda.nanosleep(100)

    a = np.zeros(1)
    k[1, 1](a)
    assert a[0] == 1


def test_barrier_outside_a_kernel_raises():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.syncthreads()


def test_grid_sync_orders_blocks():
    @cuda.jit
    def k(a, out):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        a[i] = i
        g.sync()
        out[i] = a[(i + 5) % a.size]

    a = np.zeros(16, np.int64)
    out = np.zeros(16, np.int64)
    k[4, 4](a, out)
    assert np.array_equal(out, (np.arange(16) + 5) % 16)
    assert k.max_cooperative_grid_blocks(4) >= 4

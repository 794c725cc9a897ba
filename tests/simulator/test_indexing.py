"""Thread indexing in the simulator: threadIdx & co., grid/gridsize, laneid, warpsize."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


@cuda.jit
def record_indices(out):
    x, y, z = cuda.grid(3)
    out[x, y, z, 0] = cuda.threadIdx.x
    out[x, y, z, 1] = cuda.threadIdx.y
    out[x, y, z, 2] = cuda.threadIdx.z
    out[x, y, z, 3] = cuda.blockIdx.x
    out[x, y, z, 4] = cuda.blockIdx.y
    out[x, y, z, 5] = cuda.blockIdx.z
    out[x, y, z, 6] = cuda.blockDim.x * 100 + cuda.blockDim.y * 10 + cuda.blockDim.z
    out[x, y, z, 7] = cuda.gridDim.x * 100 + cuda.gridDim.y * 10 + cuda.gridDim.z


def test_indices_in_3d():
    grid, block = (2, 3, 2), (4, 2, 3)
    shape = tuple(g * b for g, b in zip(grid, block))
    out = np.full(shape + (8,), -1, np.int32)
    record_indices[grid, block](out)
    for x, y, z in np.ndindex(*shape):
        tx, ty, tz = x % 4, y % 2, z % 3
        bx, by, bz = x // 4, y // 2, z // 3
        assert tuple(out[x, y, z]) == (tx, ty, tz, bx, by, bz, 423, 232)


def test_grid_and_gridsize_1_2_3():
    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        x, y = cuda.grid(2)
        a, b, c = cuda.grid(3)
        n1 = cuda.gridsize(1)
        s2 = cuda.gridsize(2)
        s3 = cuda.gridsize(3)
        if y == 0 and c == 0:
            out[i, 0] = x == i and a == i
            out[i, 1] = n1
            out[i, 2] = s2[0] * 1000 + s2[1]
            out[i, 3] = s3[0] * 1000000 + s3[1] * 1000 + s3[2]

    out = np.zeros((12, 4), np.int64)
    k[(3, 2, 2), (4, 1, 1)](out)
    assert out[:, 0].all()
    assert (out[:, 1] == 12).all()
    assert (out[:, 2] == 12 * 1000 + 2).all()
    assert (out[:, 3] == 12 * 1000000 + 2 * 1000 + 2).all()


def test_grid_with_runtime_ndim_uses_the_dynamic_path():
    @cuda.jit
    def k(out, nd):
        out[cuda.grid(nd)] = cuda.gridsize(nd)

    out = np.zeros(8, np.int64)
    k[2, 4](out, 1)
    assert (out == 8).all()


def test_laneid_and_warpsize_in_a_2d_block():
    @cuda.jit
    def k(lane, warpsize):
        tid = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
        lane[tid] = cuda.laneid
        warpsize[tid] = cuda.warpsize

    lane = np.zeros(96, np.int32)
    ws = np.zeros(96, np.int32)
    k[1, (16, 6)](lane, ws)
    assert np.array_equal(lane, np.arange(96) % 32)
    assert (ws == 32).all()


def test_indices_outside_a_kernel_raise():
    with pytest.raises(RuntimeError, match="only meaningful inside a kernel"):
        cuda.threadIdx.x
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.grid(1)


def test_aliased_imports_are_recognised():
    from numba_cuda.simulator.api import blockDim as bd
    from numba_cuda.simulator.api import grid as g
    from numba_cuda.simulator.api import threadIdx as tid

    @cuda.jit(sim_mode="python")  # the Python path, whatever the default or NUMBA_CUDASIM_MODE says
    def k(out):
        out[g(1)] = tid.x + 100 * bd.x

    out = np.zeros(6, np.int32)
    k[2, 3](out)
    assert list(out) == [300, 301, 302, 300, 301, 302]
    assert k.sim_mode == "sequential"

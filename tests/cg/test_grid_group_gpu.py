"""cuda.cg on a real GPU: cooperative launches synchronise the whole grid (checked against
numpy), size()/thread_rank(), max_cooperative_grid_blocks, and the too-large-grid error."""

import numpy as np
import pytest

from tests.support import kernel_sources

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda():
    from numba import cuda as module

    return module


def _kernels(cuda):
    """The kernels of tests/support/kernel_sources.py (the simulator test runs the same ones)."""
    return cuda.jit(kernel_sources.shift_rounds), cuda.jit(kernel_sources.ranks)


def test_grid_sync_across_every_resident_block(cuda):
    shift_rounds, _ = _kernels(cuda)
    threads = 128
    sample = cuda.to_device(np.zeros(threads, np.int64))
    shift_rounds[1, threads](sample, 1)  # compiles for (int64[::1], int64)
    limit = shift_rounds.max_cooperative_grid_blocks(threads)
    assert limit >= cuda.get_current_device().MULTIPROCESSOR_COUNT
    blocks = limit                       # the largest grid that may synchronise
    n = blocks * threads
    host = np.arange(n, dtype=np.int64)
    d = cuda.to_device(host)
    rounds = 7
    shift_rounds[blocks, threads](d, rounds)
    np.testing.assert_array_equal(d.copy_to_host(), np.roll(host, -rounds))
    assert shift_rounds.overloads[next(iter(shift_rounds.overloads))].cooperative


def test_size_and_thread_rank(cuda):
    _, ranks = _kernels(cuda)
    out = cuda.device_array((6 * 64, 2), np.uint64)
    ranks[(3, 2), (32, 2)](out)
    got = out.copy_to_host()
    assert (got[:, 0] == 6 * 64).all()
    np.testing.assert_array_equal(got[:, 1], np.arange(6 * 64, dtype=np.uint64))


def test_sync_inside_a_device_function(cuda):
    @cuda.jit(device=True)
    def barrier():
        cuda.cg.this_grid().sync()

    @cuda.jit
    def reverse_blocks(a, out):
        i = cuda.grid(1)
        a[i] = i * 3
        barrier()
        out[i] = a[a.size - 1 - i]

    threads = 64
    sample = cuda.to_device(np.zeros(threads, np.int64))
    reverse_blocks[1, threads](sample, cuda.device_array(threads, np.int64))
    blocks = min(8, reverse_blocks.max_cooperative_grid_blocks(threads))
    n = blocks * threads
    out = cuda.device_array(n, np.int64)
    reverse_blocks[blocks, threads](cuda.device_array(n, np.int64), out)
    np.testing.assert_array_equal(out.copy_to_host(), (np.arange(n) * 3)[::-1])


def test_too_large_cooperative_grid_is_refused(cuda):
    from numba_cuda.errors import LaunchConfigError

    shift_rounds, _ = _kernels(cuda)
    d = cuda.to_device(np.zeros(64, np.int64))
    shift_rounds[1, 64](d, 1)
    limit = shift_rounds.max_cooperative_grid_blocks(64)
    with pytest.raises(LaunchConfigError, match="max_cooperative_grid_blocks"):
        shift_rounds[limit + 1, 64](cuda.device_array((limit + 1) * 64, np.int64), 1)


def test_overload_query_matches_the_dispatcher(cuda):
    shift_rounds, _ = _kernels(cuda)
    shift_rounds[1, 32](cuda.to_device(np.zeros(32, np.int64)), 1)
    (kernel,) = shift_rounds.overloads.values()
    assert kernel.max_cooperative_grid_blocks(256) == shift_rounds.max_cooperative_grid_blocks(256)
    assert shift_rounds.max_cooperative_grid_blocks((16, 16)) == \
        shift_rounds.max_cooperative_grid_blocks(256)

"""cuda.cg in the simulator (NUMBA_ENABLE_CUDASIM=1, a fresh interpreter): grid-wide barriers
order memory across blocks, size()/thread_rank() agree with the launch, too-large grids fail."""

import json

from tests.support.kernel_sources import SOURCE_DIR


def test_grid_sync_size_rank_and_limits_in_the_simulator(run_script):
    # The kernels are those of tests/support/kernel_sources.py, which the GPU tests run too.
    proc = run_script("""
        import json
        import sys
        import numpy as np
        from numba import cuda
        from numba_cuda.errors import LaunchConfigError

        import numba_cuda

        assert numba_cuda.USE_SIMULATOR
        sys.path.insert(0, SOURCE_DIR)
        import kernel_sources

        shift_rounds = cuda.jit(kernel_sources.shift_rounds)
        ranks = cuda.jit(kernel_sources.ranks)

        a = np.arange(24, dtype=np.int64)
        shift_rounds[6, 4](a, 5)
        out = np.zeros((24, 2), np.uint64)
        ranks[(3, 2), 4](out)     # 2-D grid: rank is block-linear * 4 + thread
        limit = shift_rounds.max_cooperative_grid_blocks(4)
        try:
            shift_rounds[limit + 1, 4](np.zeros(4 * (limit + 1), np.int64), 1)
            refused = ""
        except LaunchConfigError as exc:
            refused = str(exc)
        print(json.dumps({"a": a.tolist(), "size": out[:, 0].tolist(),
                          "rank": out[:, 1].tolist(), "refused": refused}))
    """.replace("SOURCE_DIR", repr(SOURCE_DIR)), env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["a"] == [(i + 5) % 24 for i in range(24)]
    assert got["size"] == [24] * 24
    assert got["rank"] == list(range(24))
    assert "max_cooperative_grid_blocks" in got["refused"]

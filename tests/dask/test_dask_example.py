"""examples/dask_chunked_kernel.py on Dask's distributed scheduler.

CI: a SpecCluster of two worker processes (one per "GPU", CUDA_VISIBLE_DEVICES=0 and 1) in
the simulator; the numbers are checked against NumPy.  GPU-marked: one worker per real GPU,
and CuPy-backed Dask arrays through the CUDA Array Interface where CuPy is installed.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]


def _run(code, **env):
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "examples")]),
                    **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=full_env, timeout=300, cwd=str(ROOT))


def test_chunks_on_two_simulated_workers_match_numpy():
    proc = _run("""
        import numpy as np
        from distributed import Client
        import dask_chunked_kernel as ex

        x = np.linspace(-2.0, 3.0, 6000)
        with ex.gpu_cluster(2, simulator=True) as cluster, Client(cluster) as client:
            total, devices = ex.chunked_sum(client, x, 6)
            # a closure kernel (pickled by value) shipped in a task
            from numba import cuda
            def make(c):
                @cuda.jit
                def shift(a):
                    i = cuda.grid(1)
                    if i < a.size:
                        a[i] += c
                return shift
            def run(kernel, chunk):
                a = cuda.to_device(chunk)
                kernel[(chunk.size + 63) // 64, 64](a)
                return a.copy_to_host()
            parts = client.gather(client.map(run, [make(5.0)] * 3, np.array_split(x, 3)))
        assert np.isclose(total, ex.expected(x).sum()), (total, ex.expected(x).sum())
        assert {d[0] for d in devices} == {"0", "1"}, devices
        assert np.allclose(np.concatenate(parts), x + 5.0)
        print("ok")
    """, NUMBA_ENABLE_CUDASIM="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert proc.stdout.strip().endswith("ok")


def test_example_script_runs_in_the_simulator():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "dask_chunked_kernel.py"), "--workers", "2",
         "--size", "5000", "--chunks", "4"],
        capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_ENABLE_CUDASIM="1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert "[simulator]" in proc.stdout and "('0', 0), ('1', 0)" in proc.stdout


@pytest.mark.gpu
def test_one_worker_per_gpu():
    proc = _run("""
        import numpy as np
        from distributed import Client
        from numba import cuda
        import dask_chunked_kernel as ex

        n = len(cuda.gpus)
        x = np.linspace(-1.0, 1.0, 1_000_000)
        with ex.gpu_cluster(n) as cluster, Client(cluster) as client:
            total, devices = ex.chunked_sum(client, x, 4 * n)
        assert np.isclose(total, ex.expected(x).sum())
        assert {d[0] for d in devices} == {str(i) for i in range(n)}, devices
        print("ok", n)
    """)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]


@pytest.mark.gpu
def test_cupy_backed_dask_array_through_cuda_array_interface():
    pytest.importorskip("cupy")
    proc = _run("""
        import cupy, numpy as np
        import dask.array as da
        import dask_chunked_kernel as ex

        x = np.linspace(-1.0, 1.0, 100_000)
        darr = da.from_array(x, chunks=10_000).map_blocks(cupy.asarray)
        got = ex.cupy_map_blocks(darr).compute(scheduler="threads")
        assert isinstance(got, cupy.ndarray)
        assert np.allclose(cupy.asnumpy(got), ex.expected(x))
        print("ok")
    """)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]

"""The tensor-core GEMM benchmark (benchmarks/wmma.py): its kernel computes the product (in the
simulator, everywhere), it skips with a reason without a GPU, and on a GPU it measures the
wmma kernel against CuPy's matmul (cuBLAS)."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tests.support.script_modules import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_benchmark():
    return load_script("benchmarks/wmma.py", "wmma_benchmark")


def test_the_benchmark_kernel_computes_the_product_in_the_simulator():
    from numba_cuda.simulator import api as sim

    launch = load_benchmark().gemm_kernel(sim, np)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    launch(a, b, c)
    assert np.allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_the_benchmark_kernel_assembles_for_sm80_and_sm90():
    from numba import cuda
    from numba.core import types

    from tests.support.ptx_helpers import assemble

    kernel = load_benchmark().gemm_kernel(cuda, np).kernel
    sig = (types.float16[:, ::1], types.float16[:, ::1], types.float32[:, ::1])
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=cc)
        assemble(ptx, cc)
        assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx


def test_without_a_gpu_the_script_says_so_and_exits_0():
    bench = load_benchmark()
    if bench.gpu_unavailable_reason() is None:
        pytest.skip("a GPU is present: the GPU test below runs the benchmark")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wmma.py"), "--sizes", "64"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "skipped: no CUDA GPU" in proc.stdout


@pytest.mark.gpu
def test_wmma_gemm_against_cupy_matmul_on_the_gpu():
    pytest.importorskip("cupy", reason="CuPy is not installed: the comparison with cuBLAS needs it")
    results = load_benchmark().measure([256, 1024], repeat=3)
    for n in ("256", "1024"):
        entry = results[n]
        assert entry["wmma_max_error"] < 0.05 * np.sqrt(int(n)), entry
        assert entry["wmma_tflops"] > 0 and entry["cupy_tflops"] > 0, entry
    print(results)

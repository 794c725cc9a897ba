"""The end-to-end bandwidth set (benchmarks/bandwidth.py): its kernels compute the right answers
(in the simulator, everywhere) and assemble for the GPU, the peak formula, and the script skipping
with a reason without a GPU; on a GPU it runs and every kernel's answer is checked."""

import json
import pathlib
import subprocess
import sys

import pytest

from tests.support.script_modules import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_benchmark():
    return load_script("benchmarks/bandwidth.py", "bandwidth_benchmark")


def test_every_kernel_of_the_set_is_right_in_the_simulator():
    from numba_cuda.simulator import api as sim

    rows = load_benchmark().run_set(sim, scale=1e-5, repeats=1, on_gpu=False)
    assert set(rows) == {"saxpy", "device copy", "reduction", "transpose"}
    assert {name: row["correct"] for name, row in rows.items()} == dict.fromkeys(rows, True)
    assert rows["saxpy"]["bytes"] == 12 * 1000
    assert rows["transpose"]["size"] == "32x32"


def test_a_wrong_kernel_is_reported_wrong():
    from numba_cuda.simulator import api as sim

    bench = load_benchmark()
    saxpy, block_sum, transpose = bench.make_kernels(sim)

    def broken(cuda):
        @cuda.jit
        def not_a_transpose(src, dst):
            pass
        return saxpy, block_sum, not_a_transpose

    bench.make_kernels = broken
    rows = bench.run_set(sim, scale=1e-5, repeats=1, on_gpu=False)
    assert rows["transpose"]["correct"] is False and rows["saxpy"]["correct"] is True


def test_the_kernels_assemble_for_sm80_and_sm90():
    from numba import cuda
    from numba.core import types

    from tests.support.ptx_helpers import assemble

    kernels = load_benchmark().make_kernels(cuda)
    f32, f32_2d = types.float32[::1], types.float32[:, ::1]
    sigs = [(types.float32, f32, f32), (f32, f32), (f32_2d, f32_2d)]
    for kernel, sig in zip(kernels, sigs):
        for cc in ((8, 0), (9, 0)):
            ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=cc)
            assemble(ptx, cc)
    ptx, _ = cuda.compile_ptx(kernels[1].py_func, sigs[1], cc=(9, 0))
    assert "bar.sync" in ptx and "atom.global.add.f32" in ptx


def test_peak_is_double_data_rate_times_bus_width():
    peak = load_benchmark().peak_bandwidth
    assert peak(2_619_000, 5120) == pytest.approx(3352.3, rel=1e-4)  # an H100 SXM's attributes
    assert peak(0, 5120) is None and peak(2_619_000, 0) is None


def test_without_a_gpu_the_script_says_so_and_exits_0():
    from numba_cuda.runtime.probe import probe_devices

    if probe_devices():
        pytest.skip("a GPU is present: the GPU test below runs the benchmark")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bandwidth.py")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "needs a GPU" in proc.stdout


@pytest.mark.gpu
def test_bandwidth_set_on_the_gpu(tmp_path):
    out = tmp_path / "bw.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bandwidth.py"), "--scale", "0.01",
                           "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(out.read_text())["ours"]["rows"]
    assert all(row["correct"] and row["gbps"] > 0 for row in rows.values()), rows

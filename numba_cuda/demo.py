"""``numba-cuda demo``: run a small sample kernel and say where it ran.

On a machine with an NVIDIA driver and GPU the kernels run on the GPU.
Without one the demo re-runs itself with ``NUMBA_ENABLE_CUDASIM=1`` so the
very same user code runs in the simulator, and it also compiles the kernel to
PTX with the real libNVVM when the toolkit is installed (no GPU needed for
that).  Exit status 0 means every result matched NumPy.
"""

import os
import subprocess
import sys

from numba import float64

from .common.env_flags import env_flag

HELP = "run a sample kernel on the GPU, or in the simulator when there is none"

N = 4096
THREADS = 128


def _kernels(cuda):
    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def block_sums(values, sums):
        # One partial sum per block: a tree reduction in shared memory.
        tile = cuda.shared.array(THREADS, dtype=float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        tile[tid] = values[i] if i < values.size else 0.0
        cuda.syncthreads()
        stride = THREADS // 2
        while stride > 0:
            if tid < stride:
                tile[tid] += tile[tid + stride]
            cuda.syncthreads()
            stride //= 2
        if tid == 0:
            sums[cuda.blockIdx.x] = tile[0]

    return saxpy, block_sums


def _where(cuda):
    if env_flag("NUMBA_ENABLE_CUDASIM", False):
        return "simulator", "NUMBA_ENABLE_CUDASIM=1: the pure-Python CUDA simulator"
    from .runtime.probe import probe_devices, probe_driver

    devices = probe_devices()
    if devices:
        dev = devices[0]
        return "gpu", f"GPU {dev['id']}: {dev['name']} (compute capability {dev['compute_capability']})"
    driver = probe_driver()
    return None, driver.get("error") or "the NVIDIA driver reports no CUDA device"


def _run(cuda, out):
    import numpy as np

    saxpy, block_sums = _kernels(cuda)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N)
    y = rng.standard_normal(N)
    blocks = (N + THREADS - 1) // THREADS

    d_out = cuda.device_array(N)
    saxpy[blocks, THREADS](2.5, cuda.to_device(x), cuda.to_device(y), d_out)
    got = d_out.copy_to_host()
    err1 = float(np.max(np.abs(got - (2.5 * x + y))))

    d_sums = cuda.device_array(blocks)
    block_sums[blocks, THREADS](cuda.to_device(x), d_sums)
    total = float(d_sums.copy_to_host().sum())
    err2 = abs(total - float(x.sum()))

    ok = err1 < 1e-12 and err2 < 1e-9
    print(f"saxpy over {N} elements: max |error| = {err1:.3g}", file=out)
    print(f"block sums with shared memory + syncthreads: |error| = {err2:.3g}", file=out)
    print("result: OK" if ok else "result: MISMATCH", file=out)
    return 0 if ok else 1


def _show_ptx(out):
    """Compile the saxpy kernel to PTX with the real libNVVM (no GPU needed)."""
    try:
        from numba import cuda

        saxpy, _ = _kernels(cuda)
        ptx, _ = cuda.compile_ptx(saxpy.py_func, (float64, float64[::1], float64[::1], float64[::1]))
    except Exception as exc:  # noqa: BLE001 - a demo reports, it does not crash
        print(f"(PTX compilation not available here: {type(exc).__name__}: {exc})", file=out)
        return
    header = [line for line in ptx.splitlines() if line.startswith((".version", ".target"))]
    print(f"saxpy compiled to PTX by libNVVM without a GPU: {' '.join(header)}, "
          f"{len(ptx.splitlines())} lines", file=out)


def add_arguments(parser):
    """The demo takes no options."""


def run(args=None, out=None):
    out = out or sys.stdout
    from numba import cuda

    where, detail = _where(cuda)
    if where is None:
        print(f"No GPU found: {detail}", file=out)
        _show_ptx(out)
        print("Re-running the sample kernels in the simulator (NUMBA_ENABLE_CUDASIM=1).", file=out)
        out.flush()
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
        return subprocess.call([sys.executable, "-m", "numba_cuda", "demo"], env=env)
    print(f"Running on: {detail}", file=out)
    return _run(cuda, out)

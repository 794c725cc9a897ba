"""The simulator's compiled mode against its Python mode, on 1e6-element kernels.

    python benchmarks/simulator_compiled.py [--n 1000000] [--repeat 3]

Runs each kernel under ``NUMBA_ENABLE_CUDASIM=1`` twice: as ``cuda.jit(sim_mode="python")``
kernels (the Python simulator) and as ``cuda.jit(sim_mode="compiled")`` kernels (the compiled
mode, the default),
checks that both give numpy's result, and prints the best time of each (the compiled time
excludes compiling: the first compiled launch compiles, and its compile time is printed apart),
and the ratio python/compiled.  Target: ratio >= 50 on every kernel (elementwise, grid-stride,
grid-stride with atomics, and a shared-memory stencil with a barrier).
"""

import argparse
import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ["NUMBA_CUDASIM_COMPILE_THRESHOLD"] = "0"  # compile at the first launch, timed apart

import numpy as np  # noqa: E402


def kernels(cuda, float32):
    def axpy(a, x, y, out):  # elementwise: one thread per element
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    def poly_grid_stride(x, out):  # grid-stride loop over the elements
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < x.size:
            v = x[i]
            out[i] = float32(3.0) * v * v - float32(2.0) * v + float32(1.0)
            i += stride

    def histogram(data, bins):  # grid-stride loop with atomics
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < data.size:
            cuda.atomic.add(bins, data[i] % bins.size, 1)
            i += stride

    TPB, R = 256, 3

    def stencil(x, out):  # shared tile with halo, one barrier
        tile = cuda.shared.array(TPB + 2 * R, float32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        n = x.size
        tile[t + R] = x[i] if i < n else 0
        if t < R:
            j = i - R
            tile[t] = x[j] if 0 <= j < n else 0
            k = i + TPB
            tile[t + TPB + R] = x[k] if k < n else 0
        cuda.syncthreads()
        if i < n:
            acc = float32(0)
            for d in range(-R, R + 1):
                acc += tile[t + R + d]
            out[i] = acc

    return axpy, poly_grid_stride, histogram, stencil


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()

    from numba import cuda, float32

    n = opts.n
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    data = rng.integers(0, 1 << 20, n).astype(np.int32)
    axpy, poly, hist, stencil = kernels(cuda, float32)
    padded = np.concatenate([np.zeros(3, np.float32), x, np.zeros(3, np.float32)])
    stencil_expected = sum(padded[3 + d: 3 + d + n] for d in range(-3, 4))
    tpb = 256
    cases = [
        ("elementwise axpy", axpy, ((n + tpb - 1) // tpb, tpb),
         lambda: (np.float32(2.0), x, y, np.zeros_like(x)), lambda args: args[3],
         np.float32(2.0) * x + y),
        ("grid-stride poly", poly, (160, tpb), lambda: (x, np.zeros_like(x)), lambda args: args[1],
         np.float32(3.0) * x * x - np.float32(2.0) * x + np.float32(1.0)),
        ("grid-stride histogram (atomics)", hist, (160, tpb),
         lambda: (data, np.zeros(64, np.int32)), lambda args: args[1],
         np.bincount(data % 64, minlength=64).astype(np.int32)),
        ("shared-tile stencil (barrier)", stencil, ((n + tpb - 1) // tpb, tpb),
         lambda: (x, np.zeros_like(x)), lambda args: args[1], stencil_expected),
    ]
    print(f"{'kernel':34s} {'python s':>9s} {'compiled s':>11s} {'compile s':>10s} {'ratio':>8s}")
    worst = None
    for name, fn, config, make, result, expected in cases:
        timings = {}
        compile_s = None
        for mode in ("python", "compiled"):
            kernel = cuda.jit(sim_mode=mode)(fn)
            launch = kernel[config]
            best = float("inf")
            repeats = 1 if mode == "python" else opts.repeat + 1
            for rep in range(repeats):
                args = make()
                start = time.perf_counter()
                launch(*args)
                elapsed = time.perf_counter() - start
                if not np.allclose(result(args), expected, rtol=1e-5):
                    sys.exit(f"{name} ({mode}): wrong result")
                if mode == "compiled" and rep == 0:
                    if kernel.sim_mode != "compiled" or kernel.sim_compiled_reason is not None:
                        sys.exit(f"{name}: not compiled ({kernel.sim_compiled_reason})")
                    compile_s = kernel.sim_compile_seconds
                    continue  # the first launch compiles
                if mode == "compiled" and kernel.sim_compile_seconds != compile_s:
                    sys.exit(f"{name}: compiled again")
                best = min(best, elapsed)
            timings[mode] = best
        ratio = timings["python"] / timings["compiled"]
        worst = ratio if worst is None else min(worst, ratio)
        print(f"{name:34s} {timings['python']:9.3f} {timings['compiled']:11.5f} {compile_s:10.3f} "
              f"{ratio:7.0f}x")
    print(f"\nslowest speed-up: {worst:.0f}x (target >= 50x)")
    return 0 if worst >= 50 else 1


if __name__ == "__main__":
    sys.exit(main())

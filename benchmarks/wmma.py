"""Tensor cores from Python: a cuda.wmma GEMM vs CuPy's matmul (cuBLAS).

    python benchmarks/wmma.py [--sizes 1024,2048,4096] [--repeat N] [--json FILE]

For each size n, multiplies two n x n float16 matrices into float32 with the tiled ``cuda.wmma``
kernel of docs/user/tensor-cores.rst (extended to stage tiles through shared memory) and with
``cupy.matmul`` on the same float16 inputs, and prints the best time of ``--repeat`` runs, the
TFLOP/s and each result's largest difference from a float64 product (on a sample of rows).
Without a GPU it says so and exits 0; without CuPy it measures the wmma kernel alone.
"""

import argparse
import json
import sys
import time

TILE = 16
WARPS_Y, WARPS_X = 2, 4          # warps per block: a 32 x 64 piece of c per block
BLOCK_K = 32                     # k per shared-memory stage


def gemm_kernel(cuda, np):
    """The benchmark's kernel: each warp computes a 16 x 16 tile of c; a block stages 32 x 32
    (a) and 32 x 64 (b) tiles through shared memory."""
    rows, cols = WARPS_Y * TILE, WARPS_X * TILE
    threads = WARPS_Y * WARPS_X * 32

    @cuda.jit
    def gemm(a, b, c):
        tid = cuda.threadIdx.x
        warp = tid // 32
        wy, wx = warp // WARPS_X, warp % WARPS_X
        block_row = cuda.blockIdx.y * rows
        block_col = cuda.blockIdx.x * cols
        sa = cuda.shared.array((rows, BLOCK_K), np.float16, alignment=32)
        sb = cuda.shared.array((BLOCK_K, cols), np.float16, alignment=32)
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, TILE, TILE, TILE, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, TILE, TILE, TILE, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, TILE, TILE, TILE, np.float32)
        cuda.wmma.fill_fragment(acc, 0.0)
        for k0 in range(0, a.shape[1], BLOCK_K):
            for i in range(tid, rows * BLOCK_K, threads):
                sa[i // BLOCK_K, i % BLOCK_K] = a[block_row + i // BLOCK_K, k0 + i % BLOCK_K]
            for i in range(tid, BLOCK_K * cols, threads):
                sb[i // cols, i % cols] = b[k0 + i // cols, block_col + i % cols]
            cuda.syncthreads()
            for kk in range(0, BLOCK_K, TILE):
                cuda.wmma.load_matrix_sync(fa, sa[wy * TILE:, kk:], BLOCK_K)
                cuda.wmma.load_matrix_sync(fb, sb[kk:, wx * TILE:], cols)
                cuda.wmma.mma_sync(acc, fa, fb, acc)
            cuda.syncthreads()
        cuda.wmma.store_matrix_sync(c[block_row + wy * TILE:, block_col + wx * TILE:], acc,
                                    c.shape[1], cuda.wmma.mem_row_major)

    def launch(a, b, c):
        n = a.shape[0]
        gemm[(n // cols, n // rows), threads](a, b, c)

    launch.kernel = gemm
    return launch


def _best(fn, sync, repeat):
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def _error(result, a, b, rows):
    import numpy as np

    exact = a[rows].astype(np.float64) @ b.astype(np.float64)
    return float(np.abs(np.asarray(result)[rows].astype(np.float64) - exact).max())


def measure(sizes, repeat=5):
    """``{"n": {"wmma_s", "wmma_tflops", "wmma_max_error", "cupy_s", ...}}``; CuPy's entries are
    missing (and ``"cupy"`` says why) without CuPy."""
    import numpy as np
    from numba import cuda

    try:
        import cupy
    except ImportError as exc:
        cupy, why = None, f"CuPy is not installed ({exc})"
    launch = gemm_kernel(cuda, np)
    name = cuda.get_current_device().name
    results = {"device": name.decode() if isinstance(name, bytes) else str(name)}
    if cupy is None:
        results["cupy"] = why
    rng = np.random.default_rng(0)
    for n in sizes:
        a = rng.standard_normal((n, n)).astype(np.float16)
        b = rng.standard_normal((n, n)).astype(np.float16)
        rows = rng.choice(n, size=min(n, 32), replace=False)
        flops = 2.0 * n ** 3
        da, db = cuda.to_device(a), cuda.to_device(b)
        dc = cuda.device_array((n, n), np.float32)
        t = _best(lambda: launch(da, db, dc), cuda.synchronize, repeat)
        entry = {"wmma_s": t, "wmma_tflops": flops / t / 1e12,
                 "wmma_max_error": _error(dc.copy_to_host(), a, b, rows)}
        if cupy is not None:
            ca, cb = cupy.asarray(a), cupy.asarray(b)
            holder = {}

            def cupy_matmul():
                holder["c"] = cupy.matmul(ca, cb)

            t = _best(cupy_matmul, cupy.cuda.Device().synchronize, repeat)
            entry.update({"cupy_s": t, "cupy_tflops": flops / t / 1e12,
                          "cupy_max_error": _error(cupy.asnumpy(holder["c"]), a, b, rows),
                          "cupy_result_dtype": str(holder["c"].dtype)})
        results[str(n)] = entry
    return results


def gpu_unavailable_reason():
    """None with a usable GPU, else why not."""
    try:
        from numba import cuda

        if not cuda.is_available():
            return "no CUDA GPU is available (numba.cuda.is_available() is False)"
    except Exception as exc:  # noqa: BLE001 - any failure to reach a GPU is reported, not raised
        return f"no CUDA GPU is available ({exc})"
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048,4096",
                        help="matrix sizes, multiples of 64 (default: 1024,2048,4096)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    bad = [n for n in sizes if n % 64]
    if bad:
        parser.error(f"sizes must be multiples of 64, not {bad}")
    reason = gpu_unavailable_reason()
    if reason:
        print(f"benchmarks/wmma.py: skipped: {reason}")
        return 0
    results = measure(sizes, args.repeat)
    print(f"device: {results['device']}")
    if "cupy" in results:
        print(f"cupy: {results['cupy']}")
    print(f"{'n':>6}  {'wmma ms':>9}  {'TFLOP/s':>8}  {'cupy ms':>9}  {'TFLOP/s':>8}  {'wmma err':>9}  {'cupy err':>9}")
    for n in sizes:
        e = results[str(n)]
        cupy_ms = f"{e['cupy_s'] * 1e3:9.3f}" if "cupy_s" in e else f"{'-':>9}"
        cupy_tf = f"{e['cupy_tflops']:8.1f}" if "cupy_s" in e else f"{'-':>8}"
        cupy_err = f"{e['cupy_max_error']:9.2e}" if "cupy_s" in e else f"{'-':>9}"
        print(f"{n:>6}  {e['wmma_s'] * 1e3:9.3f}  {e['wmma_tflops']:8.1f}  {cupy_ms}  {cupy_tf}  "
              f"{e['wmma_max_error']:9.2e}  {cupy_err}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

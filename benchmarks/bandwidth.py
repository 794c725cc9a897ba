"""End-to-end kernels on the GPU: achieved memory bandwidth against the device's peak.

    python benchmarks/bandwidth.py [--reference DIR] [--json FILE] [--scale F]
    python benchmarks/bandwidth.py --check          (no GPU: the kernels' answers, in the simulator)

Three kernels that are bound by memory traffic, as users write them:

- ``saxpy``: ``y[i] = a * x[i] + y[i]`` over 1e8 float32 (grid-stride loop), 12 bytes an element;
- ``reduction``: the sum of 1e8 float32, a shared-memory tree per block and one atomic add per
  block, 4 bytes an element;
- ``transpose``: an 8192 x 8192 float32 matrix through 32 x 33 shared tiles, 8 bytes an element;

and, as the ceiling a kernel can hope for, a device-to-device copy of the saxpy operand.  Each is
timed with CUDA events (best of ``REPEATS`` after a warm-up launch, so compilation is not timed)
and checked against NumPy.  Bandwidth is bytes moved over time; the peak is the theoretical
``2 x memory clock x bus width`` from the device attributes.  ``--reference DIR`` runs the same
kernels with NVIDIA's numba-cuda (a folder holding its package, as for ``benchmarks/launch.py``)
in its own process, and prints its time over ours.  Without a GPU it says why and exits 0.
``--scale`` shrinks the problem sizes (``--scale 0.01`` for a quick look).
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from implementations import run_child  # noqa: E402

SAXPY_N = 100_000_000
REDUCE_N = 100_000_000
TRANSPOSE_N = 8192
TILE = 32
TILE_PADDED = 33  # one more column: the column reads of a tile hit 32 different banks
BLOCK = 256
REPEATS = 5


def make_kernels(cuda):
    from numba import float32

    @cuda.jit
    def saxpy(a, x, y):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            y[i] = a * x[i] + y[i]

    @cuda.jit
    def block_sum(x, out):
        partial = cuda.shared.array(BLOCK, float32)
        tid = cuda.threadIdx.x
        acc = float32(0)
        for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
            acc += x[i]
        partial[tid] = acc
        cuda.syncthreads()
        width = BLOCK // 2
        while width > 0:
            if tid < width:
                partial[tid] += partial[tid + width]
            cuda.syncthreads()
            width //= 2
        if tid == 0:
            cuda.atomic.add(out, 0, partial[0])

    @cuda.jit
    def transpose(src, dst):
        tile = cuda.shared.array((TILE, TILE_PADDED), float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x = cuda.blockIdx.x * TILE + tx
        y = cuda.blockIdx.y * TILE + ty
        if y < src.shape[0] and x < src.shape[1]:
            tile[ty, tx] = src[y, x]
        cuda.syncthreads()
        x = cuda.blockIdx.y * TILE + tx
        y = cuda.blockIdx.x * TILE + ty
        if y < dst.shape[0] and x < dst.shape[1]:
            dst[y, x] = tile[tx, ty]

    return saxpy, block_sum, transpose


def _timer(cuda, on_gpu):
    """A function timing ``launch()`` in seconds: CUDA events on the GPU, the wall clock else."""
    if on_gpu:
        def timed(launch):
            start, stop = cuda.event(timing=True), cuda.event(timing=True)
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            return cuda.event_elapsed_time(start, stop) / 1e3
        return timed

    import time

    def timed(launch):
        t0 = time.perf_counter()
        launch()
        cuda.synchronize()
        return time.perf_counter() - t0
    return timed


def _best(timed, launch, repeats):
    launch()  # compile and warm up
    return min(timed(launch) for _ in range(repeats))


def run_set(cuda, scale=1.0, repeats=REPEATS, on_gpu=True):
    """Run, time and check the three kernels and the copy; one row per kernel."""
    saxpy, block_sum, transpose = make_kernels(cuda)
    timed = _timer(cuda, on_gpu)
    rng = np.random.default_rng(0)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT if on_gpu else 2
    grid = sms * 32
    rows = {}

    n = max(BLOCK, int(SAXPY_N * scale))
    x = rng.random(n, dtype=np.float32)
    y0 = rng.random(n, dtype=np.float32)
    d_x, d_y = cuda.to_device(x), cuda.to_device(y0)
    a = np.float32(2.5)
    seconds = _best(timed, lambda: saxpy[grid, BLOCK](a, d_x, d_y), repeats)
    expect = y0.copy()
    for _ in range(repeats + 1):
        expect = a * x + expect
    got = d_y.copy_to_host()
    rows["saxpy"] = _row(12 * n, seconds, np.allclose(got, expect, rtol=1e-5), f"n={n}")

    d_copy = cuda.device_array_like(d_x)
    seconds = _best(timed, lambda: d_copy.copy_to_device(d_x), repeats)
    rows["device copy"] = _row(8 * n, seconds, bool(np.array_equal(d_copy.copy_to_host(), x)),
                               f"n={n}")

    n = max(BLOCK, int(REDUCE_N * scale))
    x = rng.random(n, dtype=np.float32)
    d_x, d_out = cuda.to_device(x), cuda.device_array(1, np.float32)

    def reduce_once():
        d_out.copy_to_device(np.zeros(1, np.float32))
        block_sum[grid, BLOCK](d_x, d_out)
    seconds = _best(timed, reduce_once, repeats)
    total = float(d_out.copy_to_host()[0])
    exact = float(x.sum(dtype=np.float64))
    rows["reduction"] = _row(4 * n, seconds, math.isclose(total, exact, rel_tol=1e-4), f"n={n}")

    side = max(TILE, int(TRANSPOSE_N * math.sqrt(scale)) // TILE * TILE)
    m = rng.random((side, side), dtype=np.float32)
    d_m, d_t = cuda.to_device(m), cuda.device_array((side, side), np.float32)
    blocks = (side // TILE, side // TILE)
    seconds = _best(timed, lambda: transpose[blocks, (TILE, TILE)](d_m, d_t), repeats)
    rows["transpose"] = _row(8 * side * side, seconds, bool(np.array_equal(d_t.copy_to_host(), m.T)),
                             f"{side}x{side}")
    return rows


def _row(nbytes, seconds, ok, size):
    return {"bytes": nbytes, "seconds": seconds, "gbps": nbytes / seconds / 1e9, "correct": bool(ok),
            "size": size}


def peak_bandwidth(memory_clock_khz, bus_width_bits):
    """Theoretical peak in GB/s: double data rate x clock x bus width (None when unknown)."""
    if not memory_clock_khz or not bus_width_bits:
        return None
    return 2 * memory_clock_khz * 1e3 * bus_width_bits / 8 / 1e9


def measure(scale):
    from numba import cuda

    dev = cuda.get_current_device()
    try:
        peak = peak_bandwidth(dev.MEMORY_CLOCK_RATE, dev.GLOBAL_MEMORY_BUS_WIDTH)
    except Exception as exc:  # an attribute a driver no longer reports
        peak, why = None, f"{type(exc).__name__}: {exc}"
    else:
        why = None if peak else "the driver reports no memory clock or bus width"
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    return {"module": cuda.__file__, "device": name, "peak_gbps": peak, "peak_unknown": why,
            "rows": run_set(cuda, scale)}


def print_table(ours, reference):
    peak = ours["peak_gbps"]
    print(f"device: {ours['device']}; theoretical peak "
          + (f"{peak:.0f} GB/s" if peak else f"unknown ({ours['peak_unknown']})"))
    head = f"{'kernel':<12} {'size':>12} {'GB/s':>9} {'% of peak':>10} {'correct':>8}"
    if reference is not None:
        head += f" {'reference GB/s':>15} {'ref time / ours':>16}"
    print(head)
    for name, row in ours["rows"].items():
        pct = f"{100 * row['gbps'] / peak:.1f}" if peak else "-"
        line = f"{name:<12} {row['size']:>12} {row['gbps']:>9.1f} {pct:>10} {str(row['correct']):>8}"
        if reference is not None:
            ref = reference.get("rows", {}).get(name)
            line += (f" {ref['gbps']:>15.1f} {ref['seconds'] / row['seconds']:>15.2f}x" if ref
                     else f" {'-':>15} ({reference.get('error', 'not measured')})")
        print(line)


def check_in_simulator():
    """The kernels' answers at small sizes in the simulator (for CI: no GPU needed)."""
    from numba import cuda

    if not cuda.is_available() or type(cuda.get_current_device()).__module__.split(".")[1] != "simulator":
        print("--check runs in the simulator: import numba.cuda before setting "
              "NUMBA_ENABLE_CUDASIM=1 cannot switch it")
        return 1
    rows = run_set(cuda, scale=1e-5, repeats=1, on_gpu=False)
    print(json.dumps({name: row["correct"] for name, row in rows.items()}))
    return 0 if all(row["correct"] for row in rows.values()) else 1


def _child(impl, scale):
    if impl == "reference":
        import _numba_cuda_redirector  # noqa: F401 - NVIDIA's, first on PYTHONPATH
    print("RESULT" + json.dumps(measure(scale)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="folder with NVIDIA's numba-cuda package")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--scale", type=float, default=1.0, help="problem-size factor (default 1)")
    parser.add_argument("--check", action="store_true",
                        help="check the kernels' answers in the simulator at small sizes")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.scale)
        return 0
    if args.check:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        return check_in_simulator()

    from numba_cuda.runtime.probe import probe_devices, probe_driver

    if not probe_devices():
        print(f"benchmarks/bandwidth.py needs a GPU: {probe_driver()['error'] or 'no CUDA device'}")
        return 0
    script = os.path.abspath(__file__)
    extra = ["--scale", str(args.scale)]
    ours = run_child(script, "ours", extra=extra)
    if "rows" not in ours:
        print(f"bandwidth benchmark failed: {ours['error']}")
        return 1
    reference = None
    if args.reference:
        reference = run_child(script, "reference", args.reference, extra=extra)
    print_table(ours, reference)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"ours": ours, "reference": reference}, fh, indent=1)
    return 0 if all(row["correct"] for row in ours["rows"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())

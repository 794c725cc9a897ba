"""Simulator speed: this package's simulator against NVIDIA's numba-cuda simulator.

    python benchmarks/simulator.py [--repeat 3] [--ours PYTHON] [--ref-venv DIR]
    python benchmarks/simulator.py --sanitizer [--repeat 3] [--ours PYTHON]

Runs the same kernels under ``NUMBA_ENABLE_CUDASIM=1`` with this package
(``--ours``, default: the running interpreter) and with NVIDIA's ``numba-cuda``
installed in a separate venv (``--ref-venv``, default ``benchmarks/.ref-venv``;
created with ``pip install numba-cuda[cu13]`` when absent, reused otherwise),
checks every result against numpy, and prints a table of the best time per
kernel and the ratio ours/reference.  Target: ratio <= 0.5 on every kernel.

``--sanitizer`` instead runs the same kernels in this package's simulator with the
sanitizer off and with ``NUMBA_CUDASIM_SANITIZE=all`` (which must report nothing on them:
a finding fails the worker), and prints the cost of sanitizing (on/off), plus the time of
an empty launch, which the sanitizer's hooks would slow down when off if they cost anything.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The kernels: plain numba.cuda code, run unchanged by both simulators.
WORKER = textwrap.dedent(
    r'''
    import json, sys, time
    import numpy as np
    from numba import cuda, float32, float64, int32

    REPEAT = int(sys.argv[1])
    TILE = 16

    @cuda.jit
    def matmul_tiled(A, B, C):
        sA = cuda.shared.array((TILE, TILE), float32)
        sB = cuda.shared.array((TILE, TILE), float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        acc = float32(0.0)
        for t in range((A.shape[1] + TILE - 1) // TILE):
            sA[ty, tx] = 0
            sB[ty, tx] = 0
            if y < A.shape[0] and t * TILE + tx < A.shape[1]:
                sA[ty, tx] = A[y, t * TILE + tx]
            if x < B.shape[1] and t * TILE + ty < B.shape[0]:
                sB[ty, tx] = B[t * TILE + ty, x]
            cuda.syncthreads()
            for k in range(TILE):
                acc += sA[ty, k] * sB[k, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = acc

    RTPB = 128

    @cuda.jit
    def sum_atomic(values, total):
        buf = cuda.shared.array(RTPB, float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[tid] = values[i] if i < values.size else 0.0
        cuda.syncthreads()
        s = RTPB // 2
        while s > 0:
            if tid < s:
                buf[tid] += buf[tid + s]
            cuda.syncthreads()
            s //= 2
        if tid == 0:
            cuda.atomic.add(total, 0, buf[0])

    @cuda.jit
    def histogram(data, bins):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < data.size:
            cuda.atomic.add(bins, data[i] % bins.size, 1)
            i += stride

    STPB = 128
    R = 3

    @cuda.jit
    def stencil(x, out):
        tile = cuda.shared.array(STPB + 2 * R, float32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        n = x.size
        tile[t + R] = x[i] if i < n else 0
        if t < R:
            j = i - R
            tile[t] = x[j] if 0 <= j < n else 0
            k = i + STPB
            tile[t + STPB + R] = x[k] if k < n else 0
        cuda.syncthreads()
        if i < n:
            acc = float32(0.0)
            for d in range(-R, R + 1):
                acc += tile[t + R + d]
            out[i] = acc / (2 * R + 1)

    def run(name, fn):
        best = None
        ok = None
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            ok = fn()
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        print(json.dumps({"case": name, "seconds": best, "ok": bool(ok)}), flush=True)

    rng = np.random.default_rng(0)

    n = 48
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)

    def case_matmul():
        dC = cuda.device_array((n, n), np.float32)
        blocks = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
        matmul_tiled[blocks, (TILE, TILE)](cuda.to_device(A), cuda.to_device(B), dC)
        return np.allclose(dC.copy_to_host(), A @ B, rtol=1e-4)

    vals = rng.random(8192)

    def case_sum():
        total = cuda.to_device(np.zeros(1))
        sum_atomic[(vals.size + RTPB - 1) // RTPB, RTPB](cuda.to_device(vals), total)
        return np.isclose(total.copy_to_host()[0], vals.sum())

    data = rng.integers(0, 1 << 20, 8192).astype(np.int32)

    def case_hist():
        bins = cuda.to_device(np.zeros(64, np.int32))
        histogram[16, 128](cuda.to_device(data), bins)
        return np.array_equal(bins.copy_to_host(), np.bincount(data % 64, minlength=64))

    xs = rng.random(8192, dtype=np.float32)

    def case_stencil():
        out = cuda.device_array_like(xs)
        stencil[(xs.size + STPB - 1) // STPB, STPB](cuda.to_device(xs), out)
        padded = np.concatenate([np.zeros(R, np.float32), xs, np.zeros(R, np.float32)])
        expect = np.convolve(padded, np.ones(2 * R + 1), mode="valid") / (2 * R + 1)
        return np.allclose(out.copy_to_host(), expect, rtol=1e-4, atol=1e-5)

    run("tiled matmul 48x48, 16x16 tiles (shared, syncthreads)", case_matmul)
    run("sum 8192 (shared tree + atomic.add)", case_sum)
    run("histogram 8192 -> 64 bins (atomic.add)", case_hist)
    run("stencil 8192, radius 3 (shared halo)", case_stencil)

    if "--empty" in sys.argv:
        @cuda.jit
        def empty(a):
            pass

        tiny = np.zeros(1)

        def case_empty():
            for _ in range(2000):
                empty[1, 1](tiny)
            return True

        run("2000 launches of an empty kernel, 1 thread", case_empty)
    '''
)


def ensure_ref_venv(path):
    python = path / "bin" / "python"
    if python.exists():
        probe = subprocess.run([str(python), "-c", "import numba_cuda"], capture_output=True,
                               cwd=tempfile.gettempdir())
        if probe.returncode == 0:
            return python
    print(f"creating the reference venv {path} (pip install numba-cuda[cu13]) ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "numba-cuda[cu13]"], check=True)
    return python


def run_worker(python, repeat, label, extra_env=None, extra_args=()):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", **(extra_env or {}))
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "sim_bench_worker.py"
        script.write_text(WORKER)
        proc = subprocess.run([str(python), str(script), str(repeat), *extra_args], cwd=tmp,
                              env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{label} worker failed:\n{proc.stdout}\n{proc.stderr}")
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            results[row["case"]] = row
    return results


def which_numba_cuda(python):
    code = "import numba_cuda, importlib.metadata as m; print(m.version('numba-cuda'), numba_cuda.__file__)"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    return out.stdout.strip()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    # (paths made absolute: the workers run in a temporary directory; not resolved, a venv's
    # python being a symlink to its base interpreter)
    parser.add_argument("--ours", type=os.path.abspath, default=sys.executable,
                        help="python of a venv with this package")
    parser.add_argument("--ref-venv", type=os.path.abspath, default=str(HERE / ".ref-venv"))
    parser.add_argument("--sanitizer", action="store_true",
                        help="the cost of NUMBA_CUDASIM_SANITIZE=all instead (no reference)")
    args = parser.parse_args(argv)
    if args.sanitizer:
        return sanitizer_cost(args)

    ref_python = ensure_ref_venv(Path(args.ref_venv))
    print(f"ours:      {which_numba_cuda(args.ours)}")
    print(f"reference: {which_numba_cuda(ref_python)}")
    ours = run_worker(args.ours, args.repeat, "ours")
    ref = run_worker(ref_python, args.repeat, "reference")

    width = max(len(c) for c in ours) + 2
    print()
    print(f"{'kernel':<{width}}{'ours (s)':>10}{'ref (s)':>10}{'ours/ref':>10}  results")
    failed = False
    for case, row in ours.items():
        other = ref.get(case)
        ratio = row["seconds"] / other["seconds"] if other else float("nan")
        ok = row["ok"] and (other is None or other["ok"])
        failed |= not ok or not ratio <= 0.5
        status = "ok" if ok else "MISMATCH"
        print(f"{case:<{width}}{row['seconds']:>10.4f}{other['seconds'] if other else float('nan'):>10.4f}"
              f"{ratio:>10.3f}  {status}")
    print()
    print("target: ours/ref <= 0.5 on every kernel; " + ("NOT MET" if failed else "met"))
    return 1 if failed else 0


def sanitizer_cost(args):
    print(f"ours: {which_numba_cuda(args.ours)}")
    off_env = {"NUMBA_CUDASIM_SANITIZE": "0"}
    on_env = {"NUMBA_CUDASIM_SANITIZE": "all", "NUMBA_CUDASIM_SANITIZE_REPORT": "raise"}
    off = run_worker(args.ours, args.repeat, "sanitizer off", off_env, ["--empty"])
    on = run_worker(args.ours, args.repeat, "sanitizer on", on_env)
    width = max(len(c) for c in off) + 2
    print()
    print(f"{'kernel':<{width}}{'off (s)':>10}{'on (s)':>10}{'on/off':>10}  results")
    failed = False
    for case, row in off.items():
        other = on.get(case)
        ok = row["ok"] and (other is None or other["ok"])
        failed |= not ok
        on_s = other["seconds"] if other else float("nan")
        ratio = on_s / row["seconds"] if other else float("nan")
        print(f"{case:<{width}}{row['seconds']:>10.4f}{on_s:>10.4f}{ratio:>10.1f}  "
              f"{'ok' if ok else 'MISMATCH'}")
    print()
    print("the sanitizer found nothing on these kernels (a finding fails the run)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

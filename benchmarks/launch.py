"""Kernel launch overhead: numba-cuda vs NVIDIA's numba-cuda vs CuPy RawKernel (GPU only).

    python benchmarks/launch.py [--reference DIR] [--json FILE]

Measures the host time of one launch of an empty kernel, and the extra time
each device-array argument adds (kernels taking 0, 1, 4 and 8 arrays; the
slope of a least-squares fit).  Each implementation runs in its own
subprocess.  ``--reference DIR`` names a folder holding NVIDIA's numba-cuda
package (``numba_cuda/`` and its ``_numba_cuda_redirector.py``), e.g. a copy
taken before it was uninstalled; it is imported with ``python -S`` so this
checkout's redirector does not interfere.  Without a GPU it says so and
exits 0.  Targets (issue 4): <= 3 us per empty launch, <= 0.5 us per array
argument, and below the reference on both.
"""

import argparse
import json
import os
import site
import statistics
import subprocess
import sys
import time

ARG_COUNTS = (0, 1, 4, 8)
BATCH = 200      # launches per timed batch (well under the driver's launch queue depth)
BATCHES = 30


def _time_batches(launch, sync):
    for _ in range(50):
        launch()
    sync()
    per_launch = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(BATCH):
            launch()
        per_launch.append((time.perf_counter() - t0) / BATCH * 1e6)
        sync()
    return statistics.median(per_launch)


def measure_numba():
    import numpy as np
    from numba import cuda

    def kernels():
        @cuda.jit
        def k0():
            pass

        @cuda.jit
        def k1(a):
            pass

        @cuda.jit
        def k4(a, b, c, d):
            pass

        @cuda.jit
        def k8(a, b, c, d, e, f, g, h):
            pass
        return {0: k0, 1: k1, 4: k4, 8: k8}

    ks = kernels()
    arrays = [cuda.to_device(np.zeros(1, dtype=np.float32)) for _ in range(8)]
    times = {}
    for n, k in ks.items():
        args = tuple(arrays[:n])
        configured = k[1, 1]
        times[n] = _time_batches(lambda: configured(*args), cuda.synchronize)
    return {"module": getattr(cuda, "__file__", "?"), "times_us": times}


def measure_cupy():
    import cupy as cp

    src = r"""
    extern "C" __global__ void k0() {}
    extern "C" __global__ void k1(float* a) {}
    extern "C" __global__ void k4(float* a, float* b, float* c, float* d) {}
    extern "C" __global__ void k8(float* a, float* b, float* c, float* d,
                                  float* e, float* f, float* g, float* h) {}
    """
    module = cp.RawModule(code=src)
    arrays = [cp.zeros(1, dtype=cp.float32) for _ in range(8)]
    times = {}
    for n in ARG_COUNTS:
        k = module.get_function(f"k{n}")
        args = tuple(arrays[:n])
        times[n] = _time_batches(lambda: k((1,), (1,), args), cp.cuda.Device().synchronize)
    return {"module": cp.__file__, "times_us": times}


def _fit(times):
    xs = sorted(int(n) for n in times)
    ys = [times[n] if n in times else times[str(n)] for n in xs]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return ys[0], slope


def _child(impl):
    if impl == "reference":
        import _numba_cuda_redirector  # noqa: F401 - NVIDIA's, first on PYTHONPATH
    result = measure_cupy() if impl == "cupy" else measure_numba()
    print("RESULT" + json.dumps(result))


def _run_child(impl, reference=None):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    cmd = [sys.executable]
    cwd = os.path.dirname(os.path.abspath(__file__))
    if impl == "reference":
        # No site processing: this checkout's .pth (redirector / editable install) stays out.
        paths = [reference] + site.getsitepackages()
        env["PYTHONPATH"] = os.pathsep.join(paths)
        cmd.append("-S")
        cwd = "/"
    cmd += [os.path.abspath(__file__), "--child", impl]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {proc.returncode}"}
    return json.loads(lines[-1][6:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="folder with NVIDIA's numba-cuda package")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0

    from numba_cuda.runtime.probe import probe_devices, probe_driver

    if not probe_devices():
        print(f"benchmarks/launch.py needs a GPU: {probe_driver()['error'] or 'no CUDA device'}")
        return 0

    rows = {"numba-cuda (this)": _run_child("ours")}
    if args.reference:
        if os.path.isdir(os.path.join(args.reference, "numba_cuda")):
            rows["NVIDIA numba-cuda"] = _run_child("reference", args.reference)
        else:
            rows["NVIDIA numba-cuda"] = {"error": f"no numba_cuda package in {args.reference}"}
    try:
        import cupy  # noqa: F401

        rows["CuPy RawKernel"] = _run_child("cupy")
    except ImportError:
        rows["CuPy RawKernel"] = {"error": "cupy is not installed"}

    ours = rows["numba-cuda (this)"]
    base = _fit(ours["times_us"]) if "times_us" in ours else None
    print(f"{'implementation':<20} {'empty launch (us)':>18} {'per array arg (us)':>19} "
          f"{'ratio empty':>12} {'ratio per-arg':>14}")
    summary = {}
    for name, res in rows.items():
        if "times_us" not in res:
            print(f"{name:<20} {'-':>18} {'-':>19}   ({res['error']})")
            summary[name] = res
            continue
        empty, per_arg = _fit(res["times_us"])
        r_empty = f"{empty / base[0]:.2f}x" if base else "-"
        r_arg = f"{per_arg / base[1]:.2f}x" if base and base[1] > 0 else "-"
        print(f"{name:<20} {empty:>18.2f} {per_arg:>19.3f} {r_empty:>12} {r_arg:>14}")
        summary[name] = {"empty_us": empty, "per_array_arg_us": per_arg,
                         "times_us": res["times_us"], "module": res.get("module")}
    print("(ratios are the other implementation's time over this numba-cuda's; "
          "targets: empty <= 3 us, per array arg <= 0.5 us)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

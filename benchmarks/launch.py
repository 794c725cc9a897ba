"""Kernel launch overhead: numba-cuda vs NVIDIA's numba-cuda vs CuPy RawKernel.

    python benchmarks/launch.py [--reference DIR] [--json FILE]
    python benchmarks/launch.py --no-gpu [--json FILE]

Measures the host time of one launch of an empty kernel, and the extra time
each device-array argument adds (kernels taking 0, 1, 4 and 16 arrays; the
slope of a least-squares fit).

``--no-gpu`` measures this package's host-side launch path alone, on the fake
driver of the tests (``tests/support/fake_driver.py``) with ``cuLaunchKernel``
stubbed to return at once: the time from ``kernel[grid, block](args)`` to the
driver call (argument typing, kernel look-up, packing).  It needs no GPU and
compares with nothing; targets: <= 3 us empty, <= 0.5 us per array argument.  Each implementation runs in its own
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
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from implementations import run_child  # noqa: E402

ARG_COUNTS = (0, 1, 4, 16)
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
    return min(per_launch)  # the least-disturbed batch (as timeit advises for a loaded machine)


def _kernels(cuda):
    """An empty kernel per argument count, each taking that many float32 arrays."""
    out = {}
    for n in ARG_COUNTS:
        params = ", ".join(f"a{i}" for i in range(n))
        namespace = {}
        exec(f"def k{n}({params}):\n    pass\n", namespace)
        out[n] = cuda.jit(namespace[f"k{n}"])
    return out


def measure_numba(sync=None):
    import numpy as np
    from numba import cuda

    ks = _kernels(cuda)
    arrays = [cuda.to_device(np.zeros(1, dtype=np.float32)) for _ in range(max(ARG_COUNTS))]
    times = {}
    for n, k in ks.items():
        args = tuple(arrays[:n])
        configured = k[1, 1]
        times[n] = _time_batches(lambda: configured(*args), sync or cuda.synchronize)
    return {"module": getattr(cuda, "__file__", "?"), "times_us": times}


class _SetAttr:
    """What the fake driver's ``install`` needs of pytest's monkeypatch."""

    @staticmethod
    def setattr(obj, name, value):
        setattr(obj, name, value)


def measure_fake_driver():
    """This package's launch path on the tests' fake driver, the launch call itself stubbed."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    from tests.support.fake_driver import SUCCESS, FakeDriver

    from numba_cuda.runtime import launch

    fake = FakeDriver().install(_SetAttr())
    launch._linker_version = lambda: None  # the driver JIT path: PTX loaded as is
    fake.cuLaunchKernel = lambda *args: (SUCCESS,)
    fake.cuLaunchCooperativeKernel = lambda *args: (SUCCESS,)
    return measure_numba(sync=lambda: None)


def measure_cupy():
    import cupy as cp

    src = r"""
    extern "C" __global__ void k0() {}
    extern "C" __global__ void k1(float* a) {}
    extern "C" __global__ void k4(float* a, float* b, float* c, float* d) {}
    """ + "".join(
        f'extern "C" __global__ void k{n}({", ".join(f"float* a{i}" for i in range(n))}) {{}}\n'
        for n in (16,))
    module = cp.RawModule(code=src)
    arrays = [cp.zeros(1, dtype=cp.float32) for _ in range(max(ARG_COUNTS))]
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
    if impl == "fake":
        result = measure_fake_driver()
    else:
        result = measure_cupy() if impl == "cupy" else measure_numba()
    print("RESULT" + json.dumps(result))


def _run_child(impl, reference=None):
    return run_child(__file__, impl, reference)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", help="folder with NVIDIA's numba-cuda package")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--no-gpu", action="store_true",
                        help="this package's host-side launch path on the fake driver (no GPU)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    if args.no_gpu:
        return _report_fake(args.json)

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


def _report_fake(json_path):
    res = _run_child("fake")
    if "times_us" not in res:
        print(f"fake-driver launch benchmark failed: {res['error']}")
        return 1
    empty, per_arg = _fit(res["times_us"])
    print("host-side launch path, fake driver (cuLaunchKernel stubbed), this numba-cuda")
    print(f"{'arrays':>8} {'us per launch':>14}")
    for n in ARG_COUNTS:
        t = res["times_us"][n] if n in res["times_us"] else res["times_us"][str(n)]
        print(f"{n:>8} {t:>14.2f}")
    print(f"empty launch {empty:.2f} us (target <= 3 us), per array argument {per_arg:.3f} us "
          f"(target <= 0.5 us)")
    if json_path:
        with open(json_path, "w") as fh:
            json.dump({"empty_us": empty, "per_array_arg_us": per_arg,
                       "times_us": res["times_us"]}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

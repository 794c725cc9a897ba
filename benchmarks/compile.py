"""Compile-time benchmark: this package against NVIDIA's numba-cuda (not a test).

    python benchmarks/compile.py [--ours PYTHON] [--ref-venv DIR] [--repeat N] [--setup-only]

Creates (or reuses) a separate venv, ``benchmarks/.ref-venv`` (git-ignored), with NVIDIA's
``numba-cuda[cu13]`` from PyPI as the reference; our package runs in ``--ours`` (default: the
repository's ``.venv-cu13``).  Measured in fresh processes, for each side:

* ``from numba import cuda`` time (best of ``--repeat``);
* the first ``compile_ptx`` of a small kernel (import excluded, best of ``--repeat``);
* the total compile time of the test corpus (every ``tests/**/corpus_*.py`` entry, sm_90);
* ``ptxas -v -arch=sm_90`` registers and spill bytes per kernel (the same ptxas for both).

Prints a table with ratios (ours / reference).  Targets: times at most 0.5x the reference,
registers never above the reference, no spills.
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_REF = ROOT / "benchmarks" / ".ref-venv"
DEFAULT_OURS = ROOT / ".venv-cu13" / "bin" / "python"
CC = (9, 0)

IMPORT_SNIPPET = """
import time
t0 = time.perf_counter()
from numba import cuda
print(time.perf_counter() - t0)
"""

FIRST_COMPILE_SNIPPET = """
import time
from numba import cuda, float32, void

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

t0 = time.perf_counter()
cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
print(time.perf_counter() - t0)
"""

CORPUS_SNIPPET = """
import importlib.util, json, pathlib, sys, time
from numba import cuda

root, outdir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
entries = []
for path in sorted((root / "tests").rglob("corpus_*.py")):
    spec = importlib.util.spec_from_file_location("bench_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entries += [(f"{path.stem}::{name}", fn, sig, dev) for name, fn, sig, dev in module.CORPUS]
results = {}
total = 0.0
for name, fn, sig, dev in entries:
    t0 = time.perf_counter()
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, device=dev, cc=(9, 0))
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}
        continue
    dt = time.perf_counter() - t0
    total += dt
    fname = outdir / (name.replace(":", "_") + ".ptx")
    fname.write_text(ptx)
    results[name] = {"time": dt, "ptx": str(fname), "device": dev}
print(json.dumps({"total": total, "entries": results}))
"""


def run(python, code, *args, timeout=1800):
    # -P and a neutral cwd: the repository's numba_cuda/ must never shadow the reference's.
    proc = subprocess.run([str(python), "-P", "-c", textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir(),
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if proc.returncode != 0:
        raise RuntimeError(f"{python} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout.strip().splitlines()[-1]


def ensure_reference(ref_venv, base_python):
    python = ref_venv / "bin" / "python"
    if python.exists():
        probe = subprocess.run([str(python), "-P", "-c", "import numba_cuda, numba.cuda"],
                               capture_output=True, text=True, cwd=tempfile.gettempdir())
        if probe.returncode == 0:
            return python
    print(f"creating the reference venv {ref_venv} with NVIDIA's numba-cuda[cu13] ...", flush=True)
    subprocess.run([base_python, "-m", "venv", str(ref_venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "numba-cuda[cu13]"], check=True)
    return python


def ptxas_stats(ptxas, ptx_path):
    proc = subprocess.run([ptxas, "-v", f"-arch=sm_{CC[0]}{CC[1]}", "-o", os.devnull, ptx_path],
                          capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        return {"error": text.strip().splitlines()[-1] if text.strip() else "ptxas failed"}
    regs = [int(m) for m in re.findall(r"Used (\d+) registers", text)]
    spills = [int(a) + int(b) for a, b in
              re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)]
    return {"regs": max(regs) if regs else None, "spills": sum(spills)}


def best(python, snippet, repeat):
    return min(float(run(python, snippet)) for _ in range(repeat))


def measure(python, repeat, ptxas):
    out = {"import": best(python, IMPORT_SNIPPET, repeat),
           "first_compile": best(python, FIRST_COMPILE_SNIPPET, repeat)}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = json.loads(run(python, CORPUS_SNIPPET, ROOT, tmp))
        for entry in corpus["entries"].values():
            if "ptx" in entry:
                entry.update(ptxas_stats(ptxas, entry["ptx"]))
    out["corpus_total"] = corpus["total"]
    out["entries"] = corpus["entries"]
    return out


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", default=str(DEFAULT_OURS if DEFAULT_OURS.exists() else sys.executable))
    parser.add_argument("--ref-venv", default=str(DEFAULT_REF))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--json", help="also write the raw results to this file")
    args = parser.parse_args(argv)

    ref_python = ensure_reference(pathlib.Path(args.ref_venv), sys.executable)
    if args.setup_only:
        return 0
    ptxas = run(args.ours, "from numba_cuda import toolkit; print(toolkit.ptxas_path())")
    where = run(ref_python, "import numba_cuda; print(numba_cuda.__file__)")
    if str(ROOT / "numba_cuda") in where:
        raise RuntimeError(f"the reference venv imports this repository's numba_cuda ({where})")
    results = {"ours": measure(args.ours, args.repeat, ptxas),
               "reference": measure(ref_python, args.repeat, ptxas)}
    ours, ref = results["ours"], results["reference"]

    print(f"\nCompile benchmark (sm_{CC[0]}{CC[1]}; ptxas {ptxas}; best of {args.repeat} for times)")
    print(f"{'measure':<34}{'ours':>12}{'reference':>12}{'ratio':>9}")
    for key, label in (("import", "from numba import cuda [s]"),
                       ("first_compile", "first compile_ptx [s]"),
                       ("corpus_total", "corpus compile total [s]")):
        print(f"{label:<34}{ours[key]:>12.3f}{ref[key]:>12.3f}{ratio(ours[key], ref[key]):>9}")

    print(f"\n{'kernel (registers / spill bytes)':<52}{'ours':>10}{'ref':>10}{'ratio':>8}")
    worse, spilled, failed = [], [], []
    for name in sorted(set(ours["entries"]) | set(ref["entries"])):
        o = ours["entries"].get(name, {})
        r = ref["entries"].get(name, {})
        if "error" in o:
            failed.append(f"ours {name}: {o['error']}")
        if "error" in r:
            failed.append(f"reference {name}: {r['error']}")
        if o.get("device") or r.get("device"):
            continue  # device functions: no .entry, ptxas reports no registers
        orr, rr = o.get("regs"), r.get("regs")
        cell = lambda e: f"{e['regs']}/{e['spills']}" if e.get("regs") is not None else "-"  # noqa: E731
        print(f"{name[:51]:<52}{cell(o):>10}{cell(r):>10}{ratio(orr, rr):>8}")
        if orr is not None and rr is not None and orr > rr:
            worse.append(name)
        if o.get("spills"):
            spilled.append(name)
    print(f"\nkernels with more registers than the reference: {len(worse)} {worse if worse else ''}")
    print(f"kernels with spills (ours): {len(spilled)} {spilled if spilled else ''}")
    for line in failed:
        print("compile failure:", line)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

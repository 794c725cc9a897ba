"""Warm on-disk cache benchmark: how long a process takes to find every kernel of the compiler
corpus in the cache, against compiling them (not a test).

    python benchmarks/cache.py [--repeat N] [--json FILE]

For each repeat, with a fresh ``NUMBA_CACHE_DIR``: a fresh process compiles every kernel of the
corpus (``tests/**/corpus_*.py``, eager signatures, ``cache=True``) until each is *ready to
load* (its PTX for the default compute capability exists) -- the cold time -- and then a second
fresh process does the same with the cache warm.  Both time only that loop (imports excluded),
and count the calls to Numba's front end (``CompilerBase._compile_core``) and to libNVVM
(``cuda.bindings.nvvm.compile_program``).  Self-ratio, no reference and no GPU needed.
Targets: warm <= 0.10x cold, and no front-end or libNVVM call in the warm process.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from compile import LOAD_CORPUS  # noqa: E402 - the corpus loader both benchmarks share

SNIPPET = """
import importlib.util, json, pathlib, sys, time
from numba import cuda
from numba.core import compiler
from cuda.bindings import nvvm

root = pathlib.Path(sys.argv[1])
counts = {"front_end": 0, "nvvm": 0}

def counting(owner, attr, key):
    original = getattr(owner, attr)
    def wrapper(*args, **kwargs):
        counts[key] += 1
        return original(*args, **kwargs)
    setattr(owner, attr, wrapper)

counting(compiler.CompilerBase, "_compile_core", "front_end")
counting(nvvm, "compile_program", "nvvm")
# <LOAD_CORPUS>
kernels = [(name, fn, sig) for name, fn, sig, dev in entries if not dev]
t0 = time.perf_counter()
ready = 0
for name, fn, sig in kernels:
    try:
        dispatcher = cuda.jit(sig, cache=True)(fn)
    except Exception:
        continue
    for kernel in dispatcher.overloads.values():
        kernel.image()          # the PTX the runtime loads
        ready += 1
elapsed = time.perf_counter() - t0
print(json.dumps({"seconds": elapsed, "ready": ready, **counts}))
""".replace("# <LOAD_CORPUS>", LOAD_CORPUS)


def run_once(python, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONWARNINGS="ignore")
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([str(python), "-c", SNIPPET, str(ROOT)], capture_output=True,
                          text=True, env=env, cwd=tempfile.gettempdir(), timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(python, repeat):
    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold.append(run_once(python, cache_dir))
            warm.append(run_once(python, cache_dir))
    return cold, warm


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # (absolute: the measured processes run in the temporary directory; not resolved, a venv's
    # python being a symlink to its base interpreter)
    parser.add_argument("--python", type=os.path.abspath, default=sys.executable)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    cold, warm = measure(args.python, args.repeat)
    c = statistics.median(r["seconds"] for r in cold)
    w = statistics.median(r["seconds"] for r in warm)
    print(f"warm-cache benchmark: {cold[0]['ready']} corpus kernels, medians of {args.repeat} "
          "fresh processes each")
    print(f"{'process':<34}{'seconds':>9}{'front end':>11}{'libNVVM':>9}")
    print(f"{'cold (empty cache, compiles)':<34}{c:>9.3f}{cold[0]['front_end']:>11}"
          f"{cold[0]['nvvm']:>9}")
    print(f"{'warm (every kernel cached)':<34}{w:>9.3f}{max(r['front_end'] for r in warm):>11}"
          f"{max(r['nvvm'] for r in warm):>9}")
    print(f"warm / cold = {w / c:.3f}x (target <= 0.10x; no front-end or libNVVM call when warm)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"cold": cold, "warm": warm}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

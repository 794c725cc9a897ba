"""Compile-time benchmark: this package against NVIDIA's numba-cuda (not a test).

    python benchmarks/compile.py [--ours PYTHON] [--ref-venv DIR] [--repeat N] [--setup-only]

Creates (or reuses) a separate venv, ``benchmarks/.ref-venv`` (git-ignored), with NVIDIA's
``numba-cuda[cu13]`` from PyPI as the reference, and a second one, ``benchmarks/.venv-ours``,
that mirrors it for this package: the checkout installed as a wheel (``pip install .[cu13]``,
re-installed on every run so that it measures the current sources), every dependency the two
share pinned to the version the reference venv has (numba, llvmlite, numpy, cuda-bindings, the
NVIDIA wheels ...), and nothing else: no test or docs extras (PyYAML, which ``import numba``
imports when it is present, costs ~10 ms).  ``--ours PYTHON`` measures another interpreter
instead.  Measured in fresh processes, for each side:

* ``from numba import cuda`` time (median of ``--repeat`` processes), timed inside the process
  and as the whole process (``python -P -c "from numba import cuda"``, start-up included):
  work a package's ``.pth`` file does at interpreter start-up (every Python process in that
  environment pays it) is outside the first number and inside the second; ``python -c pass``
  is shown too; and the package's own cost, the whole-process time of ``from numba import
  cuda`` minus that of ``import numba`` (median of the paired differences; target <= 5 ms);
* the first ``compile_ptx`` of a small kernel (import excluded, median of ``--repeat``), and
  beside it what importing ``cuda.bindings.nvvm`` the bindings' own way (with
  ``cuda.pathfinder``, whose import this package defers: ``toolkit.nvvm_bindings``) and loading
  libNVVM take, against the first-compile target's budget (the reference does that at ``from
  numba import cuda``, this package at its first compile: the sum of the two medians, import +
  first compile, is shown too);
* the total compile time of the test corpus (every ``tests/**/corpus_*.py`` entry, sm_90; median
  of ``--repeat`` processes), compared over the entries *both* sides compile (the reference
  cannot compile some without a driver);
* ``ptxas -v -arch=sm_90`` registers and spill bytes per kernel (the same ptxas for both);
* with ``--threads N``: the common corpus entries compiled by a pool of N threads, next to the
  same entries serially (each side; the first compile of the process excluded).
* with ``--first-breakdown``: where the first compile of a process goes, each side: the modules
  it imports, imported in a fresh process before compiling, timed by group (the standard
  library's, Numba's and llvmlite's, cuda-bindings' and cuda-pathfinder's, the package's own,
  in that order), then the same first compile with nothing left to import, and a second kernel
  of the same shape after it.

The two compile times are also taken as CPU time (``time.process_time``: every thread of the
process), which a machine busy with other work disturbs less than wall time; the targets are
judged on wall time.

The two sides' processes are interleaved, in alternating order (ours then the reference, then
the reference then ours ...), so that neither the machine's load drifting during the run nor
the position in a back-to-back pair favours either side.

Both packages are byte-compiled first (``compileall``), as ``pip install`` does for the
reference: an editable checkout under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise recompile its
sources in every process and measure the Python compiler, not ours.

Prints a table with ratios (ours / reference), then the two compile-time targets, each
measured against the reference in the same run: the first compile of a process at most
``FIRST_COMPILE_TARGET`` (0.25x) the reference's, the corpus at most ``CORPUS_TARGET`` (0.35x);
``--check`` makes the exit status say whether both are met.  Other targets: import at most 0.5x,
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
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_REF = ROOT / "benchmarks" / ".ref-venv"
DEFAULT_OURS_VENV = ROOT / "benchmarks" / ".venv-ours"
CC = (9, 0)
#: compile-time targets, as ratios ours / reference measured in one run (issue #22)
FIRST_COMPILE_TARGET = 0.25
CORPUS_TARGET = 0.35

IMPORT_SNIPPET = """
import time
t0 = time.perf_counter()
from numba import cuda
print(time.perf_counter() - t0)
"""

# The small kernel of every first-compile snippet (``# <FIRST_KERNEL>`` in them).
FIRST_KERNEL = """
def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1
"""

FIRST_COMPILE_SNIPPET = """
import time
from numba import cuda, float32, void

# <FIRST_KERNEL>

t0, c0 = time.perf_counter(), time.process_time()
cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
print(time.perf_counter() - t0, time.process_time() - c0)
"""

# What a first compile through cuda-bindings pays before compiling anything when it imports the
# bindings' NVVM module their own way (which imports cuda.pathfinder; this package defers that)
# and loads libNVVM (pathfinder finds the wheel's).
NVVM_FLOOR_SNIPPET = """
import time
from numba import cuda
t0 = time.perf_counter()
from cuda.bindings import nvvm
nvvm.version()
print(time.perf_counter() - t0)
"""

# Shared by the corpus snippets: ``entries`` = [(name, function, signature, device)] of every
# ``tests/**/corpus_*.py`` under ``root``.
LOAD_CORPUS = """
entries = []
for path in sorted((root / "tests").rglob("corpus_*.py")):
    spec = importlib.util.spec_from_file_location("bench_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: Numba looks kernels' modules up
    spec.loader.exec_module(module)
    entries += [(f"{path.stem}::{name}", fn, sig, dev) for name, fn, sig, dev in module.CORPUS]
"""

CORPUS_SNIPPET = """
import importlib.util, json, pathlib, sys, time
from numba import cuda

root, outdir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# <LOAD_CORPUS>
results = {}
total = 0.0
for name, fn, sig, dev in entries:
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, device=dev, cc=(9, 0))
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}
        continue
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    total += dt
    fname = outdir / (name.replace(":", "_") + ".ptx")
    fname.write_text(ptx)
    results[name] = {"time": dt, "cpu": cpu, "ptx": str(fname), "device": dev}
print(json.dumps({"total": total, "entries": results}))
"""

NUMBA_IMPORT_SNIPPET = """
import time
t0 = time.perf_counter()
import numba
print(time.perf_counter() - t0)
"""

# Where the corpus time goes, for either package: Numba's front-end passes (every top-level
# pass but the lowering/backend ones), the lowering pass, libNVVM, and the rest.  The entries
# to compile are given on the command line (the ones both sides compile).
BREAKDOWN_SNIPPET = """
import importlib, importlib.util, json, pathlib, sys, time
from numba import cuda

root, names = pathlib.Path(sys.argv[1]), set(sys.argv[2].split(","))
acc = {"front_end": 0.0, "lowering": 0.0, "nvvm": 0.0}
depth = [0]

def timed_pass(original):
    def run_pass(self, index, pss, state):
        depth[0] += 1
        t0 = time.perf_counter()
        try:
            return original(self, index, pss, state)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                name = pss.name()
                key = "lowering" if ("lowering" in name or "backend" in name) else "front_end"
                acc[key] += time.perf_counter() - t0
    return run_pass

for modname, clsname in (("numba.core.compiler_machinery", "PassManager"),
                          ("numba.cuda.core.compiler_machinery", "PassManager"),
                          ("numba_cuda.compiler.pass_manager", "CUDAPassManager")):
    try:
        module = importlib.import_module(modname)
    except ImportError:
        continue
    cls = getattr(module, clsname, None)
    if cls is not None and "_runPass" in vars(cls):
        cls._runPass = timed_pass(cls._runPass)

def timed(owner, attr):
    original = getattr(owner, attr)
    def call(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            acc["nvvm"] += time.perf_counter() - t0
    setattr(owner, attr, call)

nvvm = importlib.import_module("numba.cuda.cudadrv.nvvm")
if hasattr(nvvm, "CompilationUnit"):      # NVIDIA's numba-cuda
    timed(nvvm.CompilationUnit, "compile")
else:                                     # this package
    timed(importlib.import_module("numba_cuda.compiler.nvvm"), "compile_ir")

# <LOAD_CORPUS>
total = 0.0
for name, fn, sig, dev in entries:
    if name in names:
        t0 = time.perf_counter()
        cuda.compile_ptx(fn, sig, device=dev, cc=(9, 0))
        total += time.perf_counter() - t0
acc["total"] = total
print(json.dumps(acc))
"""

# The common corpus entries (names on the command line) compiled by a pool of N threads, after
# one serial compile (the process's first, excluded), and the same entries serially in a
# second process: how much each package gains from compiling on threads.
THREADS_SNIPPET = """
import importlib.util, json, pathlib, sys, time
from concurrent.futures import ThreadPoolExecutor
from numba import cuda

root, names, threads = pathlib.Path(sys.argv[1]), sys.argv[2].split(","), int(sys.argv[3])
# <LOAD_CORPUS>
chosen = [e for e in entries if e[0] in set(names)]
first, rest = chosen[0], chosen[1:]
compile_one = lambda e: cuda.compile_ptx(e[1], e[2], device=e[3], cc=(9, 0))
compile_one(first)
t0 = time.perf_counter()
if threads > 1:
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(compile_one, rest))
else:
    for e in rest:
        compile_one(e)
print(time.perf_counter() - t0)
"""

# The first compile of a process: the modules it imports (printed as JSON).
FIRST_MODULES_SNIPPET = """
import json, sys
from numba import cuda, float32, void

# <FIRST_KERNEL>

before = set(sys.modules)
cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
# (not the modules made without an import, such as Cython's shared ``_cython_3_x``: no spec)
print(json.dumps([m for m, module in list(sys.modules.items())
                  if m not in before and getattr(module, "__spec__", None) is not None]))
"""

# In a fresh process, the modules a first compile imports (argv[1]: JSON lists, one per group,
# in the order imported here: what a group imports from the groups before it is already
# there), each group timed; then the same first compile with nothing left to import, and a
# second kernel of the same shape.
FIRST_AFTER_IMPORTS_SNIPPET = """
import contextlib, gc, json, sys, time
from numba import cuda, float32, void

# A package that imports cuda.bindings.nvvm without cuda-pathfinder (this one: the first compile
# imports no cuda.pathfinder module) does it here too, or importing the bindings' modules one
# by one would import cuda-pathfinder with them (numba_cuda.toolkit is imported for that before
# the groups are timed: about a millisecond less in the package's own group)
try:
    from numba_cuda.toolkit.nvvm_bindings import pathfinder_deferred
except ImportError:
    pathfinder_deferred = None

groups, failed = [], 0
gc.disable()  # the imports' own work, not the collections that happen to land in one group
for names in json.loads(sys.argv[1]):
    defer = (pathfinder_deferred is not None and "cuda.bindings.nvvm" in names
             and "cuda.pathfinder" not in names)
    with pathfinder_deferred() if defer else contextlib.nullcontext():
        t0 = time.perf_counter()
        for name in names:
            try:
                __import__(name)
            except Exception:
                failed += 1
        groups.append(time.perf_counter() - t0)
gc.enable()

# <FIRST_KERNEL>

def add_two(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 2

sig = void(float32[::1], float32[::1])
t0 = time.perf_counter()
cuda.compile_ptx(add_one, sig, cc=(9, 0))
t1 = time.perf_counter()
cuda.compile_ptx(add_two, sig, cc=(9, 0))
t2 = time.perf_counter()
print(json.dumps({"groups": groups, "first": t1 - t0, "second": t2 - t1, "failed": failed}))
"""

#: The groups of the first-compile breakdown's imports, by a module's first name component, in
#: the order they are imported (each group's own dependencies come from the groups before it).
IMPORT_GROUPS = (("the standard library and others", None),
                 ("Numba's and llvmlite's", ("numba", "llvmlite")),
                 ("cuda-bindings' and cuda-pathfinder's", ("cuda",)),
                 ("the package's own", ("numba_cuda", "_numba_cuda_redirector")))


def import_group(module):
    """The index in IMPORT_GROUPS of ``module``'s group (``numba.cuda.*`` is the package's own:
    NVIDIA's modules are named so)."""
    if module == "numba.cuda" or module.startswith("numba.cuda."):
        return len(IMPORT_GROUPS) - 1
    top = module.split(".", 1)[0]
    for index, (_label, tops) in enumerate(IMPORT_GROUPS):
        if tops is not None and top in tops:
            return index
    return 0


def grouped(modules):
    """``modules`` (in import order) split by IMPORT_GROUPS, each list in the order given."""
    out = [[] for _ in IMPORT_GROUPS]
    for module in modules:
        out[import_group(module)].append(module)
    return out


def first_breakdown(pythons, repeat):
    """Medians over ``repeat`` rounds (sides interleaved) of FIRST_AFTER_IMPORTS_SNIPPET, given
    the modules FIRST_MODULES_SNIPPET saw a first compile import: ``{side: {...}}``."""
    runs = {side: [] for side in pythons}
    # what a first compile imports does not change from one process to the next
    groups = {side: grouped(json.loads(run(python, FIRST_MODULES_SNIPPET)))
              for side, python in pythons.items()}
    for index in range(repeat):
        for side, python in _alternating(pythons, index):
            runs[side].append(json.loads(run(python, FIRST_AFTER_IMPORTS_SNIPPET,
                                             json.dumps(groups[side]))))
    out = {}
    for side, got in runs.items():
        out[side] = {
            "imports": {label: (len(groups[side][i]),
                                statistics.median(r["groups"][i] for r in got))
                        for i, (label, _tops) in enumerate(IMPORT_GROUPS)},
            "first": statistics.median(r["first"] for r in got),
            "second": statistics.median(r["second"] for r in got),
            "failed": max(r["failed"] for r in got),
        }
    return out


def print_first_breakdown(got, first_compile):
    ours, ref = got["ours"], got["reference"]
    print(f"\nthe first compile_ptx, where it goes (medians){'ours':>26}{'ref':>9}{'ratio':>8}")
    print(f"  {'first compile_ptx (above)':<64}{first_compile['ours']:>8.3f}"
          f"{first_compile['reference']:>9.3f}")
    for label in ours["imports"]:
        (n_o, t_o), (n_r, t_r) = ours["imports"][label], ref["imports"][label]
        row = f"imports: {label} ({n_o:.0f} / {n_r:.0f} modules)"
        print(f"  {row:<64}{t_o:>8.3f}{t_r:>9.3f}"
              f"{ratio(t_o, t_r) if min(t_o, t_r) >= 1e-3 else '-':>8}")
    for key, label in (("first", "compiling it once nothing is left to import"),
                       ("second", "the next kernel of the same shape")):
        print(f"  {label:<64}{ours[key]:>8.3f}{ref[key]:>9.3f}{ratio(ours[key], ref[key]):>8}")
    print("  (the imports timed in a fresh process, group by group in this order, with the "
          "collector off, before the compile)")
    for side in got:
        if got[side]["failed"]:
            print(f"  ({side}: {got[side]['failed']} of the recorded modules failed to import "
                  "on their own)")


FIRST_COMPILE_SNIPPET, FIRST_MODULES_SNIPPET, FIRST_AFTER_IMPORTS_SNIPPET = (
    snippet.replace("# <FIRST_KERNEL>\n", FIRST_KERNEL.lstrip("\n"))
    for snippet in (FIRST_COMPILE_SNIPPET, FIRST_MODULES_SNIPPET, FIRST_AFTER_IMPORTS_SNIPPET))
CORPUS_SNIPPET = CORPUS_SNIPPET.replace("# <LOAD_CORPUS>\n", LOAD_CORPUS.lstrip("\n"))
THREADS_SNIPPET = THREADS_SNIPPET.replace("# <LOAD_CORPUS>\n", LOAD_CORPUS.lstrip("\n"))
BREAKDOWN_SNIPPET = BREAKDOWN_SNIPPET.replace("# <LOAD_CORPUS>\n", LOAD_CORPUS.lstrip("\n"))


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


def shared_pins(ref_python):
    """``name==version`` of every package in the reference venv except NVIDIA's numba-cuda and
    the packaging tools: the constraints under which our mirror venv is installed."""
    out = subprocess.run([str(ref_python), "-m", "pip", "list", "--format=freeze"],
                         capture_output=True, text=True, check=True).stdout
    skip = {"numba-cuda", "numba_cuda", "pip", "setuptools", "wheel"}
    return [line.strip() for line in out.splitlines()
            if "==" in line and line.split("==")[0].strip().lower() not in skip]


def ensure_ours(venv, base_python, ref_python):
    """The mirror venv: this checkout as a wheel with ``[cu13]``, shared dependencies pinned to
    the reference venv's versions.  Dependencies are installed once; the package itself on
    every run (``--no-deps --force-reinstall``)."""
    python = venv / "bin" / "python"
    pins = shared_pins(ref_python)
    constraints = venv / "shared-pins.txt"
    if not python.exists():
        print(f"creating {venv} (this package, dependencies pinned to the reference's) ...",
              flush=True)
        subprocess.run([base_python, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    constraints.write_text("\n".join(pins) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-c", str(constraints),
                    f"{ROOT}[cu13]"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
                    str(ROOT)], check=True)
    return python


def environment_summary(python):
    """Versions that decide the shared part of the timings, and how many packages are installed."""
    code = ("import importlib.metadata as m, json; names = ['numba', 'llvmlite', 'numpy', "
            "'cuda-bindings', 'nvidia-nvvm']; d = {n: m.version(n) for n in names}; "
            "d['packages'] = len(list(m.distributions())); print(json.dumps(d))")
    return json.loads(run(python, code))


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


def byte_compile(python):
    """Write the package's .pyc files (what pip does at install time)."""
    folder = run(python, "import os, numba_cuda; print(os.path.dirname(numba_cuda.__file__))")
    subprocess.run([str(python), "-m", "compileall", "-q", folder], check=False,
                   capture_output=True, cwd=tempfile.gettempdir())


def process_seconds(python, code):
    """Wall time of a whole fresh ``python -P -c code`` process, as its parent sees it:
    interpreter start-up and ``site`` (``.pth`` files) included."""
    t0 = time.perf_counter()
    subprocess.run([str(python), "-P", "-c", code], check=True, capture_output=True,
                   cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return time.perf_counter() - t0


OWN_MODULES = ("numba_cuda", "numba.cuda", "_numba_cuda_redirector")


def own_importtime(python):
    """Seconds ``python -X importtime`` attributes to this package's own modules (their self
    times: ``numba_cuda*``, ``numba.cuda*``, the redirector) in ``from numba import cuda``:
    the package's import cost without the noise of two whole processes' difference."""
    proc = subprocess.run([str(python), "-X", "importtime", "-c", "from numba import cuda"],
                          check=True, capture_output=True, text=True, cwd=tempfile.gettempdir())
    total = 0
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip().startswith(OWN_MODULES):
            total += int(parts[0].split(":")[1])
    return total / 1e6


def _alternating(pythons, index):
    """The sides in turn, the first one first on even rounds and last on odd ones: of two
    back-to-back fresh processes, the first is measurably slower here (~5-10 % on ``import
    numba``), whichever package it runs."""
    order = list(pythons.items())
    return order if index % 2 == 0 else order[::-1]


def measure(pythons, repeat, ptxas):
    """Every measure for every side (``{side: python}``), the sides interleaved: each fresh
    process of one side is followed by the same process of the other (in alternating order),
    so that a change in the machine's load during the run affects both alike."""
    for python in pythons.values():
        byte_compile(python)
    samples = {side: {"import": [], "import_process": [], "startup": [], "first_compile": [],
                      "first_compile_cpu": [], "corpus": [], "own_import": [], "own_importtime": [],
                      "nvvm_floor": []} for side in pythons}
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(repeat):
            order = _alternating(pythons, index)
            for side, python in order:
                samples[side]["import"].append(float(run(python, IMPORT_SNIPPET)))
            for side, python in order:
                whole = process_seconds(python, "from numba import cuda")
                samples[side]["import_process"].append(whole)
                samples[side]["own_import"].append(whole - process_seconds(python, "import numba"))
                samples[side]["own_importtime"].append(own_importtime(python))
                samples[side]["startup"].append(process_seconds(python, "pass"))
            for side, python in order:
                wall, cpu = map(float, run(python, FIRST_COMPILE_SNIPPET).split())
                samples[side]["first_compile"].append(wall)
                samples[side]["first_compile_cpu"].append(cpu)
                samples[side]["nvvm_floor"].append(float(run(python, NVVM_FLOOR_SNIPPET)))
            for side, python in order:
                outdir = pathlib.Path(tmp) / f"{side}-{index}"
                outdir.mkdir()
                samples[side]["corpus"].append(json.loads(run(python, CORPUS_SNIPPET, ROOT, outdir)))
        results = {}
        for side, got in samples.items():
            runs = got["corpus"]
            corpus = runs[0]
            for entry in corpus["entries"].values():
                if "ptx" in entry:
                    entry.update(ptxas_stats(ptxas, entry["ptx"]))
            results[side] = {
                "import": statistics.median(got["import"]),
                "import_process": statistics.median(got["import_process"]),
                "startup": statistics.median(got["startup"]),
                "own_import": statistics.median(got["own_import"]),
                "own_importtime": statistics.median(got["own_importtime"]),
                "first_compile": statistics.median(got["first_compile"]),
                "first_compile_cpu": statistics.median(got["first_compile_cpu"]),
                "nvvm_floor": statistics.median(got["nvvm_floor"]),
                "corpus_runs": [{name: e.get("time") for name, e in r["entries"].items()}
                                for r in runs],
                "corpus_cpu_runs": [{name: e.get("cpu") for name, e in r["entries"].items()}
                                    for r in runs],
                "corpus_total": statistics.median(r["total"] for r in runs),
                "entries": corpus["entries"],
            }
    return results


def common_total(side, names, runs="corpus_runs"):
    """Median over runs of the corpus time (``corpus_cpu_runs``: CPU time) summed over
    ``names``."""
    return statistics.median(sum(r[n] for n in names) for r in side[runs])


def breakdown(pythons, names, repeat):
    """Medians over ``repeat`` fresh processes (sides interleaved) of the BREAKDOWN_SNIPPET
    phases, plus the time of ``import numba`` alone."""
    runs = {side: [] for side in pythons}
    imports = {side: [] for side in pythons}
    for index in range(repeat):
        order = _alternating(pythons, index)
        for side, python in order:
            runs[side].append(json.loads(run(python, BREAKDOWN_SNIPPET, ROOT, ",".join(names))))
        for side, python in order:
            imports[side].append(float(run(python, NUMBA_IMPORT_SNIPPET)))
    out = {}
    for side in pythons:
        out[side] = {key: statistics.median(r[key] for r in runs[side]) for key in runs[side][0]}
        out[side]["import_numba"] = statistics.median(imports[side])
    return out


def threaded(pythons, names, threads, repeat):
    """Medians over ``repeat`` rounds (sides interleaved) of THREADS_SNIPPET serially and on
    ``threads`` threads: ``{side: {"serial": s, "threads": s}}``."""
    runs = {side: {"serial": [], "threads": []} for side in pythons}
    for index in range(repeat):
        order = _alternating(pythons, index)
        for mode, n in (("serial", 1), ("threads", threads)):
            for side, python in order:
                runs[side][mode].append(
                    float(run(python, THREADS_SNIPPET, ROOT, ",".join(names), n)))
    return {side: {mode: statistics.median(v) for mode, v in got.items()}
            for side, got in runs.items()}


def print_breakdown(ours, ref, n):
    print(f"\nwhere the time goes (corpus, {n} common entries; medians){'ours':>9}{'ref':>9}")
    rows = (("Numba front-end passes (bytecode .. typing)", "front_end"),
            ("lowering pass (Numba's Lower + target)", "lowering"),
            ("libNVVM (IR -> PTX)", "nvvm"))
    for label, key in rows:
        print(f"{label:<58}{ours[key]:>9.3f}{ref[key]:>9.3f}")
    rest = lambda b: b["total"] - b["front_end"] - b["lowering"] - b["nvvm"]  # noqa: E731
    print(f"{'everything else':<58}{rest(ours):>9.3f}{rest(ref):>9.3f}")
    print(f"{'total':<58}{ours['total']:>9.3f}{ref['total']:>9.3f}")
    shared = ours["front_end"] + ours["nvvm"]
    print(f"our Numba front-end passes + libNVVM alone: {shared:.3f} s = "
          f"{shared / ref['total']:.2f}x the reference's corpus total")
    shared += ours["lowering"]
    print(f"... + the lowering pass (Numba's Lower running our target's implementations): "
          f"{shared:.3f} s = {shared / ref['total']:.2f}x")
    print(f"`import numba` alone: ours {ours['import_numba']:.3f} s, reference "
          f"{ref['import_numba']:.3f} s (= {ours['import_numba'] / ref['from_numba_import_cuda']:.2f}x "
          "the reference's `from numba import cuda`)")


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # (paths made absolute: the measured processes run in the temporary directory; not
    # resolved, a venv's python being a symlink to its base interpreter)
    parser.add_argument("--ours", type=os.path.abspath,
                        help="interpreter to measure for this package (default: the "
                        "mirror venv benchmarks/.venv-ours, created and refreshed here)")
    parser.add_argument("--ref-venv", type=os.path.abspath, default=str(DEFAULT_REF))
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--json", help="also write the raw results to this file")
    parser.add_argument("--threads", type=int, default=0,
                        help="also compile the common corpus entries on a pool of this many "
                             "threads (each side), next to the same entries serially")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when a compile-time target is not met")
    parser.add_argument("--first-breakdown", action="store_true",
                        help="also show where the first compile of a process goes (imports by "
                             "package, the compile with nothing left to import, the next kernel)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time the phases of the corpus compile (front end, lowering, "
                             "libNVVM) and `import numba` alone, for both")
    args = parser.parse_args(argv)

    ref_python = ensure_reference(pathlib.Path(args.ref_venv), sys.executable)
    if args.ours is None:
        args.ours = str(ensure_ours(DEFAULT_OURS_VENV, sys.executable, ref_python))
    if args.setup_only:
        return 0
    envs = {"ours": environment_summary(args.ours), "reference": environment_summary(ref_python)}
    for side, env in envs.items():
        print(f"{side:<10} " + ", ".join(f"{k} {v}" for k, v in env.items()))
    shared = ("numba", "llvmlite", "numpy", "cuda-bindings", "nvidia-nvvm")
    if any(envs["ours"][k] != envs["reference"][k] for k in shared):
        print("WARNING: the two sides run different versions of shared dependencies; the "
              "ratios compare more than the two packages")
    ptxas = run(args.ours, "from numba_cuda import toolkit; print(toolkit.ptxas_path())")
    where = run(ref_python, "import numba_cuda; print(numba_cuda.__file__)")
    if str(ROOT / "numba_cuda") in where:
        raise RuntimeError(f"the reference venv imports this repository's numba_cuda ({where})")
    results = {"environment": envs,
               **measure({"ours": args.ours, "reference": ref_python}, args.repeat, ptxas)}
    ours, ref = results["ours"], results["reference"]

    both = sorted(n for n in ours["entries"] if ours["entries"][n].get("time") is not None
                  and ref["entries"].get(n, {}).get("time") is not None)
    ours["corpus_common"] = common_total(ours, both)
    ref["corpus_common"] = common_total(ref, both)
    ours["corpus_common_cpu"] = common_total(ours, both, "corpus_cpu_runs")
    ref["corpus_common_cpu"] = common_total(ref, both, "corpus_cpu_runs")
    for side in (ours, ref):
        # what a script that imports and compiles one kernel waits for: where each package
        # loads cuda-bindings and libNVVM differs (the reference at import, this package at its
        # first compile), so neither part alone compares the same work
        side["import_and_first_compile"] = side["import"] + side["first_compile"]
    print(f"\nCompile benchmark (sm_{CC[0]}{CC[1]}; ptxas {ptxas}; medians of {args.repeat} "
          "fresh processes)")
    print(f"{'measure':<42}{'ours':>10}{'reference':>11}{'ratio':>8}")
    for key, label in (("import", "from numba import cuda [s]"),
                       ("import_process", "  whole process, start-up included [s]"),
                       ("own_import", "  minus import numba (the package's own) [s]"),
                       ("own_importtime", "  the package's modules, -X importtime [s]"),
                       ("startup", "  start-up alone (python -c pass) [s]"),
                       ("first_compile", "first compile_ptx [s]"),
                       ("first_compile_cpu", "  CPU time (all threads) [s]"),
                       ("import_and_first_compile", "import + first compile_ptx [s]"),
                       ("corpus_common", f"corpus compile total, {len(both)} common [s]"),
                       ("corpus_common_cpu", "  CPU time [s]")):
        print(f"{label:<42}{ours[key]:>10.3f}{ref[key]:>11.3f}{ratio(ours[key], ref[key]):>8}")
    print(f"  (target: the package's own import cost <= 5 ms; ours is "
          f"{ours['own_import'] * 1e3:.1f} ms by the process difference, "
          f"{ours['own_importtime'] * 1e3:.1f} ms by -X importtime)")
    floor = ours["nvvm_floor"]
    print(f"  (first compile: importing cuda.bindings.nvvm with cuda.pathfinder and loading "
          f"libNVVM alone take "
          f"{floor:.3f} s here = {floor / ref['first_compile']:.2f}x the reference's first "
          f"compile; the {FIRST_COMPILE_TARGET}x target leaves "
          f"{(FIRST_COMPILE_TARGET * ref['first_compile'] - floor) * 1e3:.0f} ms for the rest)")
    n_ours = sum(1 for e in ours["entries"].values() if e.get("time") is not None)
    n_ref = sum(1 for e in ref["entries"].values() if e.get("time") is not None)
    print(f"{'corpus compile total, all compiled [s]':<42}{ours['corpus_total']:>10.3f}"
          f"{ref['corpus_total']:>11.3f}   ({n_ours} vs {n_ref} entries)")

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
    targets = compile_targets(ours, ref)
    results["targets"] = targets
    print("\ncompile-time targets (ours / reference, wall-clock medians of this run; the CPU-time "
          "ratio, steadier on a loaded machine, in brackets):")
    for t in targets:
        print(f"  {t['label']:<40}{t['ratio']:>6.2f}x  target <= {t['target']:.2f}x  "
              f"{'met' if t['met'] else 'NOT met'}  [CPU {t['cpu_ratio']:.2f}x]")
    if args.threads > 1:
        got = threaded({"ours": args.ours, "reference": ref_python}, both, args.threads,
                       args.repeat)
        results["threads"] = got
        print(f"\ncorpus, {len(both) - 1} common entries after a first compile, serially and on "
              f"{args.threads} threads [s]{'ours':>8}{'ref':>8}{'ratio':>8}")
        for mode in ("serial", "threads"):
            o, r = got["ours"][mode], got["reference"][mode]
            print(f"  {mode:<60}{o:>8.3f}{r:>8.3f}{ratio(o, r):>8}")
    if args.breakdown:
        results["breakdown"] = breakdown({"ours": args.ours, "reference": ref_python}, both,
                                         args.repeat)
        results["breakdown"]["reference"]["from_numba_import_cuda"] = ref["import"]
        print_breakdown(results["breakdown"]["ours"], results["breakdown"]["reference"], len(both))
    if args.first_breakdown:
        got = first_breakdown({"ours": args.ours, "reference": ref_python}, args.repeat)
        results["first_breakdown"] = got
        print_first_breakdown(got, {"ours": ours["first_compile"],
                                    "reference": ref["first_compile"]})
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    if args.check and not all(t["met"] for t in targets):
        return 1
    return 0


def compile_targets(ours, ref):
    """The two compile-time ratios of one run and their targets: the first ``compile_ptx`` of
    a process, and the corpus total over the entries both sides compile."""
    out = []
    for label, key, target in (("first compile of a process", "first_compile",
                                FIRST_COMPILE_TARGET),
                               ("corpus compile total (common entries)", "corpus_common",
                                CORPUS_TARGET)):
        value = ours[key] / ref[key]
        cpu = ours[key + "_cpu"] / ref[key + "_cpu"]
        out.append({"label": label, "ratio": value, "cpu_ratio": cpu, "target": target,
                    "met": value <= target})
    return out


if __name__ == "__main__":
    sys.exit(main())

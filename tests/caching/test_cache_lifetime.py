"""Dispatchers whose kernels came from the disk cache are freed like any other.

Numba's finalizer of a dispatcher holds ``dispatcher.overloads`` for the life of the process; a
cached kernel in there that referred back to its dispatcher kept every such dispatcher alive.
Runs in a fresh interpreter, so the first dispatcher is also the one that first asks for the
GPU's compute capability (on a machine without a GPU the driver's stored error must not pin it).
"""

import json
import os
import subprocess
import sys
import textwrap

KERNEL_MODULE = '''
def body(x):
    x[0] = 1
'''

SCRIPT = r'''
import gc, json, pickle, sys, weakref
sys.path.insert(0, sys.argv[1])
unraisable = []
sys.unraisablehook = lambda info: unraisable.append(f"{info.exc_type.__name__}: {info.exc_value}")
from numba import cuda
from numba_cuda.dispatch.disk_cache import CachedKernel
import kmod

refs, kinds = [], []
for n in range(6):  # the first compiles and stores the entry, the others load it
    d = cuda.jit("void(int64[::1])", cache=True)(kmod.body)
    kinds.append(type(d.overloads[tuple(d.overloads)[0]]).__name__)
    refs.append(weakref.ref(d))
    del d
# a kernel that outlives its dispatcher: what needs the front end now says why it cannot
d = cuda.jit("void(int64[::1])", cache=True)(kmod.body)
(kernel,) = d.overloads.values()
# a dispatcher unpickled with its kernels (pickling.py installs CachedKernels too)
d2 = pickle.loads(pickle.dumps(d))
kinds.append(type(next(iter(d2.overloads.values()))).__name__)
refs += [weakref.ref(d), weakref.ref(d2)]
del d, d2
gc.collect()
try:
    kernel.inspect_types()
    orphan = "compiled"
except RuntimeError as exc:
    orphan = str(exc)
print("REPORT" + json.dumps({"kinds": kinds, "alive": sum(r() is not None for r in refs),
                             "orphan": orphan, "unraisable": unraisable}))
'''


def test_dispatchers_that_loaded_from_the_cache_are_freed(tmp_path):
    (tmp_path / "kmod.py").write_text(textwrap.dedent(KERNEL_MODULE))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_ENABLE_CUDASIM")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT")][-1]
    report = json.loads(line[len("REPORT"):])
    assert report["kinds"] == ["LaunchableKernel"] + ["CachedKernel"] * 6
    assert report["alive"] == 0
    # Numba's finalizer ran on every dispatcher without an error
    assert report["unraisable"] == []
    assert "no longer exists" in report["orphan"] and "body" in report["orphan"]

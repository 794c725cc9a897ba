"""CUDA ufuncs and gufuncs pickle (by value here: defined in a test function), on the real
target (compiled without a GPU) and in the simulator (run)."""

import os
import pickle
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CODE = """
import pickle
import numpy as np
from numba import vectorize, guvectorize
from numba_cuda.common import pickling

@vectorize(["int64(int64)", "float64(float64)"], target="cuda")
def twice(x):
    return x * 2

@guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")
def total(a, out):
    s = 0.0
    for v in a:
        s += v
    out[0] = s

for f in (twice, total):
    blob = pickle.dumps(f)
    assert pickle.loads(blob) is f     # the same process: the original
    pickling._memo.clear()
    g = pickle.loads(pickle.dumps(f))
    assert g is not f and type(g) is type(f)
    assert g.types == f.types, (g.types, f.types)
    assert g.__name__ == f.__name__
    h = pickle.loads(pickle.dumps(g))  # a pickle of a rebuilt one
    assert h.types == f.types
{run}
print("ok")
"""

RUN = """
x = np.arange(6.0)
assert np.array_equal(g_twice(x), 2 * x)
assert np.allclose(g_total(x.reshape(2, 3)), [3.0, 12.0])
"""


def _check(env, run=""):
    code = CODE.format(run=textwrap.indent(run, ""))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=REPO, **env), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.strip() == "ok"


def test_ufuncs_pickle_on_the_real_target():
    _check({})


def test_ufuncs_pickle_and_run_in_the_simulator():
    run = ("pickling._memo.clear()\n"
           "g_twice = pickle.loads(pickle.dumps(twice))\n"
           "g_total = pickle.loads(pickle.dumps(total))\n" + RUN)
    _check({"NUMBA_ENABLE_CUDASIM": "1"}, run)

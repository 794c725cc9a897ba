"""Launch-configuration errors start with the words Numba's own tests look for, on the GPU
target (no GPU needed: the configuration is checked before any launch) and in the simulator."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHECK = textwrap.dedent("""
    from numba import cuda

    def noop(x):
        pass

    k = cuda.jit(noop)
    cases = [
        (lambda: k[(1, 2, 3, 4), (5, 6)], ValueError,
         "griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4]"),
        (lambda: k[(1, 2), (3, 4, 5, 6)], ValueError,
         "blockdim must be a sequence of 1, 2 or 3 integers, got [3, 4, 5, 6]"),
        (lambda: k[2.0, 3], TypeError, "griddim must be a sequence of integers, got [2.0]"),
        (lambda: k[2, 3.0], TypeError, "blockdim must be a sequence of integers, got [3.0]"),
        (lambda: k(0), ValueError, "launch configuration was not specified"),
        (lambda: cuda.jit("void(int32)")(noop)(0), ValueError,
         "launch configuration was not specified"),
    ]
    for make, cls, words in cases:
        try:
            make()
        except cls as exc:
            assert words in str(exc), (words, str(exc))
        else:
            raise AssertionError(f"no {cls.__name__} for {words}")
    print("ok")
""")


def _run(**env):
    proc = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, **env), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_gpu_target_wording():
    _run()


def test_simulator_wording():
    _run(NUMBA_ENABLE_CUDASIM="1")

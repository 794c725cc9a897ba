"""``cuda.devicearray.auto_device`` refuses a host array that is not one contiguous region, with
Numba's ValueError (``cuda.to_device`` itself copies any layout) -- GPU target and simulator."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHECK = textwrap.dedent("""
    import numpy as np
    from numba import cuda
    x = np.arange(10.0)
    try:
        cuda.devicearray.auto_device(x[:-1:2])
    except ValueError as exc:
        assert "non-contiguous buffer" in str(exc), exc
    else:
        raise AssertionError("a strided host array was accepted")
    # broadcast dimensions do not count (Numba's array_core)
    core = np.broadcast_to(np.arange(3.0), (4, 3))
    from numba.cuda.cudadrv.devicearray import sentry_contiguous
    sentry_contiguous(core)
    if {simulator}:
        d, copied = cuda.devicearray.auto_device(np.arange(4.0))
        assert copied and d.copy_to_host().tolist() == [0, 1, 2, 3]
    print("ok")
""")


def _run(simulator):
    env = dict(os.environ, PYTHONPATH=ROOT)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    proc = subprocess.run([sys.executable, "-c", CHECK.format(simulator=simulator)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_gpu_target():
    _run(False)


def test_simulator():
    _run(True)

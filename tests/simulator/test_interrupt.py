"""Ctrl-C during a simulated launch in the OS-thread mode: KeyboardInterrupt arrives at once and
the simulated threads stop, even when the kernel's loop never reaches a barrier or spin point."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent('''
    import sys, threading, time
    import numpy as np
    from numba_cuda.simulator import api as cuda

    @cuda.jit(sim_mode="threads")
    def forced(x):
        for i in range(10 ** 12):  # a for loop has no spin point: it never hands control back
            x[cuda.threadIdx.x] += 1

    @cuda.jit
    def fallback(x):
        # a barrier in a comprehension: the automatic mode falls back to OS threads
        n = [cuda.syncthreads_count(True) for _ in range(1)][0]
        for i in range(10 ** 12):
            x[cuda.threadIdx.x] += n

    endless = {"forced": forced, "fallback": fallback}[sys.argv[2]]
    x = np.zeros(int(sys.argv[1]), dtype=np.int64)
    print("launching", endless.sim_mode, flush=True)
    try:
        endless[1, x.size](x)
    except KeyboardInterrupt:
        time.sleep(0.2)
        before = x.copy()
        time.sleep(0.2)
        alive = [t.name for t in threading.enumerate() if t.name == "cudasim-thread"]
        print("interrupted", "stopped" if (x == before).all() else "still running", len(alive),
              flush=True)
        # the simulator is usable again afterwards
        @cuda.jit(sim_mode="threads")
        def one(y):
            y[cuda.threadIdx.x] = cuda.threadIdx.x + 1
        y = np.zeros(4, dtype=np.int64)
        one[1, 4](y)
        print("next launch", y.tolist(), flush=True)
        raise
''')


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("kernel, nthreads", [("forced", 1), ("forced", 3), ("fallback", 2)])
def test_ctrl_c_stops_an_os_thread_mode_launch_promptly(kernel, nthreads, tmp_path):
    script = tmp_path / "endless.py"  # a file: the simulator transforms kernels it has the source of
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CUDASIM_MODE"}
    proc = subprocess.Popen([sys.executable, str(script), str(nthreads), kernel], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "launching threads"
        time.sleep(0.5)  # well inside the kernel's loop
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=6)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    elapsed = time.monotonic() - sent
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert "interrupted stopped 0" in out, (out, err[-2000:])
    assert "next launch [1, 2, 3, 4]" in out, (out, err[-2000:])
    assert elapsed < 3.0, f"KeyboardInterrupt took {elapsed:.1f} s"
    assert proc.returncode != 0

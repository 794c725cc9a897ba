"""Ctrl-C during a simulated launch in the OS-thread mode: KeyboardInterrupt arrives at once and
the simulated threads stop, even when the kernel's loop never reaches a barrier or spin point."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# Each script installs Python's SIGINT handler itself: a process that starts with SIGINT ignored
# (a test run started in the background by a non-interactive shell, ``cmd &``, passes that on)
# gets no KeyboardInterrupt from Ctrl-C at all.
SCRIPT = textwrap.dedent('''
    import signal, sys, threading, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
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


COMPILED_SCRIPT = textwrap.dedent('''
    import signal, sys
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    from numba_cuda.simulator import api as cuda

    @cuda.jit  # the default mode: compiled, past the threshold (0 here)
    def slow(x, done, n):
        i = cuda.grid(1)
        v = x[i]
        for k in range(n):  # a float recurrence: not folded, about n * 1 ns per thread
            v = v * 1.0000001 + 1.0
        x[i] = v
        done[i] = 1

    blocks, tpb, n = 4096, 32, int(sys.argv[1])
    calls = []
    if sys.argv[2] == "handler":  # a SIGINT handler that returns: the launch goes on
        signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    x = np.zeros(blocks * tpb)
    done = np.zeros(blocks * tpb, np.int8)
    slow[1, tpb](x, done, 1)  # compiles
    assert slow.sim_mode == "compiled" and slow.sim_compiled_reason is None
    done[:] = 0
    print("launching", flush=True)
    try:
        slow[blocks, tpb](x, done, n)
    except KeyboardInterrupt:
        rows = done.reshape(blocks, tpb)
        whole = bool(((rows == 0) | (rows == 1)).all() and (rows == rows[:, :1]).all())
        ran = int(rows[:, 0].sum())
        prefix = bool((rows[:ran] == 1).all())
        print("interrupted", whole, prefix, 0 < ran < blocks, slow.sim_compiled_reason, flush=True)
        y = np.zeros(tpb)
        slow[1, tpb](y, np.zeros(tpb, np.int8), 2)  # the kernel is usable again
        print("next launch", y[0] == 1.0000001 + 1.0, slow.sim_compiled_reason, flush=True)
        raise
    print("completed", int(done.sum()) == blocks * tpb, calls == [signal.SIGINT], flush=True)
''')


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("handler", ["default", "handler"])
def test_ctrl_c_stops_a_compiled_launch_between_blocks(handler, tmp_path):
    """A compiled launch checks for SIGINT before each block: Python's handler raises
    KeyboardInterrupt there, memory holding the blocks run so far (whole, in order); a handler
    that returns lets the launch go on."""
    script = tmp_path / "slow.py"
    script.write_text(COMPILED_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CUDASIM_MODE"}
    env["NUMBA_CUDASIM_COMPILE_THRESHOLD"] = "0"
    # uninterrupted the default-handler launch takes ~10 s or more, the other ~1 s
    n = 100_000 if handler == "default" else 5_000
    proc = subprocess.Popen([sys.executable, str(script), str(n), handler], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "launching", proc.communicate()[1][-2000:]
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    elapsed = time.monotonic() - sent
    if handler == "handler":
        assert "completed True True" in out, (out, err[-2000:])
        assert proc.returncode == 0
        return
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert "interrupted True True True slow: interrupted before block" in out, (out, err[-2000:])
    assert "next launch True None" in out, (out, err[-2000:])
    assert elapsed < 3.0, f"KeyboardInterrupt took {elapsed:.1f} s"
    assert proc.returncode != 0

"""Threads of a simulated block make progress without barriers (a thread spinning on a flag
that another thread sets), and a wait nothing can end is reported, not a hang.  Every
kernel runs in a fresh interpreter with a timeout, so a hang fails the test."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

HEADER = """
import json, time
import numpy as np
from numba import cuda
"""


def run_sim(body, stall="0.3", timeout=60):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", NUMBA_CUDASIM_STALL_TIMEOUT=stall)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "spin_kernel.py")  # a file: the simulator reads the source
        with open(script, "w") as fh:
            fh.write(HEADER + textwrap.dedent(body))
        try:
            proc = subprocess.run([sys.executable, script], capture_output=True, text=True,
                                  env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the simulated kernel hung (no answer in {timeout} s)")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["python", "threads"])
@pytest.mark.parametrize("setter", [31, 5, 63])
def test_a_thread_spinning_on_a_flag_set_later_in_the_block_completes(mode, setter):
    out = run_sim(f"""
        @cuda.jit(sim_mode={mode!r})
        def k(flag, out):
            i = cuda.threadIdx.x
            if i == 0:
                while flag[0] == 0:
                    pass
                out[0] = 1
            elif i == {setter}:
                flag[0] = 1

        flag = np.zeros(1, np.int32)
        out = np.zeros(1, np.int32)
        k[2, 64](flag, out)
        print(json.dumps([int(out[0]), k.sim_mode]))
        """)
    assert out[0] == 1


def test_every_thread_waits_for_the_last_one_in_a_kernel_with_barriers():
    out = run_sim("""
        @cuda.jit
        def k(flag, out):
            i = cuda.threadIdx.x
            cuda.syncthreads()
            if i == cuda.blockDim.x - 1:
                flag[0] = 7
            else:
                while cuda.atomic.add(flag, 0, 0) == 0:
                    pass
            out[i] = flag[0]
            cuda.syncthreads()

        flag = np.zeros(1, np.int32)
        out = np.zeros(128, np.int32)
        k[1, 128](flag, out)
        print(json.dumps([out.tolist(), k.sim_mode]))
        """)
    assert out == [[7] * 128, "coroutines"]


def test_spinning_inside_a_device_function():
    out = run_sim("""
        @cuda.jit(device=True)
        def wait_for(flag):
            n = 0
            while flag[0] == 0:
                pass
            return flag[0]

        @cuda.jit
        def k(flag, out):
            i = cuda.threadIdx.x
            if i == 3:
                flag[0] = 9
            else:
                out[i] = wait_for(flag)

        flag = np.zeros(1, np.int32)
        out = np.zeros(4, np.int32)
        k[1, 4](flag, out)
        print(json.dumps(out.tolist()))
        """)
    assert out == [9, 9, 9, 0]


def test_a_spin_on_memory_another_spinning_thread_changes():
    out = run_sim("""
        @cuda.jit
        def k(c, out):
            if cuda.threadIdx.x == 0:
                while c[0] < 5000:      # waits for thread 1's count
                    pass
                out[0] = c[0]
            else:
                while c[0] < 5000:      # variables never change, memory does
                    c[0] += 1

        c = np.zeros(1, np.int64)
        out = np.zeros(1, np.int64)
        k[1, 2](c, out)
        print(json.dumps(int(out[0])))
        """, stall="0.05")
    assert out == 5000


def test_a_long_computation_is_not_mistaken_for_a_deadlock():
    out = run_sim("""
        @cuda.jit
        def k(out):
            x = 0.0
            t0 = time.monotonic()
            while time.monotonic() - t0 < 0.5:   # longer than the stall timeout
                x += 1.0
            out[cuda.threadIdx.x] = x > 0

        out = np.zeros(2, np.bool_)
        k[1, 2](out)
        print(json.dumps(out.tolist()))
        """, stall="0.05")
    assert out == [True, True]


@pytest.mark.parametrize("mode", ["python", "threads"])
def test_a_spin_nothing_can_end_is_reported_with_the_loop(mode):
    out = run_sim(f"""
        @cuda.jit(sim_mode={mode!r})
        def k(flag):
            if cuda.threadIdx.x < 2:
                while flag[0] == 0:
                    pass

        t0 = time.monotonic()
        try:
            k[1, 4](np.zeros(1, np.int32))
            print(json.dumps(["completed"]))
        except Exception as exc:
            print(json.dumps([type(exc).__name__, str(exc), time.monotonic() - t0]))
        """)
    assert out[0] == "SimulatorDeadlock", out
    assert "2 thread(s) spinning in the loop at " in out[1] and "spin_kernel.py:9 " in out[1]
    assert "thread (0,0,0) of block (0,0,0)" in out[1]
    assert out[2] < 30


def test_a_spin_beside_a_barrier_that_cannot_complete_is_reported():
    out = run_sim("""
        @cuda.jit
        def k(flag):
            if cuda.threadIdx.x == 0:
                while flag[0] == 0:
                    pass
            cuda.syncthreads()
            flag[0] = 1

        try:
            k[1, 4](np.zeros(1, np.int32))
            print(json.dumps(["completed"]))
        except Exception as exc:
            print(json.dumps([type(exc).__name__, str(exc)]))
        """)
    assert out[0] == "SimulatorDeadlock", out
    assert "1 thread(s) spinning" in out[1] and "3 thread(s) waiting in syncthreads()" in out[1]


def test_a_device_function_with_a_loop_called_from_a_lambda_keeps_the_kernel_sequential():
    out = run_sim("""
        @cuda.jit(device=True)
        def count_down(n):
            while n > 0:
                n -= 1
            return n

        @cuda.jit(sim_mode="python")  # the Python path, whatever the default or NUMBA_CUDASIM_MODE says
        def k(out):
            step = lambda j: count_down(j) + 1  # noqa: E731 - a closure Numba inlines
            out[cuda.threadIdx.x] = step(0) + step(1) + step(2)

        out = np.zeros(4, np.int64)
        k[1, 4](out)
        print(json.dumps([out.tolist(), k.sim_mode]))
        """)
    assert out == [[3, 3, 3, 3], "sequential"]

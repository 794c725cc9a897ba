"""The simulator's launch state belongs to the host thread that launched: while one host thread
runs a kernel, another host thread is outside any kernel, as when no launch runs."""

import threading
import time

import numpy as np
import pytest

from numba_cuda.errors import LaunchConfigTypeError
from numba_cuda.simulator import api as cuda


def _wait_for(flags, index, seconds=10.0):
    deadline = time.monotonic() + seconds
    while flags[index] == 0:
        assert time.monotonic() < deadline, "the kernel on the other host thread did not start"
        time.sleep(0.001)


@pytest.mark.parametrize("mode", ["python", "threads"])
def test_another_host_thread_sees_no_launch(mode):
    @cuda.jit(sim_mode=mode)
    def held(flags, out):
        out[0] = cuda.threadIdx.x + 7
        flags[0] = 1  # running: the main thread checks now
        while flags[1] == 0:  # until the main thread is done checking
            pass
        out[1] = cuda.threadIdx.x + 7

    @cuda.jit
    def other(z):
        z[0] = 1

    flags = np.zeros(2, dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    errors = []

    def launch():
        try:
            held[1, 1](flags, out)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
            flags[0] = 1

    worker = threading.Thread(target=launch)
    worker.start()
    try:
        _wait_for(flags, 0)
        z = np.zeros(1, dtype=np.int64)
        with pytest.raises(LaunchConfigTypeError, match="launch configuration was not specified"):
            other(z)
        assert z[0] == 0  # the kernel body did not run
        with pytest.raises(RuntimeError, match="only meaningful inside a kernel"):
            cuda.threadIdx.x
        with pytest.raises(RuntimeError, match="only meaningful inside a kernel"):
            cuda.grid(1)
        assert repr(cuda.blockIdx) == "<numba.cuda.blockIdx (simulator)>"
    finally:
        flags[1] = 1
        worker.join(10)
    assert not worker.is_alive()
    assert not errors, errors
    assert list(out) == [7, 7]  # the launching thread's own state was untouched

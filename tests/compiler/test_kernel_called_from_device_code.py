"""A ``@cuda.jit`` kernel called from device code is compiled as a device function for that call,
as Numba's target and NVIDIA's package do (code written for them calls undecorated-``device``
helpers this way); the kernel itself still launches as a kernel."""

import numpy as np
import pytest

from tests.support.ptx_helpers import assemble


def _make(cuda):
    @cuda.jit
    def store_double(a, i):
        a[i] = i * 2

    @cuda.jit
    def countdown(n):  # self-recursive, called from device code (Numba's type_change case)
        if n <= 0:
            return 0
        return 1 + countdown(n - 1)

    @cuda.jit
    def caller(a, b):
        i = cuda.grid(1)
        if i < a.size:
            store_double(a, i)
            b[i] = countdown(i)

    return store_double, countdown, caller


def test_compiles_for_the_call_and_stays_a_kernel(cuda):
    store_double, countdown, caller = _make(cuda)
    ptx, _ = cuda.compile_ptx(caller.py_func, "void(int64[::1], int64[::1])", cc=(7, 5))
    assemble(ptx, (7, 5))
    assert ".entry" in ptx and ptx.count(".entry") == 1  # the caller only: no nested kernel
    assert store_double.overloads == {}  # not compiled as a kernel by the call ...
    assert store_double.as_device_function().overloads  # ... but as a device function
    # the same function still compiles as a kernel on its own
    kernel = store_double.compile("void(int64[::1], int64)")
    assert ".entry" in kernel.inspect_asm((7, 5))


def test_simulator_runs_it():
    from numba_cuda.simulator import api as sim

    _, _, caller = _make(sim)
    a, b = np.zeros(8, np.int64), np.zeros(8, np.int64)
    caller[1, 8](a, b)
    assert a.tolist() == [2 * i for i in range(8)]
    assert b.tolist() == list(range(8))


@pytest.mark.gpu
def test_gpu_runs_it(cuda):
    _, _, caller = _make(cuda)
    a, b = cuda.device_array(64, np.int64), cuda.device_array(64, np.int64)
    caller[2, 32](a, b)
    assert a.copy_to_host().tolist() == [2 * i for i in range(64)]
    assert b.copy_to_host().tolist() == list(range(64))

"""Device functions, closures, njit functions and the OS-thread fallback in the simulator."""

import numba
import numpy as np
import pytest
from numba import int32

from numba_cuda.simulator import api as cuda
from numba_cuda.simulator.collectives import UnseenBarrierError


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def sum_of_squares(a, b):
    return square(a) + square(b)


@cuda.jit(device=True)
def block_total(value):
    s = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    s[t] = value
    cuda.syncthreads()
    total = 0
    for j in range(cuda.blockDim.x):
        total += s[j]
    cuda.syncthreads()
    return total


def test_nested_device_functions():
    @cuda.jit(sim_mode="python")  # the Python path, whatever the default or NUMBA_CUDASIM_MODE says
    def k(a, out):
        i = cuda.grid(1)
        out[i] = sum_of_squares(a[i], 2)

    a = np.arange(8, dtype=np.int64)
    out = np.zeros(8, np.int64)
    k[2, 4](a, out)
    assert list(out) == [x * x + 4 for x in range(8)]
    assert k.sim_mode == "sequential"


def test_device_function_with_barriers_is_entered_with_yield_from():
    @cuda.jit
    def k(out):
        t = cuda.threadIdx.x
        out[t] = block_total(t) + block_total(1)

    out = np.zeros(64, np.int32)
    k[1, 64](out)
    assert (out == sum(range(64)) + 64).all()
    assert k.sim_mode == "coroutines"


def test_device_function_called_from_the_host():
    assert square(7) == 49
    assert sum_of_squares(3, 4) == 25


def test_closure_variables_and_default_arguments():
    scale = 3

    @cuda.jit(device=True)
    def scaled(x, offset=1):
        return x * scale + offset

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        out[i] = scaled(i)

    out = np.zeros(4, np.int64)
    k[1, 4](out)
    assert list(out) == [1, 4, 7, 10]


def test_njit_function_called_from_a_kernel():
    @numba.njit
    def cube(x):
        return x * x * x

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        out[i] = cube(i)

    out = np.zeros(4, np.int64)
    k[1, 4](out)
    assert list(out) == [0, 1, 8, 27]


def _kernel_without_source():
    namespace = {"cuda": cuda, "int32": int32}
    exec(  # noqa: S102 - a kernel whose source inspect cannot find
        "def rev(a):\n"
        "    s = cuda.shared.array(16, int32)\n"
        "    t = cuda.threadIdx.x\n"
        "    s[t] = a[t]\n"
        "    cuda.syncthreads()\n"
        "    a[t] = s[15 - t]\n",
        namespace,
    )
    return namespace["rev"]


def test_kernel_without_source_runs_on_os_threads():
    k = cuda.jit(_kernel_without_source())
    a = np.arange(16, dtype=np.int32)
    k[1, 16](a)
    assert list(a) == list(range(15, -1, -1))
    assert k.sim_mode == "threads"


def test_forced_threads_mode_gives_the_same_results():
    def body(a, out):
        s = cuda.shared.array(32, np.float64)
        t = cuda.threadIdx.x
        s[t] = a[t]
        cuda.syncthreads()
        out[t] = s[31 - t] + cuda.shfl_xor_sync(0xFFFFFFFF, a[t], 1) + cuda.syncthreads_count(t > 3)
        out[t] += block_total(1)

    a = np.arange(32, dtype=np.float64)
    results = []
    for mode in ("python", "threads"):
        k = cuda.jit(body, sim_mode=mode)
        out = np.zeros(32)
        k[1, 32](a, out)
        results.append(out)
        assert k.sim_mode == ("coroutines" if mode == "python" else "threads")
    assert np.array_equal(results[0], results[1])
    assert results[0][0] == 31 + 1 + 28 + 32


def test_barrier_in_a_comprehension_switches_to_threads():
    @cuda.jit
    def k(out):
        vals = [cuda.syncthreads_count(True) for _ in range(2)]
        out[cuda.threadIdx.x] = vals[0] + vals[1]

    out = np.zeros(4, np.int64)
    k[1, 4](out)
    assert (out == 8).all()
    assert k.sim_mode == "threads"


def test_errors_in_the_threads_mode_are_annotated():
    k = cuda.jit(_kernel_without_source())
    with pytest.raises(IndexError, match=r"tid=\[10, 0, 0\] ctaid=\[0, 0, 0\]: "):
        k[1, 16](np.zeros(10, np.int32))


def test_barrier_reached_through_an_unseen_call_explains_the_fix():
    @cuda.jit
    def k(out, fn):
        out[0] = fn()

    with pytest.raises(UnseenBarrierError, match="sim_mode='threads'"):
        k[1, 2](np.zeros(1), lambda: cuda.syncthreads_count(1))
    k2 = cuda.jit(k.py_func, sim_mode="threads")
    out = np.zeros(1)
    k2[1, 2](out, lambda: cuda.syncthreads_count(1))
    assert out[0] == 2


def test_reduce():
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    a = np.arange(100, dtype=np.float64)
    assert sum_reduce(a) == a.sum()
    assert sum_reduce(a, init=10) == a.sum() + 10
    res = cuda.device_array(1)
    sum_reduce(cuda.to_device(a), size=10, res=res)
    assert res.copy_to_host()[0] == 45


def test_kernel_without_source_and_without_barriers_runs_sequentially():
    namespace = {"cuda": cuda}
    exec("def k(a):\n    a[cuda.grid(1)] = cuda.threadIdx.x\n", namespace)  # noqa: S102
    k = cuda.jit(namespace["k"])
    a = np.zeros(6, np.int64)
    k[2, 3](a)
    assert list(a) == [0, 1, 2, 0, 1, 2]
    assert k.sim_mode == "sequential"


def test_launches_from_several_host_threads_are_serialised():
    import threading

    @cuda.jit
    def k(a):
        s = cuda.shared.array(32, np.int64)
        t = cuda.threadIdx.x
        s[t] = t
        cuda.syncthreads()
        a[cuda.grid(1)] = s[31 - t]

    outs = [np.zeros(64, np.int64) for _ in range(4)]
    threads = [threading.Thread(target=lambda o=o: k[2, 32](o)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs:
        assert list(o) == list(range(31, -1, -1)) * 2

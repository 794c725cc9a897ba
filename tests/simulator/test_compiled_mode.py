"""The simulator's compiled mode (the default; ``sim_mode="compiled"``, ``NUMBA_CUDASIM_MODE=compiled``): which
kernels it compiles, that they give the Python simulator's results and errors, and the fallback."""

import ast
import logging
import math

import numpy as np
import pytest

from numba import float32, int32
from numba_cuda.simulator import api as cuda
from numba_cuda.simulator.compiled import _read_only_uses

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _compile_at_once(monkeypatch):
    monkeypatch.setenv("NUMBA_CUDASIM_COMPILE_THRESHOLD", "0")  # small launches compile too


def both(fn, **options):
    """The kernel in the Python simulator and in the compiled mode."""
    return (cuda.jit(sim_mode="python", **options)(fn), cuda.jit(sim_mode="compiled", **options)(fn))


def run_both(fn, config, *args, **options):
    """Launch ``fn`` both ways on copies of ``args``; return (python args, compiled args, kernel)."""
    py, comp = both(fn, **options)
    a_py = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    a_comp = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    py[config](*a_py)
    comp[config](*a_comp)
    return a_py, a_comp, comp


def assert_same(a_py, a_comp):
    for x, y in zip(a_py, a_comp):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


# ---- kernels that compile, with the Python simulator's results ------------------------------------
def elementwise(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = float32(2.5) * x[i] + y[i]


def grid_stride(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.shape[0]:
        out[i] = x[i] * x[i] - float32(1.0)
        i += stride


def atomics(data, bins, olds, fbins):
    i = cuda.grid(1)
    if i < data.size:
        olds[i] = cuda.atomic.add(bins, data[i] % bins.size, 1)   # old values in thread order
        cuda.atomic.max(bins, 0, data[i])
        cuda.atomic.add(fbins, data[i] % fbins.size, float32(0.1))
        cuda.atomic.inc(olds, data.size, 5)


def int_wrap(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i] * int32(1 << 20)       # int32 * int32: int64, as Numba types it
        out[i] = x * x                  # wraps at 64 bits, stored into int32: the low bits
        out[a.size + i] = a[i] << 70    # a count of 64 or more gives 0, as PTX clamps it
        out[2 * a.size + i] = int(a[i] * 1e12)  # saturates as cvt.rzi


def local_and_math(x, out):
    tmp = cuda.local.array(4, float32)
    i = cuda.grid(1)
    if i >= x.size:
        return
    for k in range(4):
        tmp[k] = math.sin(x[i] * float32(k))
    out[i] = tmp[0] + tmp[1] + tmp[2] + tmp[3]


@cuda.jit(device=True)
def _square(v):
    return v * v


@cuda.jit(device=True)
def _sum_squares(a, b):
    return _square(a) + _square(b) + cuda.threadIdx.x * 0


def device_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = _sum_squares(x[i], float32(1.0))


def complex_numbers(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z[i] * z[i] + 1j


def dims_3d(out):
    x, y, z = cuda.grid(3)
    sx, sy, sz = cuda.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = (x + sx * (y + sy * z)) * 100 + cuda.laneid + cuda.warpsize * 0 + \
            cuda.blockIdx.z + cuda.blockDim.y + cuda.gridDim.x


def records(recs, out):
    i = cuda.grid(1)
    if i < recs.size:
        out[i] = recs[i].a * 2 + recs[i].b
        recs[i].a = i


def with_barrier(out):
    sh = cuda.shared.array(32, int32)
    sh[cuda.threadIdx.x] = cuda.threadIdx.x
    cuda.syncthreads()
    out[cuda.threadIdx.x] = sh[31 - cuda.threadIdx.x]


STPB, R = 32, 2


def stencil(x, out):  # shared tile with halo, one barrier, variables live across it
    tile = cuda.shared.array(STPB + 2 * R, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    n = x.size
    tile[t + R] = x[i] if i < n else 0
    if t < R:
        j = i - R
        tile[t] = x[j] if 0 <= j < n else 0
        k = i + STPB
        tile[t + STPB + R] = x[k] if k < n else 0
    cuda.syncthreads()
    if i >= n:
        return
    acc = float32(0)
    for d in range(-R, R + 1):
        acc += tile[t + R + d]
    out[i] = acc


def two_barriers(out, counter):  # two phases of shared traffic, atomics in thread order
    sh = cuda.shared.array((2, 16), int32)
    t = cuda.threadIdx.x
    sh[0, t] = t * (cuda.blockIdx.x + 1)
    cuda.syncthreads()
    mine = sh[0, 15 - t]
    sh[1, t] = mine + cuda.atomic.add(counter, 0, 1)
    cuda.syncthreads()
    out[cuda.blockIdx.x, t] = sh[1, (t + 1) % 16] - mine


REC = np.dtype([("a", np.int32), ("b", np.float64)])
_RNG = np.random.default_rng(1)
_F = _RNG.random(1000, dtype=np.float32)
CASES = {
    "elementwise": (elementwise, (8, 128), (_F, _F[::-1].copy(), np.zeros(1000, np.float32))),
    "grid_stride": (grid_stride, (3, 64), (_F, np.zeros(1000, np.float32))),
    "atomics": (atomics, (4, 64), (np.arange(200, dtype=np.int32) * 7 % 23,
                                   np.zeros(8, np.int32), np.zeros(201, np.int32),
                                   np.zeros(5, np.float32))),
    "int_wrap": (int_wrap, (2, 64), (np.arange(-50, 50, dtype=np.int32) * 40503,
                                     np.zeros(300, np.int32))),
    "local_and_math": (local_and_math, (4, 32), (_F[:100], np.zeros(100, np.float32))),
    "device_calls": (device_calls, (4, 32), (_F[:100], np.zeros(100, np.float32))),
    "complex": (complex_numbers, (2, 32), ((_F[:50] + 1j * _F[50:100]).astype(np.complex64),
                                           np.zeros(50, np.complex64))),
    "dims_3d": (dims_3d, ((2, 2, 2), (4, 3, 2)), (np.zeros((7, 5, 3), np.int64),)),
    "with_barrier": (with_barrier, (1, 32), (np.zeros(32, np.int32),)),
    "stencil": (stencil, (4, STPB), (_F[:120], np.zeros(120, np.float32))),
    "two_barriers": (two_barriers, (3, 16), (np.zeros((3, 16), np.int64), np.zeros(1, np.int64))),
    "records": (records, (1, 16), (np.array([(k, k / 4) for k in range(10)], REC),
                                   np.zeros(10, np.float64))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_kernels_give_the_python_simulators_results(name):
    fn, config, args = CASES[name]
    a_py, a_comp, kernel = run_both(fn, config, *args)
    assert kernel.sim_mode == "compiled", kernel.sim_compiled_reason
    assert kernel.sim_compiled_reason is None
    if name == "local_and_math":  # math functions may differ by ULPs (libm against libdevice)
        np.testing.assert_allclose(a_py[1], a_comp[1], rtol=1e-6)
    else:
        assert_same(a_py, a_comp)


def test_a_second_launch_does_not_compile_again():
    kernel = cuda.jit(sim_mode="compiled")(elementwise)
    out = np.zeros(1000, np.float32)
    kernel[8, 128](_F, _F, out)
    first = kernel.sim_compile_seconds
    assert first > 0
    kernel[4, 256](_F, _F, out)
    assert kernel.sim_compile_seconds == first
    np.testing.assert_array_equal(out, np.float32(2.5) * _F + _F)


def test_small_launches_run_in_python_until_the_threshold(monkeypatch):
    monkeypatch.setenv("NUMBA_CUDASIM_COMPILE_THRESHOLD", "2000")
    kernel = cuda.jit(sim_mode="compiled")(elementwise)
    out = np.zeros(1000, np.float32)
    kernel[4, 256](_F, _F, out)           # 1024 threads so far: the Python simulator
    assert "fewer than NUMBA_CUDASIM_COMPILE_THRESHOLD=2000" in kernel.sim_compiled_reason
    assert kernel.sim_compile_seconds == 0.0
    kernel[4, 256](_F, _F, out)           # 2048: compiled
    assert kernel.sim_compiled_reason is None and kernel.sim_compile_seconds > 0
    np.testing.assert_array_equal(out, np.float32(2.5) * _F + _F)
    monkeypatch.setenv("NUMBA_CUDASIM_COMPILE_THRESHOLD", "many")  # read at the first launch
    with pytest.raises(ValueError, match="NUMBA_CUDASIM_COMPILE_THRESHOLD"):
        cuda.jit(sim_mode="compiled")(elementwise)[4, 256](_F, _F, out)


def test_below_the_threshold_nothing_of_the_compiled_mode_is_made(monkeypatch):
    monkeypatch.setenv("NUMBA_CUDASIM_COMPILE_THRESHOLD", "100000")
    monkeypatch.delenv("NUMBA_CUDASIM_MODE", raising=False)
    kernel = cuda.jit(elementwise)  # the default mode
    out = np.zeros(1000, np.float32)
    for _ in range(3):
        kernel[4, 256](_F, _F, out)
    assert kernel._compiled_kernel is None  # small launches cost the Python path only
    assert "3072 threads launched so far" in kernel.sim_compiled_reason
    np.testing.assert_array_equal(out, np.float32(2.5) * _F + _F)


def test_the_environment_variable_selects_the_mode(monkeypatch):
    monkeypatch.delenv("NUMBA_CUDASIM_MODE", raising=False)
    assert cuda.jit(elementwise).sim_mode == "compiled"  # the default
    monkeypatch.setenv("NUMBA_CUDASIM_MODE", "")
    assert cuda.jit(elementwise).sim_mode == "compiled"
    monkeypatch.setenv("NUMBA_CUDASIM_MODE", "compiled")
    kernel = cuda.jit(elementwise)
    assert kernel.sim_mode == "compiled"
    for python_path in ("python", "auto"):  # auto: the old default, the Python path
        monkeypatch.setenv("NUMBA_CUDASIM_MODE", python_path)
        kernel = cuda.jit(elementwise)
        assert kernel.sim_mode == "sequential"
        assert kernel.sim_compiled_reason is None
        out = np.zeros(1000, np.float32)
        kernel[4, 256](_F, _F, out)
        assert kernel._compiled_kernel is None and kernel.sim_compile_seconds == 0.0
        assert cuda.jit(sim_mode="compiled")(elementwise).sim_mode == "compiled"  # option wins
    monkeypatch.setenv("NUMBA_CUDASIM_MODE", "threads")
    assert cuda.jit(elementwise).sim_mode == "threads"
    monkeypatch.setenv("NUMBA_CUDASIM_MODE", "fast")
    with pytest.raises(ValueError, match="compiled"):
        cuda.jit(elementwise)


# ---- errors: the Python simulator's report, and its memory state ---------------------------------
def out_of_bounds(a, b):
    i = cuda.grid(1)
    b[i] = a[i] + 1            # a has 40 elements, the grid 64 threads


def raises(a):
    i = cuda.grid(1)
    a[i] = i
    if i == 37:
        raise ValueError("thread 37 refuses")


@pytest.mark.parametrize("fn, nargs, where", [(out_of_bounds, 2, "tid=[8, 0, 0] ctaid=[1, 0, 0]"),
                                               (raises, 1, "tid=[5, 0, 0] ctaid=[1, 0, 0]")])
def test_errors_are_the_python_simulators_reports_with_its_memory(fn, nargs, where):
    py, comp = both(fn)
    results = []
    for kernel in (py, comp):
        args = [np.zeros(40, np.int64), np.zeros(64, np.int64)][:nargs]
        with pytest.raises(Exception) as info:
            kernel[2, 32](*args)
        results.append((type(info.value), str(info.value), [a.tolist() for a in args]))
    assert where in results[0][1]
    assert results[1] == results[0]
    assert "rerun in the Python simulator" in comp.sim_compiled_reason


def oob_shared(out):
    sh = cuda.shared.array(8, int32)
    sh[cuda.threadIdx.x] = 1     # 8 elements, 16 threads
    cuda.syncthreads()
    out[cuda.threadIdx.x] = sh[0]


def test_barrier_kernels_report_errors_as_the_python_simulator():
    py, comp = both(oob_shared)
    assert comp.sim_mode == "compiled"
    results = []
    for kernel in (py, comp):
        out = np.zeros(16, np.int32)
        with pytest.raises(IndexError) as info:
            kernel[1, 16](out)
        results.append((str(info.value), out.tolist()))
    assert "tid=[8, 0, 0] ctaid=[0, 0, 0]" in results[0][0]
    assert results[1] == results[0]


def test_loops_that_cannot_wait_compile():
    def k(x, out):
        i = cuda.grid(1)
        steps = 0
        while i < x.size and steps < 3:     # grid-stride, bounded: reads no memory
            v = x[i]
            out[i] = v
            i += cuda.gridsize(1)
            steps += 1

    kernel = cuda.jit(sim_mode="compiled")(k)
    assert kernel.sim_mode == "compiled", kernel.sim_compiled_reason


def test_only_arrays_the_kernel_may_write_are_copied():
    tree = ast.parse("def k(a, b, c, d, e):\n"
                     "    b[a[0, 1]] = c.shape[0] + c[2]\n"
                     "    v = d\n"
                     "    e[1][2] = a[:, 0][0]\n")
    uses = _read_only_uses(tree.body[0], ["a", "b", "c", "d", "e"])
    # a: read with 2 indices and sliced (a view); b: written; c: read; d: aliased; e: written
    assert uses == [None, None, {1}, None, None]


# ---- kernels that stay in the Python simulator, with the reason -------------------------------------
def with_shuffle(out):
    out[cuda.threadIdx.x] = cuda.shfl_down_sync(0xFFFFFFFF, cuda.threadIdx.x, 1)


def with_print(out):
    print(cuda.threadIdx.x)


def spinning(flags, out):
    i = cuda.threadIdx.x
    if i == 0:
        while flags[0] == 0:   # waits for thread 1, which runs after it
            pass
        out[0] = 1
    else:
        flags[0] = 1


@cuda.jit(device=True)
def _flag_set(flags):
    return flags[0] != 0


def spinning_through_a_variable(flags, out):
    i = cuda.threadIdx.x
    if i == 0:
        done = False
        while not done:            # the condition reads no memory, the variable does
            done = _flag_set(flags)
        out[0] = 1
    else:
        flags[0] = 1


@cuda.jit(device=True)
def _device_barrier():
    cuda.syncthreads()


def via_device_barrier(out):
    _device_barrier()
    out[cuda.threadIdx.x] = 1


def barrier_in_loop(out):
    sh = cuda.shared.array(32, int32)
    for k in range(2):
        sh[cuda.threadIdx.x] = k
        cuda.syncthreads()
    out[cuda.threadIdx.x] = sh[0]


def return_before_barrier(out):
    sh = cuda.shared.array(32, int32)
    if cuda.threadIdx.x > 30:
        return
    sh[cuda.threadIdx.x] = 1
    cuda.syncthreads()
    out[cuda.threadIdx.x] = sh[0]


def over_aligned(out):
    loc = cuda.local.array(4, int32, 128)
    loc[0] = 1
    out[0] = loc.ctypes.data % 128


@pytest.mark.parametrize("fn, why", [
    (over_aligned, "alignment=128"),
    (barrier_in_loop, "cuda.syncthreads"),
    (return_before_barrier, "a return before a barrier"),
    (with_shuffle, "cuda.shfl_down_sync"),
    (with_print, "print"),
    (spinning, "may wait for another thread"),
    (spinning_through_a_variable, "may wait for another thread"),
    (via_device_barrier, "cuda.syncthreads"),
])
def test_kernels_whose_threads_meet_run_in_the_python_simulator(fn, why, caplog):
    py, comp = both(fn)
    with caplog.at_level(logging.DEBUG, logger="numba_cuda.simulator.compiled"):
        assert comp.sim_mode != "compiled"
    assert why in comp.sim_compiled_reason
    assert why in caplog.text
    a_py = [np.zeros(2, np.int32), np.zeros(32, np.int32)]
    a_comp = [np.zeros(2, np.int32), np.zeros(32, np.int32)]
    nargs = fn.__code__.co_argcount
    if fn is not with_print:
        py[1, 32](*a_py[2 - nargs:])
        comp[1, 32](*a_comp[2 - nargs:])
        assert_same(a_py, a_comp)


def test_debug_kernels_and_untypable_arguments_run_in_the_python_simulator():
    kernel = cuda.jit(sim_mode="compiled", debug=True)(elementwise)
    assert kernel.sim_mode == "sequential" and "debug=True" in kernel.sim_compiled_reason
    kernel = cuda.jit(sim_mode="compiled")(grid_stride)
    out = np.zeros(3, ">f4")
    kernel[1, 4](np.full(3, 2, ">f4"), out)     # big-endian arrays: Numba cannot type them
    assert "cannot type" in kernel.sim_compiled_reason
    assert out.tolist() == [3.0, 3.0, 3.0]


def test_arrays_in_tuples_are_restored_after_an_error():
    def k(pair, n):
        i = cuda.grid(1)
        dst = pair[0]
        dst[i] = pair[1][i] + n      # pair[1] has 20 elements, the grid 32 threads

    py, comp = both(k)
    results = []
    for kernel in (py, comp):
        pair = (np.zeros(32, np.int64), np.arange(20, dtype=np.int64))
        with pytest.raises(IndexError) as info:
            kernel[1, 32](pair, 5)
        results.append((str(info.value), pair[0].tolist()))
    assert results[1] == results[0]
    assert results[0][1][:20] == list(range(5, 25))
    assert "rerun in the Python simulator" in comp.sim_compiled_reason  # it ran compiled first


def test_without_the_device_nrt_an_allocating_kernel_is_refused_as_in_the_python_path(monkeypatch):
    # Numba's CPU target would allocate: the kernel stays in the Python path, which refuses it
    # with the compiler's error naming NUMBA_CUDA_ENABLE_NRT
    from numba.core import config
    from numba.core.errors import TypingError

    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)

    def scratch(out):
        tmp = np.zeros(4)
        out[0] = tmp[0]

    kernel = cuda.jit(sim_mode="compiled")(scratch)
    with pytest.raises(TypingError, match="NUMBA_CUDA_ENABLE_NRT"):
        kernel[1, 1](np.ones(1))

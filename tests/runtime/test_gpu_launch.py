"""Kernel launches on a real GPU (needs the compiler): arguments of every kind, streams,
launch checks, host arrays, interop arrays, the PTX/driver plan on this machine."""

import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda():
    from numba import cuda as module

    return module


def test_simple_kernel(cuda):
    @cuda.jit
    def add_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    d = cuda.to_device(np.arange(1000, dtype=np.float32))
    add_one[8, 128](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(1000, dtype=np.float32) + 1)


@pytest.mark.parametrize("order", ["C", "F"])
def test_2d_arrays_and_slices(cuda, order):
    @cuda.jit
    def scale(a, k):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= k

    host = np.asarray(np.arange(48, dtype=np.float64).reshape(6, 8), order=order)
    d = cuda.to_device(host)
    scale[(1, 1), (8, 8)](d[1:5, ::3], 2.0)
    expect = host.copy()
    expect[1:5, ::3] *= 2.0
    np.testing.assert_array_equal(d.copy_to_host(), expect)


def test_scalars_complex_bool_tuple(cuda):
    @cuda.jit
    def k(out, a, b, c, flag, t):
        out[0] = a + b
        out[1] = c.real
        out[2] = c.imag
        out[3] = 1.0 if flag else 0.0
        out[4] = t[0] + t[1][0] + t[1][1]

    out = cuda.device_array(5, dtype=np.float64)
    k[1, 1](out, np.int8(3), 2.5, 1.5 - 4j, True, (1, (2.0, 3)))
    np.testing.assert_array_equal(out.copy_to_host(), [5.5, 1.5, -4.0, 1.0, 6.0])


def test_record_argument(cuda):
    rec_t = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

    @cuda.jit
    def k(r, out):
        out[0] = r.a + r.b
        r.a = 42

    recs = np.zeros(1, dtype=rec_t)
    recs[0]["a"], recs[0]["b"] = 2, 0.5
    out = cuda.device_array(1)
    k[1, 1](recs[0], out)
    assert out.copy_to_host()[0] == 2.5
    assert recs[0]["a"] == 42


def test_host_array_is_copied_both_ways_with_a_warning(cuda):
    @cuda.jit
    def twice(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    host = np.arange(10, dtype=np.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        twice[1, 32](host)
    assert any("copied to the device" in str(w.message) for w in caught)
    np.testing.assert_array_equal(host, np.arange(10) * 2)


def test_streams_and_dynamic_shared_memory(cuda):
    @cuda.jit
    def rev(a):
        buf = cuda.shared.array(0, dtype=np.float32)
        i = cuda.threadIdx.x
        buf[i] = a[i]
        cuda.syncthreads()
        a[i] = buf[a.size - 1 - i]

    s = cuda.stream()
    d = cuda.to_device(np.arange(64, dtype=np.float32), stream=s)
    rev[1, 64, s, 64 * 4](d)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(64, dtype=np.float32)[::-1])


def test_launch_config_checked_before_the_driver(cuda):
    from numba_cuda.errors import LaunchConfigError

    @cuda.jit
    def nothing(a):
        pass

    d = cuda.device_array(1)
    dev = cuda.get_current_device()
    with pytest.raises(LaunchConfigError, match="MAX_THREADS_PER_BLOCK"):
        nothing[1, dev.MAX_THREADS_PER_BLOCK + 1](d)
    with pytest.raises(LaunchConfigError, match="at least 1"):
        nothing[0, 32](d)
    with pytest.raises(LaunchConfigError, match="shared memory"):
        nothing[1, 32, 0, dev.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN + 1](d)


def test_mapped_and_managed_arrays_are_zero_copy(cuda):
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    m = cuda.mapped_array(32, dtype=np.int32)
    fill[1, 32](m, 7)
    cuda.synchronize()
    np.testing.assert_array_equal(m, np.full(32, 7))
    g = cuda.managed_array(32, dtype=np.int32)
    fill[1, 32](g, 9)
    cuda.synchronize()
    np.testing.assert_array_equal(g, np.full(32, 9))


def test_cupy_array_argument(cuda):
    cp = pytest.importorskip("cupy")

    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = cp.zeros(100, dtype=cp.float32)
    inc[1, 128](a)
    cuda.synchronize()
    assert float(a.sum()) == 100.0


def test_kernel_loaded_once_per_context(cuda):
    from numba_cuda.runtime.launch import driver_cuda_version

    @cuda.jit("void(float32[:])")
    def k(a):
        a[0] = 1

    d = cuda.device_array(1, dtype=np.float32)
    ctx = cuda.current_context()
    k[1, 1](d)
    count = len(ctx.kernels)
    k[1, 1](d)
    assert len(ctx.kernels) == count >= 1
    assert all(lk.attributes["max_threads"] > 0 for lk in ctx.kernels.values())
    assert d.copy_to_host()[0] == 1
    assert driver_cuda_version()[0] >= 12

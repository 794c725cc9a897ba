"""CUDA ufuncs and cuda.reduce on a real GPU, checked against NumPy."""

import numpy as np
import pytest

from tests.support import kernel_sources

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda():
    from numba import cuda as module

    return module


@pytest.fixture(scope="module")
def rel():
    from numba import vectorize

    return vectorize(["float32(float32, float32)", "float64(float64, float64)"],
                     target="cuda")(kernel_sources.rel)


def expected_rel(a, b):
    return 2 * (a - b) / (a + b)


def test_vectorize_host_and_device(cuda, rel):
    x = np.linspace(1, 2, 100_000)
    y = np.linspace(3, 5, 100_000)
    got = rel(x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_allclose(got, expected_rel(x, y))
    d = rel(cuda.to_device(x), cuda.to_device(y))
    assert cuda.is_cuda_array(d)
    np.testing.assert_allclose(d.copy_to_host(), expected_rel(x, y))
    x32 = x.astype(np.float32)
    got32 = rel(x32, np.float32(2))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, expected_rel(x32, np.float32(2)), rtol=1e-6)


def test_vectorize_broadcasting_strides_and_conversions(cuda, rel):
    x = np.arange(1, 61, dtype=np.float64).reshape(3, 4, 5)
    row = np.linspace(1, 2, 5)
    np.testing.assert_allclose(rel(x, row), expected_rel(x, row))
    np.testing.assert_allclose(rel(cuda.to_device(x), 2.5).copy_to_host(), expected_rel(x, 2.5))
    t = np.asfortranarray(x)
    np.testing.assert_allclose(rel(t, x[:, ::-1, :]), expected_rel(t, x[:, ::-1, :]))
    ints = np.arange(1, 11, dtype=np.int16)
    np.testing.assert_allclose(rel(cuda.to_device(ints), 1.0).copy_to_host(),
                               expected_rel(ints.astype(np.float64), 1.0))


def test_vectorize_out_and_stream(cuda, rel):
    x = np.linspace(1, 2, 4096)
    stream = cuda.stream()
    d_out = cuda.device_array_like(x)
    assert rel(cuda.to_device(x, stream=stream), 0.5, out=d_out, stream=stream) is d_out
    stream.synchronize()
    np.testing.assert_allclose(d_out.copy_to_host(), expected_rel(x, 0.5))
    host_out = np.empty_like(x)
    assert rel(x, x[::-1].copy(), out=host_out) is host_out
    np.testing.assert_allclose(host_out, expected_rel(x, x[::-1]))


def test_vectorize_scalars_only_and_empty(rel):
    assert rel(3.0, 1.0) == pytest.approx(1.0)
    assert rel(np.zeros((0, 4)), 1.0).shape == (0, 4)


def test_guvectorize_matmul(cuda):
    from numba import guvectorize

    matmul = guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])",
                          "void(float64[:,:], float64[:,:], float64[:,:])"],
                         "(m,n),(n,p)->(m,p)", target="cuda")(kernel_sources.matmul)

    rng = np.random.default_rng(1)
    a = rng.random((64, 8, 6))
    b = rng.random((6, 4))
    np.testing.assert_allclose(matmul(a, b), a @ b)
    d_c = cuda.device_array((64, 8, 4))
    matmul(cuda.to_device(a), cuda.to_device(b), out=d_c)
    np.testing.assert_allclose(d_c.copy_to_host(), a @ b)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_allclose(matmul(a32, b32), a32 @ b32, rtol=1e-5)


def test_guvectorize_scalar_inputs_and_two_outputs(cuda):
    from numba import guvectorize

    scaled_min_max = guvectorize(["void(float64[:], float64, float64[:], float64[:])"],
                                 "(n),()->(),()", target="cuda")(kernel_sources.scaled_min_max)

    data = np.random.default_rng(2).random((1000, 17))
    lo, hi = scaled_min_max(data, 3.0)
    np.testing.assert_allclose(lo, (data * 3).min(axis=1))
    np.testing.assert_allclose(hi, (data * 3).max(axis=1))
    d_lo, d_hi = scaled_min_max(cuda.to_device(data), -1.0)
    np.testing.assert_allclose(d_lo.copy_to_host(), (-data).min(axis=1))
    np.testing.assert_allclose(d_hi.copy_to_host(), (-data).max(axis=1))


@pytest.mark.parametrize("n", [1, 255, 256, 257, 100_000, 3_000_001])
def test_reduce_sum(cuda, n):
    total = cuda.reduce(kernel_sources.add)
    values = np.arange(n, dtype=np.int64) % 1000 - 300
    assert total(values) == values.sum()
    assert total(cuda.to_device(values), init=5) == values.sum() + 5
    assert total(values, size=(n + 1) // 2) == values[:(n + 1) // 2].sum()


def test_reduce_max_res_stream_float(cuda):
    biggest = cuda.reduce(kernel_sources.biggest)
    values = np.random.default_rng(3).random(1_234_567)
    stream = cuda.stream()
    res = cuda.device_array(1, np.float64)
    assert biggest(cuda.to_device(values, stream=stream), res=res, init=-1.0,
                   stream=stream) is None
    stream.synchronize()
    assert res.copy_to_host()[0] == values.max()
    f32 = np.ones(10_000, np.float32)

    fsum = cuda.reduce(kernel_sources.add)
    got = fsum(f32)
    assert got == np.float32(10_000) and got.dtype == np.float32
    assert fsum(np.zeros(0, np.float32), init=2.5) == 2.5


def test_ufunc_reduce(cuda):
    from numba import vectorize

    add = vectorize(["int64(int64, int64)"], target="cuda")(kernel_sources.add)
    values = np.arange(100_001, dtype=np.int64)
    assert add.reduce(values) == values.sum()
    assert add.reduce(cuda.to_device(values)) == values.sum()

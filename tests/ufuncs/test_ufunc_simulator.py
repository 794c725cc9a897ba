"""CUDA ufuncs computed by the simulator, checked against NumPy.

Most tests build the ufuncs with the simulator backend in this process: the kernels are the
ones the GPU runs (same generated source, same launch shapes), executed by the simulator.  The
last test runs Numba's decorators and ``cuda.reduce`` under ``NUMBA_ENABLE_CUDASIM=1``.
"""

import json

import numpy as np
import pytest

from numba_cuda.simulator import api as sim
from numba_cuda.ufuncs import reduction
from numba_cuda.ufuncs.backend import SimulatorBackend
from numba_cuda.ufuncs.gufunc import CUDAGUFuncVectorize
from numba_cuda.ufuncs.vectorize import CUDAVectorize
from tests.support import kernel_sources
from tests.support.kernel_sources import SOURCE_DIR


def vectorize(sigs):
    def wrap(fn):
        builder = CUDAVectorize(fn, backend=SimulatorBackend())
        for sig in sigs:
            builder.add(sig)
        return builder.build_ufunc()

    return wrap


def guvectorize(sigs, layout):
    def wrap(fn):
        builder = CUDAGUFuncVectorize(fn, layout, backend=SimulatorBackend())
        for sig in sigs:
            builder.add(sig)
        return builder.build_ufunc()

    return wrap


# The kernels of tests/support/kernel_sources.py, which the GPU tests run too.
rel = vectorize(["float32(float32, float32)", "float64(float64, float64)"])(kernel_sources.rel)


def expected_rel(a, b):
    return 2 * (a - b) / (a + b)


# ---- vectorize -------------------------------------------------------------------------------


def test_host_arrays_in_host_array_out():
    x = np.linspace(1, 2, 1000)
    y = np.linspace(3, 4, 1000)
    got = rel(x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_allclose(got, expected_rel(x, y))


def test_signature_picks_the_result_dtype():
    x = np.linspace(1, 2, 10, dtype=np.float32)
    got = rel(x, x[::-1].copy())
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected_rel(x, x[::-1]), rtol=1e-6)


def test_broadcasting_and_scalars():
    x = np.arange(1, 25, dtype=np.float64).reshape(2, 3, 4)
    y = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(rel(x, y), expected_rel(x, y))
    np.testing.assert_allclose(rel(x, 1.5), expected_rel(x, 1.5))
    np.testing.assert_allclose(rel(2.5, x[:, :1, :]), expected_rel(2.5, x[:, :1, :]))
    column = np.arange(1.0, 4.0).reshape(3, 1)
    np.testing.assert_allclose(rel(column, y), expected_rel(column, y))


def test_non_contiguous_inputs_and_conversions():
    x = np.arange(1, 49, dtype=np.float64).reshape(6, 8)
    np.testing.assert_allclose(rel(x.T, x.T[::-1]), expected_rel(x.T, x.T[::-1]))
    np.testing.assert_allclose(rel(x[::2, 1::3], 0.5), expected_rel(x[::2, 1::3], 0.5))
    ints = np.arange(1, 9, dtype=np.int32)    # converted to float64 inside the kernel
    got = rel(ints, ints + 1)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected_rel(ints.astype(float), ints + 1.0))


def test_device_arrays_give_device_results():
    x = np.linspace(1, 2, 300)
    d_x = sim.to_device(x)
    got = rel(d_x, 2.0)
    assert sim.is_cuda_array(got)
    np.testing.assert_allclose(got.copy_to_host(), expected_rel(x, 2.0))
    # a host input mixed with a device input is copied in
    got = rel(d_x, x[::-1].copy())
    np.testing.assert_allclose(got.copy_to_host(), expected_rel(x, x[::-1]))


def test_out_argument_host_and_device_with_stream():
    x = np.linspace(1, 2, 64).reshape(8, 8)
    out = np.zeros_like(x)
    assert rel(x, x.T, out=out) is out
    np.testing.assert_allclose(out, expected_rel(x, x.T))
    out32 = np.zeros(x.shape, np.float32)      # same-kind store into another dtype
    rel(x, 3.0, out=out32)
    np.testing.assert_allclose(out32, expected_rel(x, 3.0).astype(np.float32), rtol=1e-6)
    stream = sim.stream()
    d_out = sim.device_array(x.shape, np.float64)
    assert rel(sim.to_device(x), x, d_out, stream=stream) is d_out  # out positionally
    stream.synchronize()
    np.testing.assert_allclose(d_out.copy_to_host(), np.zeros_like(x))


def test_zero_dim_and_empty_calls():
    assert rel(3.0, 1.0) == pytest.approx(1.0)
    assert rel(3.0, 1.0).dtype == np.float64     # only Python scalars: NumPy's default types
    assert rel(np.float32(3), np.float32(1)).dtype == np.float32
    empty = rel(np.zeros((0, 3)), 1.0)
    assert empty.shape == (0, 3)


def test_boolean_and_integer_results():
    @vectorize(["boolean(float64, float64)"])
    def closer_than_half(a, b):
        return abs(a - b) < 0.5

    @vectorize(["int32(int32, int32)", "int64(int64, int64)"])
    def wrapping_mul(a, b):
        return a * b

    x = np.linspace(0, 3, 31)
    np.testing.assert_array_equal(closer_than_half(x, 1.0), np.abs(x - 1) < 0.5)
    big = np.array([2**30, 3, -7], np.int32)
    got = wrapping_mul(big, np.array([4, 5, 6], np.int32))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, (big.astype(np.int64) * [4, 5, 6]).astype(np.int32))


def test_ufunc_reduce_method():
    @vectorize(["int64(int64, int64)"])
    def add(a, b):
        return a + b

    values = np.arange(1, 1001, dtype=np.int64)
    assert add.reduce(values) == values.sum()
    with pytest.raises(TypeError, match="empty"):
        add.reduce(np.zeros(0, np.int64))


# ---- guvectorize -----------------------------------------------------------------------------


matmul = guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])",
                      "void(float64[:,:], float64[:,:], float64[:,:])"],
                     "(m,n),(n,p)->(m,p)")(kernel_sources.matmul)


def test_gufunc_batched_and_broadcast():
    rng = np.random.default_rng(5)
    a = rng.random((5, 3, 4))
    b = rng.random((4, 2))
    np.testing.assert_allclose(matmul(a, b), a @ b)
    one = matmul(a[0], b)   # no loop dimensions
    assert one.shape == (3, 2)
    np.testing.assert_allclose(one, a[0] @ b)
    a32 = a.astype(np.float32)
    got = matmul(a32, b.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a32 @ b.astype(np.float32), rtol=1e-5)


def test_gufunc_outputs_positional_out_and_device():
    rng = np.random.default_rng(6)
    a = rng.random((4, 2, 3))
    b = rng.random((4, 3, 5))
    c = np.zeros((4, 2, 5))
    assert matmul(a, b, c) is c
    np.testing.assert_allclose(c, a @ b)
    d_c = sim.device_array((4, 2, 5), np.float64)
    assert matmul(sim.to_device(a), b, out=d_c) is d_c
    np.testing.assert_allclose(d_c.copy_to_host(), a @ b)
    got = matmul(sim.to_device(a), sim.to_device(b))
    assert sim.is_cuda_array(got)
    np.testing.assert_allclose(got.copy_to_host(), a @ b)


def test_gufunc_scalar_and_cell_arguments():
    scaled_sum = guvectorize(["void(float64[:], float64, float64[:])"],
                             "(n),()->()")(kernel_sources.scaled_sum)

    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(scaled_sum(x, 2.0), (x * 2).sum(axis=1))
    np.testing.assert_allclose(scaled_sum(x, np.array([1.0, 2.0, 3.0])),
                               (x * [[1.0], [2.0], [3.0]]).sum(axis=1))
    assert scaled_sum(np.arange(4.0), 3.0) == pytest.approx(18.0)


def test_gufunc_two_outputs():
    @guvectorize(["void(int64[:], int64[:], int64[:])"], "(n)->(),()")
    def min_max(a, lo, hi):
        lo[0] = a[0]
        hi[0] = a[0]
        for i in range(1, a.shape[0]):
            if a[i] < lo[0]:
                lo[0] = a[i]
            if a[i] > hi[0]:
                hi[0] = a[i]

    data = np.random.default_rng(7).integers(-100, 100, size=(6, 9))
    lo, hi = min_max(data)
    np.testing.assert_array_equal(lo, data.min(axis=1))
    np.testing.assert_array_equal(hi, data.max(axis=1))


def test_gufunc_call_errors():
    with pytest.raises(ValueError, match="invalid gufunc layout.*undefined output symbols: m"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->(m)")(lambda a, b: None)
    with pytest.raises(TypeError, match="device array of int64"):
        matmul(sim.to_device(np.ones((2, 2), np.int64)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="loop dimensions"):
        matmul(np.ones((3, 2, 2)), np.ones((2, 2)), np.zeros((4, 2, 2)))


# ---- the GPU reduction algorithm, run by the simulator ------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1000, 2 * 256 + 3, 5 * 256 + 1])
def test_reduction_sizes(monkeypatch, n):
    monkeypatch.setattr(reduction, "MAX_BLOCKS", 3)  # > 3 blocks of data: grid-stride loops
    r = reduction.Reduce(kernel_sources.add, backend=SimulatorBackend())
    values = np.arange(n, dtype=np.int64) * 3 - 7
    assert r(values) == values.sum()
    assert r(values, init=11) == values.sum() + 11
    assert r(sim.to_device(values), size=max(n // 2, 1)) == values[:max(n // 2, 1)].sum()


def test_reduction_res_stream_and_types():
    r = reduction.Reduce(kernel_sources.biggest, backend=SimulatorBackend())
    values = np.random.default_rng(8).random(3001)
    res = sim.device_array(1, np.float64)
    stream = sim.stream()
    assert r(sim.to_device(values), res=res, init=-1.0, stream=stream) is None
    stream.synchronize()
    assert res.copy_to_host()[0] == values.max()
    assert r(values, init=2.0) == 2.0
    c = reduction.Reduce(kernel_sources.add, backend=SimulatorBackend())
    z = (np.arange(50) + 1j * np.arange(50)).astype(np.complex128)
    assert c(z) == z.sum()
    f32 = np.ones(700, np.float32)
    got = c(f32)
    assert isinstance(got, np.float32) and got == 700
    empty_res = sim.device_array(1, np.int32)
    assert c(np.zeros(0, np.int32), res=empty_res, init=4) is None
    assert empty_res.copy_to_host()[0] == 4


# ---- decorators and cuda.reduce under NUMBA_ENABLE_CUDASIM=1 ----------------------------------


def test_decorators_and_reduce_in_a_simulator_process(run_script):
    proc = run_script("""
        import json
        import numpy as np
        import sys
        from numba import cuda, guvectorize, vectorize

        sys.path.insert(0, SOURCE_DIR)
        import kernel_sources

        hyp = vectorize(["float64(float64, float64)"], target="cuda")(kernel_sources.hyp)
        cumsum = guvectorize(["void(float64[:], float64[:])"], "(n)->(n)",
                             target="cuda")(kernel_sources.cumsum)
        total = cuda.reduce(kernel_sources.add)

        x = np.arange(10.0)
        res = cuda.device_array(1, np.float64)
        total(cuda.to_device(x), res=res, init=1.0)
        print(json.dumps({
            "backend": hyp.backend.name,
            "hyp": hyp(x, 2.0).tolist(),
            "cumsum": cumsum(x.reshape(2, 5)).tolist(),
            "total": float(total(x)),
            "res": float(res.copy_to_host()[0]),
            "reduce_is_sim": type(total).__module__,
        }))
    """.replace("SOURCE_DIR", repr(SOURCE_DIR)), env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    x = np.arange(10.0)
    assert got["backend"] == "simulator"
    np.testing.assert_allclose(got["hyp"], np.hypot(x, 2.0))
    np.testing.assert_allclose(got["cumsum"], np.cumsum(x.reshape(2, 5), axis=1))
    assert got["total"] == 45.0 and got["res"] == 46.0
    assert got["reduce_is_sim"] == "numba_cuda.simulator.reduction"


def test_return_type_inferred_in_the_simulator_or_asked_for():
    import math

    @vectorize(["(float64, float64)"])
    def hyp(a, b):
        return math.sqrt(a * a + b * b)

    assert hyp.loops[0].outtypes[0].name == "float64"
    np.testing.assert_allclose(hyp(np.array([3.0, 5.0]), np.array([4.0, 12.0])), [5.0, 13.0])
    with pytest.raises(TypeError, match="write it in the signature"):
        vectorize(["(float64,)"])(lambda a: math.log(a - 1))

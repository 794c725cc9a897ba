"""Keyword arguments and defaults at launch in the simulator: the semantics of the GPU target
(tests/runtime/test_launch_keywords.py) -- the kernel sees the arguments Python would bind,
eager signatures convert defaults too, and arguments that do not fit raise Python's own
``TypeError`` before any thread runs."""

import pickle

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda


@cuda.jit
def axpy(x, y, out, a=2.0):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def _data():
    return np.arange(4.0), np.ones(4), np.zeros(4)


@pytest.mark.parametrize("call", [
    lambda x, y, out: axpy[1, 4](x, y, out=out),
    lambda x, y, out: axpy[1, 4](out=out, y=y, x=x),
    lambda x, y, out: axpy[1, 4](x, y, out, 2.0),
    lambda x, y, out: axpy[1, 4](x, y, out),
    lambda x, y, out: axpy.forall(4)(x, y, out=out),
    lambda x, y, out: axpy.specialize(x, y, out=out)[1, 4](x, y, out=out),
])
def test_keywords_and_defaults_reach_the_kernel(call):
    x, y, out = _data()
    call(x, y, out)
    assert out.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_keyword_overrides_default():
    x, y, out = _data()
    axpy[1, 4](y=x, x=y, out=out, a=3.0)
    assert out.tolist() == [3.0, 4.0, 5.0, 6.0]


def _python_says(pyfunc, args, kwargs):
    with pytest.raises(TypeError) as info:
        pyfunc(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("args, kwargs, ending", [
    ((1, 1), {}, "missing 1 required positional argument: 'out'"),
    ((1, 1, 1), {"z": 1}, "got an unexpected keyword argument 'z'"),
    ((1, 1, 1), {"x": 1}, "got multiple values for argument 'x'"),
    ((1, 1, 1, 1, 1), {}, "takes from 3 to 4 positional arguments but 5 were given"),
])
@pytest.mark.parametrize("how", ["launch", "forall", "empty forall", "specialize"])
def test_arguments_that_do_not_fit_raise_pythons_type_error(args, kwargs, ending, how):
    x = np.zeros(4)
    args = tuple(x for _ in args)
    kwargs = {name: x for name in kwargs}
    start = {"launch": lambda: axpy[1, 4], "forall": lambda: axpy.forall(4),
             "empty forall": lambda: axpy.forall(0), "specialize": lambda: axpy.specialize}[how]()
    with pytest.raises(TypeError) as info:
        start(*args, **kwargs)
    assert str(info.value) == _python_says(axpy.py_func, args, kwargs)
    assert str(info.value) == f"axpy() {ending}"
    assert not x.any()


def test_no_thread_runs_when_binding_fails():
    ran = np.zeros(1)

    @cuda.jit
    def k(flag, n=1):
        flag[0] = 1

    with pytest.raises(TypeError, match=r"k\(\) got an unexpected keyword argument 'm'$"):
        k[1, 1](ran, m=2)
    assert ran[0] == 0


def test_eager_signature_converts_defaults_and_keywords():
    @cuda.jit("void(float64[:], int8, float32)")
    def k(out, n=130, scale=0.1):
        out[0] = n
        out[1] = scale

    out = np.zeros(2)
    k[1, 1](out)
    assert out[0] == np.int8(130 - 256)  # the default wraps to int8, as on the GPU
    assert out[1] == np.float32(0.1)
    k[1, 1](out, scale=0.5, n=3)
    assert out.tolist() == [3.0, 0.5]


def test_keyword_only_parameters():
    @cuda.jit
    def k(out, *, n=1, m):
        out[0] = n * 10 + m

    out = np.zeros(1)
    k[1, 1](out, m=5)
    assert out[0] == 15
    k[1, 1](out, m=6, n=2)
    assert out[0] == 26
    with pytest.raises(TypeError, match=r"k\(\) takes 1 positional argument but 3 were given$"):
        k[1, 1](out, 1, 5)


def test_device_functions_still_take_keywords():
    @cuda.jit(device=True)
    def combine(x, y=1.0, z=2.0):
        return x * y + z

    @cuda.jit
    def k(out, x=4.0):
        out[0] = combine(x, z=3.0, y=2.0)

    out = np.zeros(1)
    k[1, 1](out, x=5.0)
    assert out[0] == 13.0


def _closure_kernel(bias):
    @cuda.jit
    def shifted(out, n=3, scale=2.0):
        out[0] = n * scale + bias

    return shifted


def test_pickled_kernel_and_launcher_keep_keywords_and_defaults():
    cloudpickle = pytest.importorskip("cloudpickle")
    from numba_cuda.common import pickling

    k = _closure_kernel(0.5)
    blob, launcher_blob = cloudpickle.dumps(k), cloudpickle.dumps(k[1, 1])
    pickling._memo.clear()  # as in another process
    clone = pickle.loads(blob)
    assert clone is not k
    out = np.zeros(1)
    clone[1, 1](out, scale=4.0)
    assert out[0] == 12.5
    clone[1, 1](out)
    assert out[0] == 6.5
    launcher = pickle.loads(launcher_blob)
    launcher(out, n=1)
    assert out[0] == 2.5
    with pytest.raises(TypeError, match=r"shifted\(\) got an unexpected keyword argument 'm'$"):
        launcher(out, m=1)


@pytest.mark.parametrize("mode", ["python", "threads"])
def test_keyword_only_parameters_of_a_kernel_with_barriers(mode):
    @cuda.jit(sim_mode=mode)
    def reverse(a, *, out, n=4):
        s = cuda.shared.array(4, np.float64)
        i = cuda.threadIdx.x
        s[i] = a[i]
        cuda.syncthreads()
        out[i] = s[n - 1 - i]

    a, out = np.arange(4.0), np.zeros(4)
    reverse[1, 4](a, out=out)
    assert out.tolist() == [3.0, 2.0, 1.0, 0.0]
    assert reverse.sim_mode in ("coroutines", "threads")

"""Keyword arguments and defaults at launch on the GPU target (``numba_cuda.common.args.ParameterBinder``),
checked on the fake driver: what reaches ``cuLaunchKernel`` is the positional tuple Python would
bind, through eager signatures, ``specialize``, ``forall``, the prepared launch path and pickling;
arguments that do not fit raise Python's own ``TypeError`` before anything is compiled."""

import pickle
import struct

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def _values(fake, kernel, argtypes=None):
    """The parameter values of the last recorded launch of ``kernel``, decoded with the packer
    of ``argtypes`` (default: the kernel's only compiled signature)."""
    from numba_cuda.runtime.argpack import ArgPacker

    if argtypes is None:
        (argtypes,) = kernel.overloads
    codes = ArgPacker(argtypes).codes
    return [struct.unpack("<" + c, raw)[0] for c, raw in zip(codes, fake.launches[-1]["params"])]


def test_keywords_pack_as_the_positional_launch(fake):
    from numba import cuda

    @cuda.jit
    def k(a, scale, n, flag):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 32](a, 2.5, 7, True)
    positional = fake.launches[-1]["params"]
    for call in (lambda: k[1, 32](a, 2.5, n=7, flag=True),
                 lambda: k[1, 32](flag=True, n=7, scale=2.5, a=a),
                 lambda: k[1, 32](a, flag=True, scale=2.5, n=7)):
        call()
        assert fake.launches[-1]["params"] == positional
    assert len(k.overloads) == 1  # one specialisation for all of them
    assert _values(fake, k)[-3:] == [2.5, 7, 1]


def test_defaults_are_launched_as_values_of_their_own_types(fake):
    from numba import cuda, int64, float64, types

    @cuda.jit
    def k(a, n=7, scale=0.5, out=None):
        if out is not None:
            out[0] = n * scale

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 32](a)
    assert _values(fake, k)[-3:] == [7, 0.5, 0]  # None: a null pointer, as Numba passes it
    defaulted = fake.launches[-1]["params"]
    k[1, 32](a, 7, 0.5, None)
    assert fake.launches[-1]["params"] == defaulted
    assert list(k.overloads) == [(typeof_arg(a), int64, float64, types.none)]
    k[1, 32](a, scale=2.0)
    assert _values(fake, k)[-3:] == [7, 2.0, 0]
    out = cuda.to_device(np.zeros(1))
    k[1, 32](a, out=out)  # another specialisation: out is an array now
    assert len(k.overloads) == 2
    with_out = _values(fake, k, list(k.overloads)[1])
    # an array is 7 parameters (meminfo, parent, nitems, itemsize, data, shape, stride)
    assert with_out[7:9] == [7, 0.5] and with_out[9 + 4] == out.device_pointer_value


def typeof_arg(value):
    from numba import typeof
    from numba.core.typing.typeof import Purpose

    return typeof(value, Purpose.argument)


BAD_CALLS = [
    ((1, 2), {"z": 2}, "k() got an unexpected keyword argument 'z'"),
    ((), {"n": 1}, "k() missing 1 required positional argument: 'a'"),
    ((1,), {"a": 1}, "k() got multiple values for argument 'a'"),
    ((1, 2, 3, 4), {}, "k() takes from 1 to 3 positional arguments but 4 were given"),
    ((), {}, "k() missing 1 required positional argument: 'a'"),
]


def _python_says(pyfunc, args, kwargs):
    with pytest.raises(TypeError) as info:
        pyfunc(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("how", ["launch", "forall", "empty forall", "specialize"])
@pytest.mark.parametrize("args, kwargs, message", BAD_CALLS)
def test_arguments_that_do_not_fit_raise_pythons_type_error_before_compiling(
        fake, how, args, kwargs, message):
    from numba import cuda

    @cuda.jit
    def k(a, n=1, m=2):
        a[0] = n + m

    a = cuda.to_device(np.zeros(4, np.float32))
    args = tuple(a if v == 1 else v for v in args)
    kwargs = {name: (a if v == 1 else v) for name, v in kwargs.items()}
    start = {"launch": lambda: k[1, 1], "forall": lambda: k.forall(4),
             "empty forall": lambda: k.forall(0), "specialize": lambda: k.specialize}[how]()
    with pytest.raises(TypeError) as info:
        start(*args, **kwargs)
    # Python's own words, naming the kernel as Python names its function
    assert str(info.value) == _python_says(k.py_func, args, kwargs)
    assert str(info.value).endswith(message) and ".<locals>.k()" in str(info.value)
    assert not k.overloads and not fake.launches


def test_unknown_keyword_after_a_launch_does_not_reuse_its_plan(fake):
    from numba import cuda

    @cuda.jit
    def k(a, n=1):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, n=3)
    with pytest.raises(TypeError, match=r"k\(\) got an unexpected keyword argument 'm'$"):
        k[1, 1](a, m=3)
    with pytest.raises(TypeError, match=r"k\(\) takes from 1 to 2 positional arguments but 3"):
        k[1, 1](a, 3, 4)
    assert len(fake.launches) == 1


def test_prepared_path_binds_only_what_needs_binding(fake, monkeypatch):
    from numba import cuda

    @cuda.jit
    def k(a, n=7):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, 3)
    k[1, 1](a)   # relies on the default: a plan of its own, which binds
    k[1, 1](a, n=5)
    plans = next(iter(k._launch_plans.values()))
    # (a, 3) and the keyword launch share the plan of (array, int64); (a,) has its own
    assert {len(key): plan.binder is not None for key, plan in plans.items()} == {
        2: False, 1: True}
    calls = []
    original = k._binder

    class Counting:
        arity = original.arity

        def __call__(self, args, kwargs):
            calls.append((args, dict(kwargs)))
            return original(args, kwargs)

    counting = Counting()
    k._binder = counting
    for plan in plans.values():
        if plan.binder is not None:
            plan.binder = counting
    typed = []
    original_typeof = type(k).typeof_argument
    monkeypatch.setattr(type(k), "typeof_argument",
                        lambda self, v, *i: typed.append(v) or original_typeof(self, v, *i))
    k[1, 1](a, 4)
    assert calls == [] and typed == []  # all arguments given: no binding, no typing
    assert _values(fake, k)[-1] == 4
    k[1, 1](a)
    assert len(calls) == 1 and typed == []
    assert _values(fake, k)[-1] == 7
    k[1, 1](a, n=9)
    assert len(calls) == 2 and typed == []
    assert _values(fake, k)[-1] == 9


def test_eager_signature_takes_keywords_and_converts_defaults(fake):
    from numba import cuda

    @cuda.jit("void(float32[::1], float32, int32)")
    def k(a, scale=1.5, n=2):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, n=3)
    from numba_cuda.runtime.launch import load_kernel

    (plan,) = next(iter(k._launch_plans.values())).values()
    loaded = load_kernel(plan.image)
    assert loaded.packer.codes[-2:] == ["f", "i"]  # the signature's float32 and int32
    assert _values(fake, k)[-2:] == [1.5, 3]
    k[1, 1](a)
    assert _values(fake, k)[-2:] == [1.5, 2]
    k[1, 1](n=-1, a=a, scale=0.25)
    assert _values(fake, k)[-2:] == [0.25, -1]
    assert len(k.overloads) == 1 and not k._can_compile


def test_specialize_binds_keywords_and_defaults(fake):
    from numba import cuda

    @cuda.jit
    def k(a, n=2, scale=1.0):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    s = k.specialize(a, scale=np.float32(3))
    (sig,) = s.signatures
    assert [str(t) for t in sig[1:]] == ["int64", "float32"]
    s[1, 1](a, scale=np.float32(0.5))
    s[1, 1](a, 5, np.float32(2))
    assert _values(fake, s)[-2:] == [5, 2.0]
    assert len(s.overloads) == 1


def test_keyword_only_parameters(fake):
    from numba import cuda

    @cuda.jit
    def k(a, *, n=1, m):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, m=5)
    assert _values(fake, k)[-2:] == [1, 5]
    k[1, 1](a, m=6, n=2)
    assert _values(fake, k)[-2:] == [2, 6]
    with pytest.raises(TypeError, match=r"k\(\) takes 1 positional argument but 3 were given$"):
        k[1, 1](a, 1, 5)
    with pytest.raises(TypeError, match=r"k\(\) missing 1 required keyword-only argument: 'm'$"):
        k[1, 1](a)


def test_kernel_with_double_star_keywords_is_refused_clearly(fake):
    from numba import cuda

    @cuda.jit
    def k(a, **options):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"takes \*\*options: a CUDA kernel's parameters are named"):
        k[1, 1](a)


def test_forall_passes_keywords(fake):
    from numba import cuda

    @cuda.jit
    def k(a, n=1):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k.forall(4)(a, n=8)
    assert _values(fake, k)[-1] == 8


def test_device_functions_keep_numbas_keywords_and_defaults(fake):
    from numba import cuda

    @cuda.jit(device=True)
    def combine(x, y=1.0, z=2.0):
        return x * y + z

    @cuda.jit
    def inner(out, v=3.0):
        out[1] = v

    @cuda.jit
    def k(out, x=4.0):
        out[0] = combine(x, z=3.0, y=2.0)
        inner(out, v=x)

    out = cuda.to_device(np.zeros(2))
    k[1, 1](out, x=5.0)
    ptx = next(iter(k.inspect_asm().values()))
    assert "combine" in ptx or "fma" in ptx or "mul" in ptx
    assert _values(fake, k)[-1] == 5.0


def _closure_kernel():
    from numba import cuda

    bias = 0.5

    @cuda.jit
    def shifted(a, n=3, scale=2.0):
        a[0] = n * scale + bias

    return shifted


def test_pickled_kernel_and_launch_configuration_keep_keywords_and_defaults(fake):
    from numba import cuda

    from numba_cuda.common import pickling

    k = _closure_kernel()
    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, scale=4.0)
    expected = fake.launches[-1]["params"]
    blob, config_blob = pickle.dumps(k), pickle.dumps(k[1, 1])
    pickling._memo.clear()  # as in another process
    clone = pickle.loads(blob)
    assert clone is not k
    clone[1, 1](a, scale=4.0)
    assert fake.launches[-1]["params"] == expected
    clone[1, 1](a)
    assert _values(fake, clone)[-2:] == [3, 2.0]
    config = pickle.loads(config_blob)
    config(a, scale=4.0, n=3)
    assert fake.launches[-1]["params"] == expected
    with pytest.raises(TypeError, match=r"shifted\(\) got an unexpected keyword argument 'm'"):
        config(a, m=1)


def test_keyword_launch_of_keyword_only_kernel_is_no_plan_for_positional_launches(fake):
    from numba import cuda

    @cuda.jit
    def k(a, *, n=1):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a)      # binds n=1 itself (a plan keyed by (a,))
    k[1, 1](a, n=2)  # bound to (a, 2): that is not a positional launch of k
    with pytest.raises(TypeError, match=r"k\(\) takes 1 positional argument but 2 were given$"):
        k[1, 1](a, 2)
    k[1, 1](a, n=3)
    assert _values(fake, k)[-1] == 3
    k[1, 1](a)
    assert _values(fake, k)[-1] == 1


def test_extensions_see_the_bound_arguments_in_parameter_order(fake):
    from numba import cuda

    class Recording:
        def __init__(self):
            self.seen = []

        def prepare_args(self, ty, val, stream=None, retr=None):
            self.seen.append(str(ty))
            return ty, val

    ext = Recording()

    @cuda.jit(extensions=[ext])
    def k(a, n=2, scale=1.0):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](a, scale=np.float32(3))
    assert ext.seen[1:] == ["int64", "float32"]
    k[1, 1](a)
    assert ext.seen[4:] == ["int64", "float64"]
    assert _values(fake, k, list(k.overloads)[1])[-2:] == [2, 1.0]


@pytest.mark.gpu
def test_keywords_and_defaults_on_the_gpu():
    from numba import cuda

    @cuda.jit
    def axpy(x, y, out, a=2.0, counts=None):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]
            if counts is not None:
                cuda.atomic.add(counts, 0, 1)

    x, y = np.arange(64, dtype=np.float32), np.ones(64, dtype=np.float32)
    out = cuda.device_array(64, np.float32)
    axpy[1, 64](x, y, out=out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x + y)
    counts = cuda.to_device(np.zeros(1, np.int64))
    axpy[2, 32](y=x, x=y, out=out, a=np.float32(0.5), counts=counts)
    np.testing.assert_array_equal(out.copy_to_host(), 0.5 * y + x)
    assert counts.copy_to_host()[0] == 64


def test_specializations_are_cached_and_not_specialized_again(fake):
    from numba import cuda

    @cuda.jit
    def k(x):
        pass

    assert k.specializations == {} and not k.specialized
    f32 = k.specialize(np.zeros(4, np.float32))
    assert f32.specialized and len(k.specializations) == 1
    assert k.specialize(np.ones(3, np.float32)) is f32          # the same types: the same one
    i32 = k.specialize(np.zeros(4, np.int32))
    assert i32 is not f32 and len(k.specializations) == 2
    for done in (f32, cuda.jit("void(int32[::1])")(k.py_func)):  # one signature given: too
        assert done.specialized
        with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
            done.specialize(np.zeros(4, np.float32))
    assert not cuda.jit(["void(int32[::1])", "void(float32[::1])"])(k.py_func).specialized

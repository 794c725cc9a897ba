"""What neither target accepts is refused by both, with the same error: generator and
coroutine kernels, Python containers as kernel arguments, arrays of Python objects."""

import numpy as np
import pytest

import numba_cuda as real
from numba_cuda.simulator import api as sim

TARGETS = {"real": real, "simulator": sim}


def gen_kernel(a):
    a[0] = 1
    yield


async def async_kernel(a):
    a[0] = 1


async def async_gen_kernel(a):
    a[0] = 1
    yield


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("device", [False, True])
@pytest.mark.parametrize("func, kind", [
    (gen_kernel, "a generator function"),
    (async_kernel, r"a coroutine function \(async def\)"),
    (async_gen_kernel, "an async generator function"),
])
def test_generator_and_coroutine_functions_are_refused(target, device, func, kind):
    cuda = TARGETS[target]
    with pytest.raises(TypeError, match=rf"@cuda.jit cannot compile {func.__name__}: it is {kind}"):
        cuda.jit(device=device)(func)
    with pytest.raises(TypeError, match=kind):
        cuda.jit("void(int32[:])", device=device)(func)


def _kernel(cuda):
    @cuda.jit
    def k(a):
        a[0] = 1

    return k


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("value, what", [
    ([1, 2, 3], "a Python list cannot be passed to a CUDA kernel"),
    ({0: 1}, "a Python dict cannot be passed to a CUDA kernel"),
    ({1, 2}, "a Python set cannot be passed to a CUDA kernel"),
    ((np.zeros(2), [1]), "a Python list cannot be passed"),
    (np.array([object(), None]), r"an array of Python objects \(dtype object\) cannot live in device"),
])
def test_python_containers_and_object_arrays_are_not_kernel_arguments(target, value, what):
    k = _kernel(TARGETS[target])
    with pytest.raises(TypeError, match=rf"kernel .*k: argument 0: {what}"):
        k[1, 1](value)


def test_simulator_does_not_write_into_a_refused_list():
    k = _kernel(sim)
    lst = [5, 5]
    with pytest.raises(TypeError):
        k[1, 1](lst)
    assert lst == [5, 5]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("make", [
    lambda cuda: cuda.to_device(np.array([object()])),
    lambda cuda: cuda.to_device({1: 2}),
    lambda cuda: cuda.device_array(3, dtype=object),
    lambda cuda: cuda.device_array_like(np.array([None, None])),
])
def test_object_arrays_cannot_be_device_arrays(target, make):
    with pytest.raises(TypeError, match=r"Python objects \(dtype object\) cannot live in device memory"):
        make(TARGETS[target])


@pytest.mark.parametrize("dtype", ["S12", "<U12"])
def test_character_sequence_arrays_stay_supported_in_the_simulator(dtype):
    @sim.jit
    def k(a):
        a[0] = "XYZ" if dtype == "<U12" else b"XYZ"

    a = np.zeros(2, dtype)
    k[1, 1](a)
    d = sim.to_device(a)
    assert d.copy_to_host()[0] in ("XYZ", b"XYZ")


def _with_try(a):
    try:  # MARK-TRY
        a[0] = 1
    except IndexError:
        a[0] = 2


def _device_with_try(a):
    try:
        a[1] = 1
    finally:
        a[0] = 3


def test_try_blocks_are_refused_as_the_compiler_refuses_them():
    """try/except/finally: the compiler's UnsupportedError and wording, naming the try line;
    the simulator would otherwise catch what a GPU thread cannot."""
    import inspect

    from numba import cuda as gpu
    from numba.core.errors import UnsupportedError

    from numba_cuda.common.unsupported import no_try_message

    lines, first = inspect.getsourcelines(_with_try)
    try_line = first + next(i for i, t in enumerate(lines) if "MARK-TRY" in t)
    with pytest.raises(UnsupportedError) as compiled:
        gpu.compile_ptx(_with_try, "void(float64[:])", cc=(7, 5))
    with pytest.raises(UnsupportedError) as simulated:
        sim.jit(_with_try)[1, 1](np.zeros(2))
    for info in (compiled, simulated):
        assert no_try_message() in str(info.value)
        assert f"line {try_line}" in str(info.value) or f"({try_line})" in str(info.value)
    device = sim.jit(device=True)(_device_with_try)

    @sim.jit
    def caller(a):
        device(a)

    a = np.zeros(2)
    with pytest.raises(UnsupportedError, match="try/except is not supported"):
        caller[1, 1](a)
    assert (a == 0).all()  # refused before any thread ran


def _returns_a_value(a):
    return a[0]


def test_a_kernel_must_return_void_with_one_wording_on_both_targets():
    """One check (numba_cuda.common.unsupported.check_void_return), one message, on the compiler's
    paths (compile_ptx, an eager cuda.jit signature) and in the simulator."""
    messages = []
    for make in (lambda: real.compile_ptx(_returns_a_value, "int64(int64[::1])", cc=(7, 5)),
                 lambda: real.jit("int64(int64[::1])")(_returns_a_value),
                 lambda: sim.jit("int64(int64[::1])")(_returns_a_value),
                 lambda: sim.jit(_returns_a_value).compile("int64(int64[::1])")):
        with pytest.raises(TypeError) as info:
            make()
        messages.append(str(info.value))
    assert messages[0].startswith("a CUDA kernel must have void return type, but "
                                  "_returns_a_value returns int64; write results into an array")
    assert set(messages) == {messages[0]}, messages
    sim.jit("void(int64[::1])")(_returns_a_value)  # a void signature is accepted
    sim.jit("int64(int64[::1])", device=True)(_returns_a_value)  # ... as is a device function's

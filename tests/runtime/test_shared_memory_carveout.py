"""cuda.jit(shared_memory_carveout=): checked when decorating, set on the kernel where it is loaded
(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), on the host-memory fake driver."""

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch, ndevices=1)


def _carveouts(fake):
    return [e[3] for e in fake.log if e[0] == "cuFuncSetAttribute"
            and e[2].name == "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT"]


@pytest.mark.parametrize("given, percent", [
    ("MaxL1", 0), ("maxshared", 100), ("DEFAULT", -1), (0, 0), (50, 50), (100, 100), (-1, -1),
    (np.int32(25), 25),
])
@pytest.mark.parametrize("eager", [False, True])
def test_the_carveout_is_set_once_where_the_kernel_is_loaded(fake, given, percent, eager):
    from numba import cuda

    def body(a):
        a[0] = 1

    k = (cuda.jit("void(float32[::1])", shared_memory_carveout=given)(body) if eager
         else cuda.jit(shared_memory_carveout=given)(body))
    assert k.shared_memory_carveout == percent
    d = cuda.to_device(np.zeros(4, np.float32))
    k[1, 1](d)
    k[1, 1](d)
    assert _carveouts(fake) == [percent]


def test_without_the_option_nothing_is_set(fake):
    from numba import cuda

    @cuda.jit
    def k(a):
        a[0] = 1

    k[1, 1](cuda.to_device(np.zeros(1, np.float32)))
    assert _carveouts(fake) == [] and k.shared_memory_carveout is None


def test_the_loaded_kernel_refuses_an_out_of_range_carveout(fake):
    from numba import cuda

    from numba_cuda.runtime.launch import load_kernel

    @cuda.jit("void(float32[::1])")
    def k(a):
        a[0] = 1

    (kernel,) = k.overloads.values()
    loaded = load_kernel(kernel.image((9, 0)))
    with pytest.raises(ValueError, match="must be between -1 and 100"):
        loaded.set_shared_memory_carveout(101)
    loaded.set_shared_memory_carveout(75)
    assert _carveouts(fake) == [75] and loaded.shared_memory_carveout == 75


BAD = [
    (150, ValueError, "must be between -1 and 100"),
    (-2, ValueError, "must be between -1 and 100"),
    ("InvalidOption", ValueError, "Invalid carveout value: 'InvalidOption'"),
    (True, TypeError, "must be an int"),
    (50.0, TypeError, "must be an int"),
]


def _decorate(jit, carveout, **kwargs):
    @jit(shared_memory_carveout=carveout, **kwargs)
    def k(a):
        a[0] = 1

    return k


@pytest.mark.parametrize("carveout, error, message", BAD)
def test_bad_values_are_refused_when_decorating(carveout, error, message):
    from numba_cuda.dispatch.api import jit

    with pytest.raises(error, match=message):
        _decorate(jit, carveout)


@pytest.mark.parametrize("carveout, error, message", BAD)
def test_the_simulator_refuses_the_same_values(carveout, error, message):
    from numba_cuda.simulator.api import jit

    with pytest.raises(error, match=message):
        _decorate(jit, carveout)


@pytest.mark.parametrize("given, percent", [("MaxShared", 100), (10, 10), (None, None)])
def test_the_simulator_accepts_the_same_values(given, percent):
    from numba_cuda.simulator.api import jit

    k = _decorate(jit, given)
    assert k.shared_memory_carveout == percent
    a = np.zeros(1)
    k[1, 1](a)
    assert a[0] == 1


@pytest.mark.parametrize("module", ["numba_cuda.dispatch.api", "numba_cuda.simulator.api"])
def test_a_device_function_takes_no_carveout(module):
    import importlib

    jit = importlib.import_module(module).jit
    with pytest.raises(ValueError, match="applies to kernels"):
        _decorate(jit, 50, device=True)

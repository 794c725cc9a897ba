"""The prepared launch path: arguments typed without ``typeof``, the loaded kernel found per
(context, argument types).  It must give what the general path gives."""

import struct

import numpy as np
import pytest
from numba import typeof
from numba.core.typing.typeof import Purpose

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch, ndevices=2)


VALUES = [0, -1, 2**63 - 1, -(2**63), 1.5, True, False, 1 + 2j, np.float32(1), np.float16(2),
          np.int8(-3), np.uint8(3), np.int16(4), np.uint16(5), np.int32(6), np.uint32(7),
          np.int64(8), np.uint64(9), np.float64(1), np.complex64(1j), np.complex128(1j),
          np.bool_(True), None]


def test_fast_types_are_what_typeof_says():
    from numba_cuda.dispatch.dispatcher import _fast_type_key

    for value in VALUES:
        key = _fast_type_key((value,))
        assert key == (id(typeof(value, Purpose.argument)),), (value, type(value))


def test_values_the_fast_path_leaves_to_typeof():
    from numba_cuda.dispatch.dispatcher import _fast_type_key

    for value in (2**63, -(2**63) - 1, np.zeros(3), (1, 2), "s", np.zeros(1, "i4,f8")[0]):
        assert _fast_type_key((value,)) is None, value


def test_device_arrays_are_typed_by_their_cached_type(fake):
    from numba import cuda

    from numba_cuda.dispatch.dispatcher import _fast_type_key

    for a in (cuda.to_device(np.zeros((3, 4), np.float32)),
              cuda.to_device(np.zeros((3, 4), np.float32))[:, ::2],
              cuda.to_device(np.asfortranarray(np.zeros((2, 2))))):
        assert _fast_type_key((a,)) == (id(typeof(a, Purpose.argument)),)


def _params(fake, kernel):
    launch = fake.launches[-1]
    from numba_cuda.runtime.launch import load_kernel

    plan = [k for k in kernel._launch_plans[next(iter(kernel._launch_plans))].values()][0]
    loaded = load_kernel(plan.image)  # the runtime's one cache of loaded kernels
    return [struct.unpack("<" + c, raw)[0] for c, raw in zip(loaded.packer.codes, launch["params"])]


def test_second_launch_skips_typing_and_packs_the_same(fake, monkeypatch):
    from numba import cuda

    @cuda.jit
    def k(a, x, n, flag):
        pass

    a = cuda.to_device(np.zeros(4, np.float32))
    k[1, 32](a, 2.5, 7, True)
    first = _params(fake, k)
    calls = []
    original = type(k).typeof_argument
    monkeypatch.setattr(type(k), "typeof_argument",
                        lambda self, v, *index: calls.append(v) or original(self, v, *index))
    k[1, 32](a, 2.5, 7, True)
    assert calls == []  # the prepared path: no typeof
    assert _params(fake, k) == first
    b = cuda.to_device(np.ones(4, np.float32))
    k[2, 32](b, -1.0, 8, False)
    assert calls == []
    values = _params(fake, k)
    assert values[4] == b.device_pointer_value and values[-3:] == [-1.0, 8, 0]
    # new argument types: typed once, then prepared too
    k[1, 1](a, np.float32(1), 7, True)
    assert len(calls) == 4
    k[1, 1](a, np.float32(1), 7, True)
    assert len(calls) == 4
    assert len(k.overloads) == 2


def test_prepared_launches_per_device_and_after_close(fake):
    from numba import cuda

    @cuda.jit
    def k(a):
        pass

    for ordinal in (0, 1, 0):
        with cuda.gpus[ordinal]:
            a = cuda.to_device(np.zeros(2))
            k[1, 1](a)
            assert fake.launches[-1]["params"]
    assert len(k._launch_plans) == 2
    cuda.close()
    a = cuda.to_device(np.zeros(2))  # a new context: the kernel is loaded again
    modules = len(fake._modules)
    k[1, 1](a)
    assert len(fake._modules) == modules + 1


def test_bad_argument_is_reported_before_the_driver_is_asked():
    # no fake driver here: without a GPU, asking for a context would raise CudaSupportError
    from numba import cuda

    from numba_cuda.errors import CudaSupportError

    @cuda.jit
    def k(a):
        pass

    with pytest.raises(TypeError, match="cannot pass an argument") as info:
        k[1, 1](object())
    assert not isinstance(info.value, CudaSupportError)

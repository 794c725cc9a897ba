"""The cyclic garbage collector is off while a compile runs and back on afterwards
(``compiler.collection_pause``): on again after a failing compile, off for the whole of a
kernel whose typing compiles a device function, and left off when the program turned it off."""

import gc

import pytest
from numba import cuda as numba_cuda
from numba import int64, types, void
from numba.core.errors import TypingError
from numba.extending import intrinsic

def make_cases():
    """A fresh intrinsic (Numba caches an intrinsic's typing per argument types) recording
    gc.isenabled() when typed and when lowered, and kernels using it."""
    seen = []

    @intrinsic(target="cuda")
    def gc_state(typingctx, x):
        seen.append(("typing", gc.isenabled()))

        def codegen(context, builder, sig, args):
            seen.append(("lowering", gc.isenabled()))
            return args[0]

        return types.int64(types.int64), codegen

    @numba_cuda.jit(device=True)
    def device_helper(x):
        return gc_state(x) + 1

    def kernel(a):
        # typing compiles device_helper (a nested compile) before gc_state is lowered here
        a[0] = device_helper(a[0])
        a[1] = gc_state(a[1])

    def broken(a):
        a[0] = gc_state(a[0])[0]  # an int64 cannot be indexed

    return seen, kernel, broken


@pytest.fixture(autouse=True)
def collector_restored():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_collector_off_during_compile_and_on_after(cuda):
    seen, kernel, _ = make_cases()
    cuda.compile_ptx(kernel, void(int64[::1]), cc=(8, 0))
    assert seen, "the intrinsics were never typed or lowered"
    assert {stage for stage, _ in seen} == {"typing", "lowering"}
    # off in every stage, including lowering after the nested device-function compile ended
    assert all(enabled is False for _stage, enabled in seen), seen
    assert gc.isenabled()


def test_collector_on_after_a_failing_compile(cuda):
    seen, _, broken = make_cases()
    with pytest.raises(TypingError):
        cuda.compile_ptx(broken, void(int64[::1]), cc=(8, 0))
    assert seen and all(enabled is False for _stage, enabled in seen), seen
    assert gc.isenabled()


def test_collector_left_off_when_the_program_turned_it_off(cuda):
    seen, kernel, _ = make_cases()
    gc.disable()
    cuda.compile_ptx(kernel, void(int64[::1]), cc=(8, 0))
    assert seen and all(enabled is False for _stage, enabled in seen), seen
    assert not gc.isenabled()


def test_cuda_jit_kernels_compile_with_the_collector_off(cuda):
    seen, kernel, _ = make_cases()
    jitted = cuda.jit(void(int64[::1]))(kernel)
    assert jitted.overloads  # compiled eagerly, through the dispatcher's own path
    assert seen and all(enabled is False for _stage, enabled in seen), seen
    assert gc.isenabled()

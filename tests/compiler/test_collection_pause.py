"""The cyclic garbage collector is off while a compile runs and back on afterwards
(``compiler.collection_pause``): on again after a failing compile, off for the whole of a
kernel whose typing compiles a device function, and left off when the program turned it off."""

import gc
import json

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


def test_collector_off_while_the_kernel_wrapper_is_built(cuda, monkeypatch):
    """The pause covers the whole compile call (api._compile_library), not only the Numba
    pipeline: building the kernel wrapper allocates as much, and on a first compile the
    libNVVM set-up thread's imports run then."""
    from numba_cuda.compiler.target import cuda_target

    targetctx = cuda_target.target_context
    original = type(targetctx).make_kernel
    seen = []

    def make_kernel(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(targetctx), "make_kernel", make_kernel)

    def plain(a):
        a[0] = 1

    cuda.compile_ptx(plain, void(int64[::1]), cc=(8, 0))
    assert seen == [False]
    assert gc.isenabled()


def test_first_api_attribute_imports_with_collector_off(run_python):
    """``cuda.compile_ptx`` first imports the compiler and dispatch layers: with the collector
    paused (a full collection there scans ~100k objects that stay alive), and on again after."""
    proc = run_python("""
import gc, importlib.abc, json, sys
from numba import cuda
states = []

class Spy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.startswith("numba_cuda.dispatch"):
            states.append(gc.isenabled())
        return None

sys.meta_path.insert(0, Spy())
cuda.compile_ptx
print(json.dumps({"states": sorted(set(states)), "after": gc.isenabled()}))
""")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"states": [False], "after": True}

"""The cyclic garbage collector is off while a compile runs and back on afterwards
(``common.collection_pause``): on again after a failing compile, off for the whole of a
kernel whose typing compiles a device function, and left off when the program turned it off;
a pause that imported modules hands what they made to the oldest generation."""

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
    libNVVM set-up's imports run then."""
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


FIRST_COMPILE_COLLECTIONS = """
import gc, json, sys
from numba import cuda, float32, void
frozen = []
if FREEZE:
    gc.freeze()  # a program's own frozen objects (as a pre-fork server keeps them)
    frozen.append(gc.get_freeze_count())
collections = []
gc.callbacks.append(lambda phase, info: phase == "stop" and collections.append(info["generation"]))

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(8, 0))
import numba_cuda.compiler.target_context as target_context
oldest = gc.get_objects(2)
print(json.dumps({
    "collections": collections,
    "module_dict_oldest": any(o is vars(target_context) for o in oldest),
    "enabled": gc.isenabled(),
    "frozen_before": frozen, "frozen_after": gc.get_freeze_count(),
}))
"""


def test_first_compile_hands_what_it_imported_to_the_oldest_generation(run_python):
    """A process's first compile imports the compiler's layers (~80k long-lived objects): they
    go to the oldest generation unscanned, so that no young or middle collection scans them
    during the compile or right after it (7 ms of a first compile)."""
    proc = run_python("FREEZE = False\n" + FIRST_COMPILE_COLLECTIONS)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["collections"] == [], out
    assert out["module_dict_oldest"], out
    assert out["enabled"] and out["frozen_after"] == 0, out


def test_a_programs_frozen_objects_stay_frozen(run_python):
    """With objects of the program's own frozen (gc.freeze), the pause does not unfreeze them."""
    proc = run_python("FREEZE = True\n" + FIRST_COMPILE_COLLECTIONS)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # (a few frozen objects die meanwhile; an unfreeze would leave none)
    assert out["frozen_before"] and out["frozen_after"] > out["frozen_before"][0] // 2, out
    assert out["enabled"], out


def test_the_interpreters_own_frozen_objects_do_not_stop_the_promotion(run_python):
    """CPython 3.12 starts with a few hundred objects of its own frozen: the count the redirector
    read when Python started (``STARTUP_FREEZE_COUNT``) is the interpreter's, and the first
    compile still hands what it imported to the oldest generation (on 3.12 it never did: a
    young, a middle and a full collection landed in the first compile)."""
    proc = run_python("""
import gc
import _numba_cuda_redirector as redirector
gc.freeze()  # what the interpreter froze before any program code (as CPython 3.12's start-up)
redirector.STARTUP_FREEZE_COUNT = gc.get_freeze_count()
FREEZE = False
""" + FIRST_COMPILE_COLLECTIONS)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["collections"] == [], out
    assert out["module_dict_oldest"], out
    assert out["enabled"] and out["frozen_after"] == 0, out


def test_the_redirector_records_the_startup_freeze_count(run_python):
    proc = run_python("""
import gc, sys
print(sys.modules["_numba_cuda_redirector"].STARTUP_FREEZE_COUNT == gc.get_freeze_count())
""")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True"]


def test_compiles_that_import_nothing_leave_the_generations_alone(cuda):
    """Only a pause during which modules were imported promotes: a compile that imports
    nothing leaves the young objects young (its garbage goes to the next young collection)."""
    def plain(a):
        a[0] = 1

    cuda.compile_ptx(plain, void(int64[::1]), cc=(8, 0))  # whatever a first use imports
    gc.collect()
    marker = [[]]  # made after the collection: in a young generation
    cuda.compile_ptx(plain, void(int64[::1]), cc=(8, 0))
    assert not any(o is marker for o in gc.get_objects(2))

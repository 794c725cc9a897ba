"""Dispatchers pickle: by reference when importable, by value otherwise (numba_cuda.common.pickling).

Real target: no GPU needed (PTX is compiled with libNVVM; what a pickle carries is checked
without launching).  Simulator: in subprocesses, with launches, and through ``multiprocessing``
with the ``spawn`` start method, which is how Dask/ProcessPoolExecutor ship work.
"""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

cloudpickle = pytest.importorskip("cloudpickle")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS_MODULE = """
from numba import cuda

@cuda.jit(device=True)
def plus_one(x):
    return x + 1

@cuda.jit
def add1(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = plus_one(a[i])

@cuda.jit("void(float32[:], float32)")
def scale(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= s

def make_adder(c):
    @cuda.jit
    def add_c(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += c
    return add_c
"""


@pytest.fixture
def kernels_module(tmp_path, monkeypatch):
    pkg = tmp_path / "pk_kernels.py"
    pkg.write_text(KERNELS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("pk_kernels", None)
    import pk_kernels

    yield pk_kernels
    sys.modules.pop("pk_kernels", None)


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_module_level_kernel_pickles_by_reference(kernels_module, dumps):
    for obj in (kernels_module.add1, kernels_module.plus_one, kernels_module.scale):
        data = dumps(obj)
        assert b"pk_kernels" in data
        assert pickle.loads(data) is obj


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_closure_kernel_pickles_by_value_and_compiles_the_same(kernels_module, dumps):
    from numba import float32, types

    k = kernels_module.make_adder(2.5)
    argtypes = (types.Array(float32, 1, "C"),)
    k.compile(argtypes)
    original = k.inspect_asm(argtypes)
    clone = pickle.loads(dumps(k))
    assert clone is k  # same process: the memo gives the original back
    # a fresh process's view: forget the memo entry, as another process would not have it
    from numba_cuda.common import pickling

    data = dumps(k)
    pickling._memo.clear()
    other = pickle.loads(data)
    assert other is not k
    assert other.py_func.__code__.co_code == k.py_func.__code__.co_code
    # the compiled kernel travelled with it: no compile needed for that signature
    assert getattr(other.overloads[argtypes], "from_cache", False)
    assert other.inspect_asm(argtypes) == original
    # the closure value travelled too: a new closure value gives other code
    k2 = kernels_module.make_adder(7.0)
    k2.compile(argtypes)
    assert "0f40E00000" in k2.inspect_asm(argtypes)  # 7.0
    assert "0f40200000" in other.inspect_asm(argtypes)  # 2.5


def test_eager_signatures_survive_and_compilation_stays_disabled(kernels_module):
    from numba_cuda.common import pickling

    scale = kernels_module.scale
    assert scale.__reduce__()[0] is pickling.by_reference
    # by value once the dispatcher is no longer bound to its name
    kernels_module.scale = None
    try:
        blob = pickle.dumps(scale)
    finally:
        kernels_module.scale = scale
    pickling._memo.clear()
    clone = pickle.loads(blob)
    assert clone is not scale
    assert [str(s) for s in clone.signatures] == [str(s) for s in scale.signatures]
    assert not clone._can_compile
    with pytest.raises(TypeError, match="compilation"):
        clone.compile("void(float64[:], float64)")


def test_device_function_and_main_module_functions_pickle_by_value(tmp_path):
    script = tmp_path / "main_script.py"
    script.write_text(textwrap.dedent("""
        import pickle, sys
        from numba import cuda, types, float64

        @cuda.jit(device=True)
        def twice(x):
            return 2 * x

        @cuda.jit
        def k(a):
            a[0] = twice(a[0])

        sys.stdout.buffer.write(pickle.dumps((k, twice)))
    """))
    env = dict(os.environ, PYTHONPATH=REPO)
    blob = subprocess.run([sys.executable, str(script)], capture_output=True, env=env,
                          check=True).stdout
    code = textwrap.dedent("""
        import pickle, sys
        from numba import types, float64
        k, twice = pickle.loads(sys.stdin.buffer.read())
        sig = (types.Array(float64, 1, "C"),)
        k.compile(sig)
        ptx = k.inspect_asm(sig)
        assert "add.f64" in ptx or "mul.f64" in ptx, ptx
        print(type(k).__name__, type(twice).__name__, twice.device)
    """)
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True,
                         env=env, check=True).stdout.decode()
    assert out.split() == ["CUDADispatcher", "CUDADispatcher", "True"]


def test_launch_configuration_pickles(kernels_module):
    cfg = pickle.loads(pickle.dumps(kernels_module.add1[5, 8]))
    assert cfg.griddim == (5, 1, 1)
    assert cfg.blockdim == (8, 1, 1)
    assert cfg.dispatcher is kernels_module.add1


# -- simulator -------------------------------------------------------------------------
SIM_SPAWN = """
import multiprocessing as mp, pickle, sys
import numpy as np
sys.path.insert(0, {tmp!r})
import pk_kernels
from numba import cuda

def run(blob):
    k, arg = pickle.loads(blob)
    a = np.array(arg, dtype=np.float32)
    k[1, a.size](a)
    return a.tolist()

if __name__ == "__main__":
    jobs = [pickle.dumps((pk_kernels.add1, [1, 2, 3])),
            pickle.dumps((pk_kernels.make_adder(10), [1, 2, 3])),
            pickle.dumps((pk_kernels.scale, [1, 2, 3]))]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.map(run, jobs)
    print(results)
"""


def test_simulator_kernels_pickle_through_spawn(tmp_path):
    (tmp_path / "pk_kernels.py").write_text(KERNELS_MODULE.replace(
        '"void(float32[:], float32)"', '"void(float32[:])"').replace(
        "def scale(a, s):", "def scale(a):").replace("a[i] *= s", "a[i] *= 3"))
    script = tmp_path / "spawn_main.py"
    script.write_text(SIM_SPAWN.format(tmp=str(tmp_path)))
    env = dict(os.environ, PYTHONPATH=REPO, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[[2.0, 3.0, 4.0], [11.0, 12.0, 13.0], [3.0, 6.0, 9.0]]"


def test_simulator_dispatchers_by_reference_and_by_value(tmp_path):
    (tmp_path / "pk_kernels.py").write_text(KERNELS_MODULE)
    code = textwrap.dedent(f"""
        import pickle, sys
        import numpy as np
        import cloudpickle
        sys.path.insert(0, {str(tmp_path)!r})
        import pk_kernels
        from numba_cuda.common import pickling
        for dumps in (pickle.dumps, cloudpickle.dumps):
            assert pickle.loads(dumps(pk_kernels.add1)) is pk_kernels.add1
            assert pickle.loads(dumps(pk_kernels.plus_one)) is pk_kernels.plus_one
            k = pk_kernels.make_adder(4)
            blob = dumps(k)
            assert pickle.loads(blob) is k
            pickling._memo.clear()
            clone = pickle.loads(blob)
            assert clone is not k
            a = np.zeros(3)
            clone[1, 3](a)
            assert a.tolist() == [4, 4, 4], a
            launcher = pickle.loads(dumps(pk_kernels.add1[2, 16]))
            assert launcher.griddim == (2, 1, 1) and launcher.blockdim == (16, 1, 1)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=REPO, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"

"""What libraries built on the peers' simulators rely on (issue 19): the attributes of simulator
dispatchers, and ``alignment=`` of shared and local arrays as the compiler takes it."""

import ast
import functools
import os

import numpy as np
import pytest
from numba import float32, void

from numba_cuda.simulator import api as cuda

# The attributes of the peers' simulator dispatcher, ``FakeCUDAKernel`` (one class for kernels and
# device functions), read from Numba 0.62's numba/cuda/simulator/kernel.py and NVIDIA numba-cuda
# 0.30.4's numba_cuda/numba/cuda/simulator/kernel.py on 2026-12-01: the instance attributes its
# __init__ sets, its methods and properties, and what functools.update_wrapper adds.
PEER_ATTRIBUTES = {
    "fn", "_device", "_fastmath", "_debug", "extensions", "grid_dim", "block_dim", "stream",
    "dynshared_size", "__call__", "__getitem__", "bind", "specialize", "forall", "overloads",
    "py_func", "__wrapped__", "__name__", "__qualname__", "__doc__", "__module__", "__annotations__",
}


def _fake_cuda_kernel_attributes(path):
    """The attribute names of ``FakeCUDAKernel`` in a peer's simulator source file."""
    with open(path) as f:
        tree = ast.parse(f.read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "FakeCUDAKernel")
    names = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            if node.name != "__init__":
                names.add(node.name)
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store)
                        and isinstance(sub.value, ast.Name) and sub.value.id == "self"):
                    names.add(sub.attr)
                if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                        and sub.func.attr == "update_wrapper"):
                    names.update(functools.WRAPPER_ASSIGNMENTS)
                    names.add("__wrapped__")
    return names


def test_the_hard_coded_peer_list_covers_the_installed_numbas_simulator():
    import numba

    path = os.path.join(os.path.dirname(numba.__file__), "cuda", "simulator", "kernel.py")
    if not os.path.isfile(path):
        pytest.skip("the installed Numba has no built-in CUDA simulator to read")
    found = _fake_cuda_kernel_attributes(path)
    assert "_device" in found and "py_func" in found
    # __type_params__ (Python 3.12's update_wrapper) is not an attribute of every function
    assert found - {"__type_params__"} <= PEER_ATTRIBUTES, found - PEER_ATTRIBUTES


def _device_fn(x):
    return x + 1


def _kernel(out):
    out[0] = 1


@pytest.mark.parametrize("device", [False, True])
def test_simulator_dispatchers_have_every_attribute_of_the_peers(device):
    fn = cuda.jit(device=device)(_device_fn if device else _kernel)
    missing = {name for name in PEER_ATTRIBUTES if not hasattr(fn, name)}
    assert not missing, f"missing on {'device functions' if device else 'kernels'}: {missing}"


def test_the_attribute_values_are_the_peers():
    dev = cuda.jit(device=True)(_device_fn)
    ker = cuda.jit(fastmath=True, debug=True)(_kernel)
    assert dev._device is True and ker._device is False
    assert dev.fn is _device_fn and dev.py_func is _device_fn and ker.fn is _kernel
    assert ker._fastmath is True and ker._debug is True and dev._fastmath is False
    assert dev.extensions == [] and ker.extensions == []
    assert (ker.grid_dim, ker.block_dim, ker.stream, ker.dynshared_size) == (None, None, 0, 0)
    # specialize binds its arguments as a launch does (as on the GPU target), then is the kernel
    assert ker.bind() is None and ker.specialize(np.zeros(1, np.int32)) is ker
    assert dev.__name__ == "_device_fn" and dev.__wrapped__ is _device_fn
    # kernel[...] records the configuration, as the peers' kernels do
    out = np.zeros(1, np.int32)
    ker[2, 3, 0, 16](out)
    assert ker.grid_dim == (2, 1, 1) and ker.block_dim == (3, 1, 1)
    assert ker.dynshared_size == 16 and out[0] == 1


def test_device_functions_are_told_from_kernels_by_device():
    # how the libraries of issue 19 sort what they were given
    fns = [cuda.jit(device=True)(_device_fn), cuda.jit(_kernel)]
    assert [getattr(f, "_device", None) for f in fns] == [True, False]


def test_a_device_function_cannot_be_launched():
    dev = cuda.jit(device=True)(_device_fn)
    with pytest.raises(TypeError, match="_device_fn is a device function"):
        dev[1, 1]
    with pytest.raises(TypeError, match="cannot be launched"):
        dev.forall(4)


# ---- alignment= ------------------------------------------------------------------------------


@pytest.mark.parametrize("alignment", [1, 2, 4, 8, 16, 32, 64, 128, 256, 4096, np.int64(128)])
def test_shared_and_local_arrays_take_the_alignments_the_compiler_takes(alignment):
    @cuda.jit
    def k(out):
        s = cuda.shared.array(10, dtype=np.float32, alignment=alignment)
        loc = cuda.local.array((3, 2), dtype=np.int8, alignment=alignment)
        s[cuda.threadIdx.x] = 1
        loc[1, 1] = 5
        cuda.syncthreads()
        out[0] = s.ctypes.data % alignment
        out[1] = loc.ctypes.data % alignment
        out[2] = s[3] + loc[1, 1] + loc[0, 0] + s.size + loc.size

    out = np.full(3, -1, np.int64)
    k[1, 4](out)
    assert out[0] == 0 and out[1] == 0
    assert out[2] == 1 + 5 + 0 + 10 + 6  # zero-filled, the shapes asked for


def test_an_aligned_shared_array_is_shared_by_the_block():
    @cuda.jit
    def k(out):
        s = cuda.shared.array(4, dtype=np.int32, alignment=128)
        t = cuda.threadIdx.x
        s[t] = t + 1
        cuda.syncthreads()
        out[cuda.blockIdx.x, t] = s[3 - t]

    out = np.zeros((2, 4), np.int32)
    k[2, 4](out)
    assert out.tolist() == [[4, 3, 2, 1], [4, 3, 2, 1]]


def _compiler_error(alignment):
    """The compiler's refusal of ``alignment`` (typing needs no GPU), or None."""
    from numba.core.errors import TypingError

    from numba import cuda as gpu

    def k(out):
        s = gpu.shared.array(4, dtype=np.float32, alignment=alignment)
        out[0] = s[0]

    try:
        gpu.compile_ptx(k, (float32[:],))
    except TypingError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("alignment, wording", [
    (0, "alignment must be a positive power of two, not 0"),
    (3, "alignment must be a positive power of two, not 3"),
    (-8, "alignment must be a positive power of two, not -8"),
    (48, "alignment must be a positive power of two, not 48"),
    (1.5, "alignment must be a constant integer"),
    (True, "alignment must be a constant integer"),
])
@pytest.mark.parametrize("kind", ["shared", "local"])
def test_alignments_the_compiler_refuses_are_refused_alike(alignment, wording, kind):
    from numba.core.errors import TypingError

    @cuda.jit
    def k(out):
        if kind == "shared":
            s = cuda.shared.array(4, dtype=np.float32, alignment=alignment)
        else:
            s = cuda.local.array(4, dtype=np.float32, alignment=alignment)
        out[0] = s[0]

    with pytest.raises(TypingError, match=f"cuda.{kind}.array: {wording}"):
        k[1, 1](np.zeros(1, np.float32))
    if kind == "shared" and not isinstance(alignment, float):
        refusal = _compiler_error(alignment)  # the same words from the compiler
        assert refusal is not None and wording in refusal, refusal


def test_the_peers_class_name_covers_kernels_and_device_functions():
    from numba_cuda.simulator.kernel import FakeCUDAKernel, FakeOverload, FakeOverloadDict

    dev, ker = cuda.jit(device=True)(_device_fn), cuda.jit(_kernel)
    assert isinstance(dev, FakeCUDAKernel) and isinstance(ker, FakeCUDAKernel)
    assert isinstance(ker.overloads, FakeOverloadDict)
    assert isinstance(ker.overloads[()], FakeOverload)
    assert ker.overloads[()].max_cooperative_grid_blocks(32) >= 1


def test_simulator_kernel_module_as_an_attribute_and_its_block_threads():
    """The peers' simulator tests reach ``simulator.kernel.BlockThread`` as attributes and check
    that no such thread is left running after a launch that raised."""
    import threading

    from numba_cuda import simulator

    assert isinstance(simulator.kernel.BlockThread, type)
    assert issubclass(simulator.kernel.BlockThread, threading.Thread)

    def boom(x):
        i = cuda.threadIdx.x
        if i == 1:
            raise ValueError("boom")
        cuda.syncthreads()
        x[i] = i

    kernel = cuda.jit(sim_mode="threads")(boom)
    with pytest.raises(ValueError, match="boom"):
        kernel[1, 4](np.zeros(4))
    seen = [t for t in threading.enumerate() if isinstance(t, simulator.kernel.BlockThread)]
    for t in seen:
        t.join(2)
    assert not [t for t in seen if t.is_alive()]
    running = [threading.Thread(target=lambda: None)]
    assert not any(isinstance(t, simulator.kernel.BlockThread) for t in running)

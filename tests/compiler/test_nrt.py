"""The device NRT (NUMBA_CUDA_ENABLE_NRT): arrays created in kernels and device functions.

Without a GPU: the setting and its refusal, the PTX (malloc/free, the NRT calls) through ptxas
at every compute capability the toolkit supports, the statistics pointer of NRT kernels.  With a
GPU (``gpu`` marker): results and the allocation counters balancing.
"""

import re

import numpy as np
import pytest
from numba.core import config, errors

from tests.support.ptx_helpers import assemble


@pytest.fixture
def nrt_on(monkeypatch):
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", True, raising=False)


@pytest.fixture
def nrt_off(monkeypatch):
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)


def empty_kernel(out):
    x = np.empty(10, np.int64)
    x[0] = 7
    out[0] = x[0]


def zeros_ones_kernel(out):
    z = np.zeros((2, 3), np.float32)
    o = np.ones(4)
    out[0] = z[1, 2] + o[3]


def tail(x):
    return x[5:]


def fresh(n):
    return np.zeros(n, np.int32)


def calls_device_functions(out):
    x = np.empty(10, np.int64)
    x[5] = 1
    out[0] = dev_tail(x)[0] + dev_fresh(3)[2]


def loop_of_allocations(out):
    for i in range(10):
        t = np.empty(2)
        t[0] = i
        out[0] += t[0]


dev_tail = dev_fresh = None


@pytest.fixture
def device_functions(cuda):
    global dev_tail, dev_fresh
    dev_tail = cuda.jit(device=True)(tail)
    dev_fresh = cuda.jit(device=True)(fresh)
    yield
    dev_tail = dev_fresh = None


def called(ptx, name):
    """How many PTX calls of ``name`` there are (``call.uni`` then the callee on its line)."""
    return len(re.findall(rf"call(?:\.uni)?\s*(?:\([^)]*\),\s*)?\n?\s*{name},", ptx))


def test_the_settings_exist_after_import_and_follow_the_environment(run_python):
    code = """
        import numba.cuda
        from numba.core import config
        from numba.cuda import config as cuda_config
        print(config.CUDA_ENABLE_NRT, config.CUDA_NRT_STATS, cuda_config is config)
    """
    off = run_python(code, env={"NUMBA_CUDA_ENABLE_NRT": "0", "NUMBA_CUDA_NRT_STATS": "0"})
    on = run_python(code, env={"NUMBA_CUDA_ENABLE_NRT": "1", "NUMBA_CUDA_NRT_STATS": "1"})
    assert off.returncode == 0 and on.returncode == 0, off.stderr + on.stderr
    assert off.stdout.split() == ["False", "False", "True"]
    assert on.stdout.split() == ["True", "True", "True"]


@pytest.mark.parametrize("func", [empty_kernel, zeros_ones_kernel])
def test_without_nrt_an_array_in_a_kernel_is_refused_naming_the_setting(cuda, nrt_off, func):
    with pytest.raises(errors.TypingError) as info:
        cuda.compile_ptx(func, "void(float64[:])")
    text = str(info.value)
    assert "NUMBA_CUDA_ENABLE_NRT=1" in text and "CUDA_ENABLE_NRT = True" in text
    assert "Only accept returning of array" not in text


def test_without_nrt_a_device_function_returning_a_new_array_is_refused(cuda, nrt_off):
    def make(n):
        return np.zeros(n)

    with pytest.raises(errors.TypingError, match="NUMBA_CUDA_ENABLE_NRT=1"):
        cuda.compile_ptx(make, "float64[:](int64)", device=True)


def test_without_nrt_returning_the_argument_itself_still_compiles(cuda, nrt_off):
    def same(x):
        return x

    ptx, _ = cuda.compile_ptx(same, "int64[:](int64[:])", device=True)
    assert "NRT_" not in ptx and "malloc" not in ptx
    with pytest.raises(errors.TypingError, match="NUMBA_CUDA_ENABLE_NRT=1"):
        cuda.compile_ptx(tail, "int64[:](int64[:])", device=True)


@pytest.mark.parametrize("func, sig", [
    (empty_kernel, "void(int64[:])"),
    (zeros_ones_kernel, "void(float64[:])"),
    (calls_device_functions, "void(int64[:])"),
    (loop_of_allocations, "void(float64[:])"),
])
def test_kernels_creating_arrays_assemble_at_every_supported_cc(cuda, nrt_on, device_functions,
                                                                 func, sig):
    from numba_cuda.compiler import capability

    for cc in capability.supported_ccs():
        ptx, _ = cuda.compile_ptx(func, sig, cc=cc)
        # the data comes from the device heap and goes back to it
        assert called(ptx, "malloc") == 1 and called(ptx, "free") == 1, cc
        assert called(ptx, "NRT_MemInfo_alloc_aligned") >= 1
        assert called(ptx, "NRT_decref") >= 1
        assert re.search(r"\.visible \.global \.align 8 \.u64 numba_cuda_nrt_memsys", ptx)
        assemble(ptx, cc)


def test_a_kernel_that_allocates_releases_every_reference_it_takes(cuda, nrt_on):
    """In the kernel's own function: one allocation, and the meminfo is released on the way
    out (its decrefs outnumber its increfs by the one reference the allocation made)."""
    ptx = cuda.compile_ptx(empty_kernel, "void(int64[:])", cc=(8, 0))[0]
    body = ptx[ptx.index(".entry "):]
    body = body[:body.index("\n}\n")]
    assert called(body, "NRT_MemInfo_alloc_aligned") == 1
    assert called(body, "NRT_decref") - called(body, "NRT_incref") == 1


def test_device_function_returning_a_new_array_compiles_and_assembles(cuda, nrt_on):
    ptx, resty = cuda.compile_ptx(fresh, "int32[:](int64)", device=True, cc=(9, 0),
                                  abi="numba")
    assert str(resty) == "array(int32, 1d, A)"
    assert called(ptx, "NRT_MemInfo_alloc_aligned") == 1 and called(ptx, "malloc") == 1
    assemble(ptx, (9, 0))


def test_the_nrt_module_is_linked_once_and_last(cuda, nrt_on, device_functions):
    from numba_cuda.compiler.nrt import nrt_library

    kernel = cuda.jit("void(int64[:])")(calls_device_functions)
    compiled = next(iter(kernel.overloads.values()))
    libraries = compiled.library.all_libraries()
    assert sum(lib is nrt_library() for lib in libraries) == 1
    names = [name for name, _text in compiled.library.ir_modules()]
    assert names[-1].startswith("numba_cuda_nrt:")
    ptx = compiled.image((8, 0)).ptx
    assert ".extern .func" not in ptx.replace(".extern .func  (.param .b64 func_retval0) malloc", "") \
        .replace(".extern .func free", "")
    assert compiled.image((8, 0)).nrt_global == "numba_cuda_nrt_memsys"


def test_kernels_that_do_not_use_the_nrt_have_no_statistics_pointer(cuda, nrt_off):
    def plain(a):
        a[0] = 1

    compiled = next(iter(cuda.jit("void(int32[:])")(plain).overloads.values()))
    assert compiled.nrt_global is None
    assert "numba_cuda_nrt_memsys" not in compiled.image((8, 0)).ptx


def test_nrt_module_alone_is_accepted_by_libnvvm_at_every_cc():
    from numba_cuda.compiler import capability, nvvm
    from numba_cuda.compiler.nrt import NRT_FUNCTIONS, nrt_ir

    text = nrt_ir()
    for name in NRT_FUNCTIONS:
        assert re.search(rf"define i8\*? ?[^\n]*@{name}\(|define void @{name}\(", text), name
    for cc in capability.supported_ccs():
        exported = text.replace("define void @NRT_decref", "define void @NRT_decref")
        ptx = nvvm.compile_ir([("nrt", exported)], capability.arch_name(cc), ("-opt=3",))
        if isinstance(ptx, bytes):
            ptx = ptx.decode()
        assert "malloc" in ptx and "free" in ptx
        assemble(ptx, cc)


def test_ufuncs_on_arrays_allocate_their_result_with_nrt(cuda, monkeypatch):
    def k(a, out):
        b = np.sin(a)
        out[0] = np.add(a, b)[1]

    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)
    with pytest.raises(errors.TypingError, match=r"needs the device NRT \(NUMBA_CUDA_ENABLE_NRT=1\)"):
        cuda.compile_ptx(k, "void(float64[:], float64[:])")
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", True)
    for cc in ((7, 5), (9, 0), (12, 0)):
        ptx, _ = cuda.compile_ptx(k, "void(float64[:], float64[:])", cc=cc)
        assert called(ptx, "NRT_MemInfo_alloc_aligned") == 2
        assemble(ptx, cc)


# ---- on a GPU ---------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_arrays_made_in_kernels_and_returned_by_device_functions(cuda, nrt_on,
                                                                      device_functions):
    out = np.zeros(1, np.int64)
    cuda.jit(calls_device_functions)[1, 1](out)
    assert out[0] == 1
    got = np.zeros(1)
    cuda.jit(zeros_ones_kernel)[1, 1](got)
    assert got[0] == 1.0


@pytest.mark.gpu
def test_gpu_allocation_counters_balance(cuda, nrt_on):
    from numba.cuda.memory_management import rtsys

    kernel = cuda.jit(loop_of_allocations)
    out = np.zeros(1)
    kernel[1, 1](out)  # loaded before counting
    rtsys.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        kernel[4, 32](cuda.to_device(out))
        after = rtsys.get_allocation_stats()
        assert after.alloc - before.alloc == 10 * 4 * 32
        assert after.free - before.free == after.alloc - before.alloc
        assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free == 10 * 128
        assert rtsys.memsys_get_stats_alloc() == after.alloc
    finally:
        rtsys.memsys_disable_stats()
    with pytest.raises(RuntimeError, match="NRT stats are disabled."):
        rtsys.get_allocation_stats()


def test_a_device_function_compiled_without_nrt_is_compiled_again_for_nrt_callers(cuda,
                                                                                  monkeypatch):
    """Compiled without the NRT, ``same`` takes no reference to the array it returns; an NRT
    caller would then drop one reference too many and free its array while still using it."""

    @cuda.jit(device=True)
    def same(x):
        return x

    def plain(a):
        same(a)[0] = 1

    def allocating(out):
        x = np.zeros(3)
        out[0] = same(x)[1]

    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)
    cuda.compile_ptx(plain, "void(float64[::1])")  # same(array(float64, 1d, C))
    (before,) = same.overloads.values()
    assert before.library.compiled_with_nrt is False
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", True)
    ptx, _ = cuda.compile_ptx(allocating, "void(float64[:])", cc=(8, 0))
    (after,) = same.overloads.values()
    assert after is not before and after.library.compiled_with_nrt is True
    assert 'call void @"NRT_incref"' in after.library.get_llvm_str()
    assert "NRT_incref" not in before.library.get_llvm_str()
    assemble(ptx, (8, 0))
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False)
    cuda.compile_ptx(plain, "void(float64[::1])")  # the NRT version serves callers without it
    assert next(iter(same.overloads.values())) is after


def test_eager_device_functions_compiled_without_nrt(cuda, monkeypatch):
    """Compiled from their signatures while the NRT was off: one returning a number serves NRT
    code as it is; one returning an array cannot, and says why."""
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)
    twice = cuda.jit("float64(float64)", device=True)(lambda v: 2 * v)
    same = cuda.jit("float64[::1](float64[::1])", device=True)(lambda x: x)
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", True)

    def uses_twice(out):
        out[0] = twice(np.ones(1)[0])

    def uses_same(out):
        out[0] = same(np.ones(2))[0]

    assemble(cuda.compile_ptx(uses_twice, "void(float64[:])", cc=(8, 0))[0], (8, 0))
    from numba_cuda.errors import CompilationDisabledError

    with pytest.raises(CompilationDisabledError, match="NUMBA_CUDA_ENABLE_NRT") as info:
        cuda.compile_ptx(uses_same, "void(float64[:])", cc=(8, 0))
    assert "compiled from its signature while the device NRT was off" in str(info.value)

"""``dispatcher.inspect_lto_ptx()`` (NVIDIA's method, which its suite's float16 tests read):
the PTX nvJitLink makes of link-time optimisation, here without a GPU; a cached kernel answers
it (and ``inspect_sass``) by compiling for real."""

import pytest

from tests.linking.conftest import ADDONE_CU

CC = (9, 0)


def test_kernel_lto_ptx_holds_the_optimised_kernel():
    from numba import cuda, types

    f2 = types.float16

    @cuda.jit("void(f2[:], f2, f2)", lto=True)
    def hadd(ary, a, b):
        ary[0] = cuda.fp16.hadd(a, b)

    args = (f2[:], f2, f2)
    ptx = hadd.inspect_lto_ptx(args, cc=CC)
    assert ".target sm_90" in ptx and "add.f16" in ptx
    assert f".visible .entry {hadd.overloads[args].entry_name}(" in ptx
    assert hadd.inspect_lto_ptx(cc=CC) == {args: ptx}


def test_linked_cuda_source_is_optimised_into_the_kernel(tmp_path):
    from numba import cuda, types

    source = tmp_path / "addone.cu"
    source.write_text(ADDONE_CU)
    addone = cuda.declare_device("addone", "int32(int32)", link=str(source))

    @cuda.jit(lto=True)
    def kernel(a):
        a[0] = addone(a[0])

    kernel.compile((types.int32[::1],))
    ptx = kernel.inspect_lto_ptx((types.int32[::1],), cc=CC)
    # the C function was inlined by LTO: no call, no separate function left
    assert "call.uni" not in ptx and "addone" not in ptx
    assert "add.s32" in ptx


def test_device_functions_are_refused_naming_why():
    from numba import cuda, types

    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    twice.compile((types.int32,))
    with pytest.raises(RuntimeError, match="needs a kernel: .*twice is a device function"):
        twice.inspect_lto_ptx((types.int32,), cc=CC)


def _cached_fill(tmp_path, monkeypatch):
    """``(dispatcher, kernel)`` of a ``cache=True`` kernel loaded back from the disk cache."""
    import importlib
    import sys

    from numba import types

    from numba_cuda.dispatch.disk_cache import CachedKernel

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    name = f"cached_mod_{abs(hash(str(tmp_path)))}"  # one module per test
    (tmp_path / f"{name}.py").write_text("from numba import cuda\n\n"
                                         "@cuda.jit(cache=True)\n"
                                         "def fill(a):\n"
                                         "    a[0] = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sig = (types.int32[::1],)
    try:
        importlib.import_module(name).fill.compile(sig)
        sys.modules.pop(name)
        again = importlib.import_module(name).fill
    finally:
        sys.modules.pop(name, None)
    kernel = again.compile(sig)
    assert isinstance(kernel, CachedKernel)  # loaded from the disk cache
    return again, kernel, sig


def test_cached_kernels_compile_for_real_to_answer(tmp_path, monkeypatch):
    again, kernel, sig = _cached_fill(tmp_path, monkeypatch)
    ptx = again.inspect_lto_ptx(sig, cc=CC)
    # (compiled again: the mangled name's specialisation number is that compile's)
    assert "cached_mod_" in ptx and ".visible .entry _ZN6cudapy" in ptx and "mov.u32" in ptx
    assert kernel.inspect_lto_ptx(CC) == ptx


def test_cached_kernels_answer_inspect_sass(tmp_path, monkeypatch):
    from numba_cuda import toolkit

    if toolkit.nvdisasm_path() is None:
        pytest.skip("nvdisasm is not installed (optional toolkit component: pip install "
                    "nvidia-cuda-nvdisasm for CUDA 13, conda cuda-nvdisasm for CUDA 12)")
    again, kernel, sig = _cached_fill(tmp_path, monkeypatch)
    sass = again.inspect_sass(sig, cc=CC)
    assert "EXIT" in sass and "STG" in sass
    assert "digraph" in again.inspect_sass_cfg(sig, cc=CC)

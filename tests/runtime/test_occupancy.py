"""Occupancy queries on the host-memory fake driver: ``Context.get_max_potential_block_size`` /
``get_active_blocks_per_multiprocessor`` and ``kernel._codelibrary.get_cufunc()``, as cuDF's JIT
groupby (``groupby.apply(engine="jit")``) sizes its blocks:

    kern_def = next(iter(specialized.overloads.values()))
    grid, tpb = get_context().get_max_potential_block_size(
        func=kern_def._codelibrary.get_cufunc(), b2d_func=0, memsize=0, blocksizelimit=256)
"""

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def _specialized():
    from numba import cuda

    @cuda.jit
    def double(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    d = cuda.to_device(np.arange(1000, dtype=np.float32))
    return double.specialize(d), d


def test_cudf_groupby_block_sizing(fake):
    from numba.cuda.cudadrv.devices import get_context

    specialized, d = _specialized()
    (kern_def,) = specialized.overloads.values()
    cufunc = kern_def._codelibrary.get_cufunc()
    grid, tpb = get_context().get_max_potential_block_size(
        func=cufunc, b2d_func=0, memsize=0, blocksizelimit=256)
    assert (grid, tpb) == (fake.occupancy_per_sm * 132, 256)
    (call,) = [entry for entry in fake.log if entry[0] == "cuOccupancyMaxPotentialBlockSize"]
    assert int(call[1]) == int(cufunc.handle) and int(call[2]) == 0  # a NULL callback
    specialized[4, tpb](d)
    assert fake.launches[-1]["block"] == (256, 1, 1)
    assert fake.launches[-1]["entry"] == cufunc.name


def test_block_size_callback_is_called(fake):
    from numba import cuda

    specialized, _ = _specialized()
    (kern_def,) = specialized.overloads.values()
    asked = []

    def shared_bytes(block_size):
        asked.append(block_size)
        return 64 * block_size  # 48 KiB of dynamic shared memory fit: 768 threads

    grid, tpb = cuda.current_context().get_max_potential_block_size(
        kern_def._codelibrary.get_cufunc(), shared_bytes, 0, 0)
    assert tpb == 768 and asked[:2] == [1024, 992] and asked[-1] == 768


def test_flags_and_active_blocks(fake):
    from numba import cuda

    specialized, _ = _specialized()
    (kern_def,) = specialized.overloads.values()
    ctx = cuda.current_context()
    func = kern_def._codelibrary.get_cufunc()
    assert ctx.get_active_blocks_per_multiprocessor(func, 128, 0) == fake.occupancy_per_sm
    assert ctx.get_active_blocks_per_multiprocessor(func.handle, 128, 0, flags=1) == 2
    assert ctx.get_max_potential_block_size(func, None, 0, 512, flags=1)[1] == 512
    names = [entry[0] for entry in fake.log if entry[0].startswith("cuOccupancy")]
    assert names == ["cuOccupancyMaxActiveBlocksPerMultiprocessor",
                     "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                     "cuOccupancyMaxPotentialBlockSizeWithFlags"]
    with pytest.raises(TypeError, match="b2d_func must be"):
        ctx.get_max_potential_block_size(func, "64", 0, 0)


def test_codelibrary_is_the_kernels_library():
    from numba import cuda, float32

    @cuda.jit
    def fill(x):
        x[0] = 1

    kernel = fill.compile((float32[::1],))
    assert ".entry" in kernel._codelibrary.get_asm_str(cc=(9, 0))
    assert kernel._codelibrary.get_llvm_str() == kernel.library.get_llvm_str()


def test_cached_kernels_answer_the_same_queries():
    from numba_cuda.dispatch.disk_cache import CachedKernel
    from numba_cuda.dispatch.launched_kernel import LaunchableKernel

    for cls in (CachedKernel, LaunchableKernel):
        assert isinstance(getattr(cls, "_codelibrary"), property)

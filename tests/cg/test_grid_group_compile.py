"""cuda.cg without a GPU: PTX accepted by ptxas for every target cc, the barrier's shape in the
PTX, the cooperative flag on compiled kernels and images (through device functions and the
on-disk cache too), typing errors, and the runtime's cooperative path with a fake driver."""

import re

import numpy as np
import pytest
from numba import cuda, float32, float64, int32, int64, uint64
from numba.core.errors import TypingError

from numba_cuda.errors import CudaSupportError, LaunchConfigError


def exchange(a, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i
    g.sync()
    if i < a.size:
        out[i] = a[(i + 1) % a.size]


def ranks(out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = g.size()
        out[i, 1] = g.thread_rank()


def repeated(a, rounds):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    for _ in range(rounds):
        if i < a.size:
            a[i] += 1
        g.sync()


@cuda.jit(device=True)
def sync_in_device_function(a, i):
    cuda.cg.this_grid().sync()
    return a[i]


def calls_syncing_device_function(a, out):
    i = cuda.grid(1)
    out[i] = sync_in_device_function(a, i)


SIG = (int32[:], int32[:])


def test_grid_sync_ptx_for_every_cc(ptx_for, code):
    for cc, ptx in ptx_for(exchange, SIG).items():
        body = code(ptx)
        # the driver's grid workspace address comes from envreg1 (low) and envreg2 (high)
        assert "%envreg1" in body and "%envreg2" in body, cc
        assert "membar.gl" in body, cc
        assert re.search(r"atom(\.relaxed\.(gpu|sys))?\.add\.u32", body), cc
        assert "ld.volatile.u32" in body, cc
        assert body.count("bar.sync") >= 2, cc
        assert "trap" in body, cc  # non-cooperative launch (null workspace) traps


def test_size_and_thread_rank_ptx(ptx_for, code):
    for cc, ptx in ptx_for(ranks, (uint64[:, :],)).items():
        body = code(ptx)
        assert "%nctaid.x" in body and "%ntid.x" in body, cc
        # neither needs the barrier nor the workspace
        assert "atom." not in body and "%envreg" not in body, cc


def test_sync_in_a_loop_and_in_device_functions(ptx_for):
    ptx_for(repeated, (float32[:], int32))
    ptx_for(calls_syncing_device_function, (int64[:], int64[:]))


def test_kernels_that_sync_are_cooperative():
    syncing = cuda.jit(SIG)(exchange)
    kernel = syncing.overloads[SIG]
    assert kernel.cooperative is True
    assert kernel.image((7, 5)).cooperative is True

    plain = cuda.jit((float64[:],))(lambda_free_kernel)
    assert plain.overloads[(float64[:],)].cooperative is False
    assert plain.overloads[(float64[:],)].image((7, 5)).cooperative is False

    rank_only = cuda.jit((uint64[:, :],))(ranks)
    assert rank_only.overloads[(uint64[:, :],)].cooperative is False  # no sync: no need


def lambda_free_kernel(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2.0


def test_sync_through_a_device_function_makes_the_caller_cooperative():
    disp = cuda.jit((int64[:], int64[:]))(calls_syncing_device_function)
    assert disp.overloads[(int64[:], int64[:])].cooperative is True


def test_lazy_kernel_is_marked_when_compiled_for_its_arguments():
    disp = cuda.jit(exchange)
    kernel = disp.compile(SIG)
    assert kernel.cooperative is True


def test_this_grid_takes_no_arguments():
    def bad(a):
        g = cuda.cg.this_grid(1)
        g.sync()

    with pytest.raises(TypingError, match=r"this_grid\(\) takes no arguments"):
        cuda.compile_ptx(bad, (int32[:],), cc=(7, 5))


def test_sync_takes_no_arguments():
    def bad(a):
        cuda.cg.this_grid().sync(0)

    with pytest.raises(TypingError, match=r"GridGroup.sync\(\) takes no arguments"):
        cuda.compile_ptx(bad, (int32[:],), cc=(7, 5))


def test_unknown_group_attribute_is_a_typing_error():
    def bad(a):
        a[0] = cuda.cg.this_grid().num_threads

    with pytest.raises(TypingError):
        cuda.compile_ptx(bad, (int32[:],), cc=(7, 5))


def test_stubs_refuse_host_use_and_match_the_simulator():
    from numba_cuda.lang import stubs
    from numba_cuda.simulator import api as sim

    with pytest.raises(RuntimeError, match="inside a function compiled with @cuda.jit"):
        cuda.cg.this_grid()
    public = {n for n in vars(stubs.cg) if not n.startswith("_")}
    assert public == {n for n in vars(sim.cg) if not n.startswith("_")}
    for name in ("sync", "size", "thread_rank"):
        assert callable(getattr(sim.cg.GridGroup, name))


# ---- max_cooperative_grid_blocks without a GPU ---------------------------------------------


def test_max_cooperative_grid_blocks_needs_a_driver():
    from numba_cuda.runtime import cudriver

    try:
        cudriver.driver()
    except CudaSupportError:
        pass
    else:
        pytest.skip("a driver is present; the GPU tests cover this")
    disp = cuda.jit(SIG)(exchange)
    with pytest.raises(CudaSupportError, match="no NVIDIA driver"):
        disp.max_cooperative_grid_blocks(128)
    with pytest.raises(CudaSupportError):
        disp.overloads[SIG].max_cooperative_grid_blocks(128)


def test_max_cooperative_grid_blocks_needs_one_signature():
    lazy = cuda.jit(exchange)
    with pytest.raises(TypeError, match="exactly one compiled signature"):
        lazy.max_cooperative_grid_blocks(64)
    device = cuda.jit(device=True)(lambda_free_kernel)
    with pytest.raises(TypeError, match="device function"):
        device.max_cooperative_grid_blocks(64)


# ---- the runtime's cooperative path, with a fake driver --------------------------------------


class _FakeDriver:
    def __init__(self, per_sm):
        from cuda.bindings import driver

        self.ok = driver.CUresult.CUDA_SUCCESS
        self.per_sm = per_sm
        self.calls = []

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(self, function, threads, shared):
        self.calls.append(("occupancy", function, threads, shared))
        return (self.ok, self.per_sm)

    def cuLaunchCooperativeKernel(self, *args):
        self.calls.append(("cooperative",) + args)
        return (self.ok,)

    def cuLaunchKernel(self, *args):
        self.calls.append(("plain",) + args)
        return (self.ok,)


def _fake_loaded_kernel(monkeypatch, cooperative, per_sm=3, sms=4):
    from types import SimpleNamespace

    from numba_cuda.runtime import cudriver, launch, streams

    fake = _FakeDriver(per_sm)
    monkeypatch.setattr(cudriver, "driver", lambda: fake)
    loaded = object.__new__(launch.LoadedKernel)
    loaded.name = "k"
    loaded.cooperative = cooperative
    loaded.function = "FUNCTION"
    loaded.context = SimpleNamespace(device=SimpleNamespace(MULTIPROCESSOR_COUNT=sms))
    loaded.attributes = {"max_threads": 1024, "shared": 0}
    loaded.dynamic_shared_limit = launch.DEFAULT_DYNAMIC_SHARED_LIMIT
    loaded.packer = SimpleNamespace(pack=lambda args, state: 4242)
    loaded._configs = {}
    stream = object.__new__(streams.Stream)
    stream.__dict__["handle"] = "STREAM"
    stream.__dict__["context"] = loaded.context  # a stream of the kernel's own device
    return loaded, fake, stream


def test_cooperative_kernels_launch_with_cuLaunchCooperativeKernel(monkeypatch):
    loaded, fake, stream = _fake_loaded_kernel(monkeypatch, cooperative=True)
    assert loaded.max_cooperative_grid_blocks((32, 2)) == 12
    loaded.launch((6, 2), (32, 2), stream, 0, ())
    launches = [c for c in fake.calls if c[0] in ("cooperative", "plain")]
    assert launches == [("cooperative", "FUNCTION", 6, 2, 1, 32, 2, 1, 0, "STREAM", 4242)]


def test_plain_kernels_launch_with_cuLaunchKernel(monkeypatch):
    loaded, fake, stream = _fake_loaded_kernel(monkeypatch, cooperative=False)
    loaded.launch(100, 32, stream, 0, ())
    assert [c[0] for c in fake.calls] == ["plain"]


def test_cooperative_grid_over_the_limit_is_refused_naming_the_query(monkeypatch):
    loaded, fake, stream = _fake_loaded_kernel(monkeypatch, cooperative=True, per_sm=2, sms=4)
    with pytest.raises(LaunchConfigError) as info:
        loaded.launch(9, 128, stream, 0, ())
    message = str(info.value)
    assert "9 blocks" in message and "8 blocks" in message
    assert "max_cooperative_grid_blocks" in message
    assert not [c for c in fake.calls if c[0] in ("cooperative", "plain")]


def test_cached_kernel_stays_cooperative(run_script, tmp_path):
    source = """
        import os, sys
        from numba import cuda, int32

        @cuda.jit((int32[:], int32[:]), cache=True)
        def exchange(a, out):
            g = cuda.cg.this_grid()
            i = cuda.grid(1)
            a[i] = i
            g.sync()
            out[i] = a[(i + 1) % a.size]

        kernel = exchange.overloads[(int32[:], int32[:])]
        print(type(kernel).__name__, kernel.cooperative, kernel.image((7, 5)).cooperative)
    """
    from numba_cuda.compiler import capability
    from numba_cuda.dispatch.device_cc import current_device_cc

    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = run_script(source, env=env, cwd=str(tmp_path))
    assert first.returncode == 0, first.stderr
    second = run_script(source, env=env, cwd=str(tmp_path))
    assert second.returncode == 0, second.stderr
    assert first.stdout.split()[1:] == ["True", "True"]
    kind, *flags = second.stdout.split()
    assert flags == ["True", "True"]
    if capability.resolve_cc(None, current_device_cc) >= (6, 0):
        assert kind != "LaunchableKernel", "the second process should have loaded the cache entry"
    else:
        # Without a GPU entries are keyed on the lowest cc (5.0 on CUDA 12), where grid sync
        # does not exist: nothing is stored, and decorating still works (no error at import).
        assert kind == "LaunchableKernel"
        assert not list((tmp_path / "cache").rglob("*.nbcu"))


def test_sync_barrier_arithmetic_flips_the_top_bit_exactly_at_the_last_arrival():
    """The counter arithmetic of the barrier, in Python: whatever the arrival order, the top bit
    keeps its value until the last block arrives and has flipped after it, and the low 31 bits
    are back where they started (so consecutive barriers need no reset)."""
    from numba_cuda.lang.cg import TOP_BIT

    for blocks in (1, 2, 7, 1024, 65535):
        for master_position in sorted({0, blocks // 2, blocks - 1}):
            for start in (0, TOP_BIT):  # the word after any number of completed barriers
                order = list(range(1, blocks))
                order.insert(master_position, 0)
                counter = start
                for arrived, block in enumerate(order, start=1):
                    add = (TOP_BIT - (blocks - 1)) if block == 0 else 1
                    counter = (counter + add) & 0xFFFFFFFF
                    flipped = bool((counter ^ start) & TOP_BIT)
                    assert flipped == (arrived == blocks), (blocks, master_position, arrived)
                assert counter & (TOP_BIT - 1) == start & (TOP_BIT - 1)


def test_exports_list_cg():
    from numba_cuda import _exports

    assert _exports.GPU["cg"] == "numba_cuda.lang.stubs"
    assert re.match(r"<module 'numba\.cuda\.cg'", repr(cuda.cg))
    assert np.int64  # keep numpy imported for the readers of this file


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)])
def test_grid_sync_kernel_links_with_nvjitlink_offline(cc):
    """The runtime loads kernels through nvJitLink (PTX -> cubin) when it can: the grid-sync
    PTX goes through that step with no extra library (no cudadevrt) and no driver."""
    from numba_cuda.runtime.launch import link_cubin

    disp = cuda.jit(SIG)(exchange)
    image = disp.overloads[SIG].image(cc)
    assert image.cooperative and image.link_files == ()
    cubin = link_cubin(image.ptx.encode(), f"sm_{cc[0]}{cc[1]}", name=image.entry_name)
    assert bytes(cubin[:4]) == b"\x7fELF"

"""Several devices on the fake driver: selection per thread, contexts, peer copies, streams and
arrays bound to their device.  GPU-marked tests at the end use every GPU present."""

import threading

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch, ndevices=3)


@pytest.fixture
def add_one():
    from numba import cuda

    @cuda.jit("void(float32[:])")
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    return k


def test_gpus_iterate_and_select_per_thread(fake):
    from numba import cuda

    assert [d.id for d in cuda.gpus] == [0, 1, 2]
    assert len(cuda.gpus) == 3
    assert cuda.gpus.current is None  # nothing bound yet in this thread
    cuda.select_device(2)
    assert cuda.get_current_device().id == 2
    seen = {}

    def worker(i):
        # a new thread starts on device 0, selects its own device, leaves others alone
        seen[f"start{i}"] = cuda.get_current_device().id
        cuda.select_device(i)
        seen[i] = cuda.get_current_device().id
        seen[f"ctx{i}"] = cuda.current_context().device.id

    threads = [threading.Thread(target=worker, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"start0": 0, "start1": 0, 0: 0, 1: 1, "ctx0": 0, "ctx1": 1}
    assert cuda.get_current_device().id == 2  # this thread's choice is untouched


def test_gpus_context_manager_nests_and_restores(fake):
    from numba import cuda

    cuda.select_device(0)
    with cuda.gpus[1] as dev:
        assert dev.id == 1 and cuda.get_current_device().id == 1
        with cuda.gpus[2]:
            assert cuda.get_current_device().id == 2
            a2 = cuda.device_array(4)
        assert cuda.get_current_device().id == 1
        a1 = cuda.device_array(4)
    assert cuda.get_current_device().id == 0
    assert a1.gpu_data.context.device.id == 1 and a2.gpu_data.context.device.id == 2


def test_copy_between_devices_is_a_peer_copy(fake):
    from numba import cuda

    host = np.arange(10, dtype=np.float32)
    with cuda.gpus[0]:
        a0 = cuda.to_device(host)
    with cuda.gpus[1]:
        a1 = cuda.to_device(np.zeros_like(host))
    with cuda.gpus[0]:
        a1.copy_to_device(a0)
        np.testing.assert_array_equal(a1.copy_to_host(), host)
    peer = [e for e in fake.log if e[0] == "cuMemcpyPeer"]
    assert len(peer) == 1
    _, dst, dst_ctx, src, src_ctx, n = peer[0]
    assert (int(dst), int(src), n) == (a1.device_pointer_value, a0.device_pointer_value, 40)
    assert int(dst_ctx) == int(a1.gpu_data.context.handle)
    assert int(src_ctx) == int(a0.gpu_data.context.handle)
    # on a stream: the async peer copy
    with cuda.gpus[1]:
        s = cuda.stream()
        a1[:] = 0
        a1.copy_to_device(a0, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(a1.copy_to_host(), host)
    assert any(e[0] == "cuMemcpyPeerAsync" and int(e[6]) == int(s.handle) for e in fake.log)


def test_kernel_argument_on_another_device_enables_peer_access(fake, add_one):
    from numba import cuda

    with cuda.gpus[1]:
        a1 = cuda.to_device(np.zeros(8, np.float32))
    with cuda.gpus[0]:
        add_one[1, 8](a1)
        ctx0 = cuda.current_context()
    enable = [e for e in fake.log if e[0] == "cuCtxEnablePeerAccess"]
    assert len(enable) == 1 and int(enable[0][1]) == int(a1.gpu_data.context.handle)
    assert a1.gpu_data.context in ctx0.peers
    with cuda.gpus[0]:
        add_one[1, 8](a1)  # once enabled, not asked again
    assert len([e for e in fake.log if e[0] == "cuCtxEnablePeerAccess"]) == 1


def test_kernel_argument_on_unreachable_device_is_a_clear_error(fake, add_one):
    from numba import cuda

    fake.peer_capable = False
    with cuda.gpus[2]:
        a2 = cuda.to_device(np.zeros(8, np.float32))
    with cuda.gpus[0]:
        launches = len(fake.launches)
        with pytest.raises(ValueError, match=r"lives on device 2, but this runs on device 0.*"
                                             r"cannot access each other's memory"):
            add_one[1, 8](a2)
        assert len(fake.launches) == launches
    with cuda.gpus[2]:
        add_one[1, 8](a2)  # on its own device it launches
    assert len(fake.launches) == launches + 1


def test_streams_and_events_are_bound_to_their_device(fake, add_one):
    from numba import cuda

    with cuda.gpus[1]:
        s1 = cuda.stream()
        e1 = cuda.event()
    with cuda.gpus[0]:
        a0 = cuda.to_device(np.zeros(8, np.float32))
        with pytest.raises(ValueError, match=r"launches on device 0, but its stream .* belongs "
                                             r"to device 1"):
            add_one[1, 8, s1](a0)
        s0 = cuda.stream()
        add_one[1, 8, s0](a0)
        with pytest.raises(ValueError, match="event of device 1 cannot be recorded on .* device 0"):
            e1.record(s0)
    e1.record(s1)  # its own device's stream: fine from any current device
    e1.wait(s0)    # waiting across devices is allowed (cuStreamWaitEvent)


def test_close_and_reset_per_device(fake):
    from numba import cuda

    with cuda.gpus[1]:
        cuda.device_array(16)
    cuda.select_device(0)
    cuda.device_array(16)
    assert fake._primary == {0: 1, 1: 1}
    cuda.gpus[1].reset()  # one device's context released, the other untouched
    assert fake._primary == {0: 1, 1: 0}
    assert cuda.get_current_device().id == 0
    cuda.close()
    assert fake._primary == {0: 0, 1: 0}


def test_can_access_peer(fake):
    from numba import cuda

    with cuda.gpus[0]:
        ctx = cuda.current_context()
        assert ctx.can_access_peer(1) is True
        assert ctx.can_access_peer(cuda.gpus[2]) is True
        assert ctx.can_access_peer(0) is True
        fake.peer_capable = False
        assert ctx.can_access_peer(1) is False


# -- real GPUs ---------------------------------------------------------------------------
@pytest.mark.gpu
def test_every_gpu_runs_its_own_kernel():
    from numba import cuda

    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    arrays = []
    for dev in cuda.gpus:
        with dev:
            a = cuda.device_array(1000, np.float32)
            fill[4, 256](a, dev.id + 1)
            arrays.append((dev.id, a))
    for ident, a in arrays:
        with cuda.gpus[ident]:
            np.testing.assert_array_equal(a.copy_to_host(), np.full(1000, ident + 1, np.float32))


@pytest.mark.gpu
def test_copy_between_every_pair_of_gpus():
    from numba import cuda

    n = len(cuda.gpus)
    host = np.arange(256, dtype=np.float64)
    for src in range(n):
        with cuda.gpus[src]:
            a = cuda.to_device(host)
        for dst in range(n):
            with cuda.gpus[dst]:
                b = cuda.device_array_like(host)
                b.copy_to_device(a)
                np.testing.assert_array_equal(b.copy_to_host(), host)


@pytest.mark.gpu
def test_threads_each_on_a_device():
    from numba import cuda

    @cuda.jit
    def add(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += v

    results = {}

    def work(i, ordinal):
        cuda.select_device(ordinal)
        a = cuda.to_device(np.zeros(64))
        add[1, 64](a, i)
        results[i] = (cuda.get_current_device().id, a.copy_to_host())

    n = len(cuda.gpus)
    threads = [threading.Thread(target=work, args=(i, i % n)) for i in range(2 * n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, (dev, data) in results.items():
        assert dev == i % n
        np.testing.assert_array_equal(data, np.full(64, float(i)))

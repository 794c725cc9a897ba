"""CUDA graphs (``cuda.graph``) on the fake driver: the driver calls in order, what a replay
does, updates of the parameters, the operations a capture refuses, destruction.

The fake driver records captured launches, copies and memsets as graph nodes and replays them
at ``cuGraphLaunch``; kernels do not run, so ``on_launch`` stands in for ``scale`` (multiply
an array of float32 by a scalar), decoding its parameters as the driver hands them over.
"""

import gc
import struct

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def _run_scale(fake, launch):
    """What ``scale(a, k)`` does (a: 1-d float32 array, k: float32), from its parameters."""
    nitems = struct.unpack("<q", launch["params"][2])[0]
    data = struct.unpack("<Q", launch["params"][4])[0]
    k = struct.unpack("<f", launch["params"][7])[0]
    values = np.frombuffer(fake.read(data, 4 * nitems), dtype=np.float32) * np.float32(k)
    fake.write(data, values.astype(np.float32).tobytes())


@pytest.fixture
def scale():
    from numba import cuda

    @cuda.jit("void(float32[:], float32)")
    def scale(a, k):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= k

    return scale


def _calls(fake, start):
    names = ("cuStreamBeginCapture", "cuStreamEndCapture", "cuGraphInstantiate", "cuGraphLaunch",
             "cuGraphExecUpdate", "cuGraphDestroy", "cuGraphExecDestroy", "cuLaunchKernel",
             "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuMemsetD8Async")
    return [entry[0] for entry in fake.log[start:] if entry[0] in names]


def test_capture_instantiate_launch_destroy_call_sequence(fake, scale):
    from numba import cuda

    fake.on_launch = _run_scale
    s = cuda.stream()
    host = cuda.pinned_array(4, np.float32)
    host[:] = [1, 2, 3, 4]
    out = cuda.pinned_array(4, np.float32)
    d = cuda.device_array(4, np.float32)
    start = len(fake.log)
    with cuda.graph(s) as g:
        d.copy_to_device(host, stream=s)
        scale[1, 32, s](d, 2.0)
        d.copy_to_host(out, stream=s)
    assert _calls(fake, start) == ["cuStreamBeginCapture", "cuMemcpyHtoDAsync", "cuLaunchKernel",
                                   "cuMemcpyDtoHAsync", "cuStreamEndCapture",
                                   "cuGraphInstantiate"]
    begin = next(e for e in fake.log[start:] if e[0] == "cuStreamBeginCapture")
    assert int(begin[1]) == int(s.handle)
    assert begin[2] == fake.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    # nothing ran during the capture
    assert fake.launches == [] and list(out) == [0, 0, 0, 0]
    assert g.num_nodes == 3 and g.stream is s

    g.launch()
    s.synchronize()
    np.testing.assert_array_equal(out, [2, 4, 6, 8])
    host[:] = [10, 20, 30, 40]  # a replay copies the host buffer's contents of the moment
    g.replay()
    s.synchronize()
    np.testing.assert_array_equal(out, [20, 40, 60, 80])
    assert [launch["graph"] for launch in fake.launches] == [int(g._handles["exec"])] * 2
    launch_calls = [e for e in fake.log if e[0] == "cuGraphLaunch"]
    assert [int(e[2]) for e in launch_calls] == [int(s.handle)] * 2

    graph, exec_ = g._handles["graph"], g._handles["exec"]
    start = len(fake.log)
    g.close()
    assert [(e[0], int(e[1])) for e in fake.log[start:]] == [("cuGraphExecDestroy", exec_),
                                                             ("cuGraphDestroy", graph)]
    assert fake.graphs == {} and fake.graph_execs == {}
    with pytest.raises(cuda.GraphCaptureError, match="closed"):
        g.launch()


def test_the_mode_reaches_the_driver_and_a_new_stream_by_default(fake):
    from numba import cuda

    d = cuda.device_array(8, np.uint8)
    with cuda.graph(mode="thread_local") as g:
        d.gpu_data.memset(7, stream=g.stream)
    begin = next(e for e in fake.log if e[0] == "cuStreamBeginCapture")
    assert begin[2] == fake.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
    assert int(begin[1]) == int(g.stream.handle) and not g.stream.is_default
    assert list(d.copy_to_host()) == [0] * 8  # captured, not run
    g.launch()
    g.stream.synchronize()
    assert list(d.copy_to_host()) == [7] * 8
    with pytest.raises(ValueError, match="mode must be one of"):
        cuda.graph(mode="strict")


def test_update_changes_parameters_in_place(fake, scale):
    from numba import cuda

    fake.on_launch = _run_scale
    s = cuda.stream()
    a = cuda.to_device(np.ones(4, np.float32))
    b = cuda.to_device(np.ones(4, np.float32))
    with cuda.graph(s) as g:
        scale[1, 32, s](a, 2.0)
    exec_ = g._handles["exec"]
    first_graph = g._handles["graph"]
    start = len(fake.log)
    with g.update():
        scale[1, 32, s](b, 5.0)
    assert _calls(fake, start) == ["cuStreamBeginCapture", "cuLaunchKernel", "cuStreamEndCapture",
                                   "cuGraphExecUpdate", "cuGraphDestroy"]
    update = next(e for e in fake.log[start:] if e[0] == "cuGraphExecUpdate")
    assert int(update[1]) == exec_ and int(update[2]) == g._handles["graph"] != first_graph
    destroyed = next(e for e in fake.log[start:] if e[0] == "cuGraphDestroy")
    assert int(destroyed[1]) == first_graph  # the old graph; the instantiated one stays
    assert g._handles["exec"] == exec_
    assert "cuGraphInstantiate" not in _calls(fake, start)
    g.launch()
    s.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), [1, 1, 1, 1])
    np.testing.assert_array_equal(b.copy_to_host(), [5, 5, 5, 5])


def test_an_update_of_another_shape_is_refused_and_keeps_the_graph(fake, scale):
    from numba import cuda

    fake.on_launch = _run_scale
    s = cuda.stream()
    a = cuda.to_device(np.ones(4, np.float32))
    with cuda.graph(s) as g:
        scale[1, 32, s](a, 2.0)
    graphs_before = dict(fake.graphs)
    with pytest.raises(cuda.GraphUpdateError, match="another number of operations") as info:
        with g.update():
            scale[1, 32, s](a, 3.0)
            scale[1, 32, s](a, 3.0)
    assert info.value.result == "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED"
    assert fake.graphs == graphs_before  # the rejected capture was destroyed
    with pytest.raises(cuda.GraphUpdateError, match="changed kind"):
        with g.update():
            a.gpu_data.memset(0, stream=s)
    g.launch()
    s.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), [2, 2, 2, 2])  # the old parameters


def test_refused_during_capture_with_clear_errors_and_the_capture_ends(fake, scale):
    from numba import cuda

    s = cuda.stream()
    d = cuda.device_array(4, np.float32)
    host = np.zeros(4, np.float32)
    d2 = cuda.device_array((4, 4), np.float32)
    cases = [
        (lambda: d.copy_to_host(host), "synchronous"),
        (lambda: d.copy_to_device(host), "synchronous"),
        (lambda: d.gpu_data.memset(0), "synchronous"),
        (lambda: scale[1, 32](d, 1.0), "legacy default stream"),
        (lambda: scale[1, 32, cuda.legacy_default_stream()](d, 1.0), "legacy default stream"),
        (lambda: scale[1, 32, s](host, 1.0), "host \\(NumPy\\) array"),
        (lambda: d2[:, ::2].copy_to_host(stream=s), "step on the host"),
        (lambda: d.copy_to_host(np.zeros(8, np.float32)[::2], stream=s), "step on the host"),
        (lambda: d2[:, ::2].copy_to_device(np.zeros((4, 2), np.float32), stream=s),
         "step on the host"),
        (lambda: d2.copy_to_device(d2.T, stream=s), "step on the host"),
        (lambda: s.synchronize(), "synchronising"),
        (lambda: cuda.synchronize(), "cuda.synchronize"),
    ]
    for action, message in cases:
        start = len(fake.log)
        with pytest.raises(cuda.GraphCaptureError, match=message):
            with cuda.graph(s):
                action()
        # refused before the driver saw it; the capture was ended and its graph destroyed
        assert _calls(fake, start) == ["cuStreamBeginCapture", "cuStreamEndCapture",
                                       "cuGraphDestroy"], message
        assert fake._captures == {} and fake.graphs == {}
    # and the stream captures again afterwards
    with cuda.graph(s) as g:
        scale[1, 32, s](d, 1.0)
    assert g.num_nodes == 1


def test_capture_misuse(fake, scale):
    from numba import cuda

    s = cuda.stream()
    with pytest.raises(cuda.GraphCaptureError, match="legacy default stream cannot capture"):
        cuda.graph(0)
    g = cuda.graph(s)
    with pytest.raises(cuda.GraphCaptureError, match="not been captured"):
        g.launch()
    with g:
        with pytest.raises(cuda.GraphCaptureError, match="already capturing"):
            with cuda.graph(s):
                pass
    with pytest.raises(cuda.GraphCaptureError, match="already been captured"):
        with g:
            pass
    assert "captured" in repr(g)


def test_work_the_driver_refuses_invalidates_the_capture(fake):
    """The fake driver behaves as the driver: work that bypasses the runtime's checks (here a
    synchronous copy made directly) invalidates the capture, and the end says so."""
    from numba import cuda
    from numba_cuda.runtime import cudriver

    d = cuda.device_array(4, np.float32)
    host = np.zeros(4, np.float32)
    with pytest.raises(cuda.GraphCaptureError, match="invalidated the capture"):
        with cuda.graph() as g:
            drv = cudriver.driver()
            (res,) = drv.cuMemcpyDtoH(host.ctypes.data, drv.CUdeviceptr(d.device_ctypes_pointer
                                                                        .value), 16)
            assert res == drv.CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT
    assert "exec" not in g._handles


def test_collected_graphs_are_destroyed(fake, scale):
    from numba import cuda

    s = cuda.stream()
    d = cuda.device_array(4, np.float32)
    with cuda.graph(s) as g:
        scale[1, 32, s](d, 1.0)
    assert len(fake.graphs) == 1 and len(fake.graph_execs) == 1
    del g
    gc.collect()
    cuda.current_context().deallocations.clear()
    assert fake.graphs == {} and fake.graph_execs == {}


def test_a_graph_keeps_its_kernel_arguments_alive(fake, scale):
    import weakref

    from numba import cuda

    s = cuda.stream()
    d = cuda.device_array(4, np.float32)
    ref = weakref.ref(d)
    with cuda.graph(s) as g:
        scale[1, 32, s](d, 1.0)
    del d
    gc.collect()
    assert ref() is not None
    g.close()
    gc.collect()
    assert ref() is None


def test_no_capture_costs_no_check(fake, scale, monkeypatch):
    """Without a capture the checks are never reached (the hot paths test one empty dict)."""
    from numba import cuda
    from numba_cuda.runtime import graph_capture

    def boom(*args, **kwargs):
        raise AssertionError("a capture check ran without a capture")

    for name in ("on_launch", "check_synchronous", "check_stream_work",
                 "check_stream_synchronize", "check_device_synchronize"):
        monkeypatch.setattr(graph_capture, name, boom)
    d = cuda.to_device(np.ones(4, np.float32))
    scale[1, 32](d, 1.0)
    d.copy_to_host()
    cuda.synchronize()


def test_the_shared_scenario_captures_six_nodes_in_order(fake):
    """tests/support/graph_scenarios.py (run for real by the simulator's and the GPU's tests) captures a
    copy in, a memset, two launches and two copies out, and updates without re-instantiating."""
    from numba import cuda
    from tests.support import graph_scenarios

    _results, g = graph_scenarios.captured(cuda, 3, lambda step: float(step), update_at={1})
    (nodes,) = fake.graph_execs.values()
    assert [n["kind"] if n["kind"] != "memcpy" else n["call"] for n in nodes] == [
        "cuMemcpyHtoDAsync", "memset", "kernel", "kernel", "cuMemcpyDtoHAsync",
        "cuMemcpyDtoHAsync"]
    assert [n["launch"]["entry"].split("axpy")[0] != n["launch"]["entry"]
            for n in nodes if n["kind"] == "kernel"] == [True, False]
    assert [e[0] for e in fake.log].count("cuGraphInstantiate") == 1
    assert [e[0] for e in fake.log].count("cuGraphExecUpdate") == 1
    assert [e[0] for e in fake.log].count("cuGraphLaunch") == 3
    # the update's axpy launch carries the new scalar a = 1.0 (parameter 3 of axpy(out, a, x, y))
    axpy = nodes[2]["launch"]
    assert struct.unpack("<d", axpy["params"][7])[0] == 1.0
    g.close()


def test_frees_wait_until_the_capture_ends(fake, scale, monkeypatch):
    from numba import cuda
    from numba.core import config

    monkeypatch.setattr(config, "CUDA_DEALLOCS_COUNT", 0, raising=False)  # free at once
    s = cuda.stream()
    d = cuda.device_array(4, np.float32)
    start = len(fake.log)
    with cuda.graph(s):
        scratch = cuda.device_array(4, np.float32)
        del scratch
        gc.collect()
        scale[1, 32, s](d, 1.0)
    names = [e[0] for e in fake.log[start:]]
    assert names.index("cuMemFree") > names.index("cuStreamEndCapture")

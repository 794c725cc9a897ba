"""CUDA graphs in the simulator: captured work runs only at each launch, and gives what the
same work run eagerly gives; updates and the refusals match the GPU target's."""

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda
from tests.support import graph_scenarios


def test_replays_match_eager_execution():
    a_of_step = lambda step: 2.0 if step < 2 else -0.5  # noqa: E731
    expected = graph_scenarios.eager(cuda, 4, a_of_step)
    got, g = graph_scenarios.captured(cuda, 4, a_of_step, update_at={2})
    assert g.num_nodes == 6
    for (out, total), (want_out, want_total) in zip(got, expected):
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(total, want_total)
    # the steps really differ (new host data each replay, a new scalar after the update)
    assert not np.array_equal(got[0][0], got[1][0]) and got[2][1] != got[1][1]


def test_nothing_runs_during_the_capture():
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    s = cuda.stream()
    d = cuda.to_device(np.zeros(4, np.int32))
    out = cuda.pinned_array(4, np.int32)
    out[:] = -1
    with cuda.graph(s) as g:
        fill[1, 4, s](d, 7)
        d.copy_to_host(out, stream=s)
        fresh = d.copy_to_host(stream=s)  # a new host array, filled at each launch
    assert list(d.copy_to_host()) == [0] * 4 and list(out) == [-1] * 4
    g.replay()
    assert list(out) == [7] * 4 and list(fresh) == [7] * 4
    with g.update():
        fill[1, 4, s](d, 9)
        d.copy_to_host(out, stream=s)
        d.copy_to_host(fresh, stream=s)
    g.launch(cuda.stream())
    assert list(out) == [9] * 4
    g.close()
    with pytest.raises(cuda.GraphCaptureError, match="closed"):
        g.launch()


def test_updates_of_another_shape_are_refused():
    @cuda.jit
    def inc(a):
        a[0] += 1

    s = cuda.stream()
    d = cuda.to_device(np.zeros(1, np.int32))
    with cuda.graph(s) as g:
        inc[1, 1, s](d)
    with pytest.raises(cuda.GraphUpdateError, match="another number") as info:
        with g.update():
            inc[1, 1, s](d)
            inc[1, 1, s](d)
    assert info.value.result == "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED"
    with pytest.raises(cuda.GraphUpdateError, match="changed kind"):
        with g.update():
            cuda.driver.device_memset(d, 0, 4, stream=s)
    g.launch()
    assert d.copy_to_host()[0] == 1  # the graph kept its launch


def test_refusals_match_the_gpu_target():
    @cuda.jit
    def k(a, v):
        a[0] = v

    s = cuda.stream()
    d = cuda.device_array(4, np.float32)
    host = np.zeros(4, np.float32)
    d2 = cuda.device_array((4, 4), np.float32)
    cases = [
        (lambda: d.copy_to_host(host), "synchronous"),
        (lambda: d.copy_to_device(host), "synchronous"),
        (lambda: cuda.to_device(host), "synchronous"),
        (lambda: cuda.driver.device_memset(d, 0, 4), "synchronous"),
        (lambda: d.copy_to_device([1, 2, 3, 4], stream=s), "temporary host"),
        (lambda: k[1, 1](d, 1.0), "legacy default stream"),
        (lambda: k[1, 1, cuda.legacy_default_stream()](d, 1.0), "legacy default stream"),
        (lambda: k[1, 1, s](host, 1.0), "host \\(NumPy\\) array"),
        (lambda: cuda.jit(debug=True, opt=False)(k.py_func)[1, 1, s](d, 1.0), "debug=True"),
        (lambda: d2[:, ::2].copy_to_host(stream=s), "step on the host"),
        (lambda: d.copy_to_host(np.zeros(8, np.float32)[::2], stream=s), "step on the host"),
        (lambda: d2[:, ::2].copy_to_device(np.zeros((4, 2), np.float32), stream=s),
         "step on the host"),
        (lambda: d2.copy_to_device(d2.T, stream=s), "step on the host"),
        (lambda: s.synchronize(), "synchronising"),
        (lambda: cuda.synchronize(), "cuda.synchronize"),
    ]
    for action, message in cases:
        with pytest.raises(cuda.GraphCaptureError, match=message):
            with cuda.graph(s):
                action()
    with pytest.raises(cuda.GraphCaptureError, match="legacy default stream cannot capture"):
        cuda.graph(0)
    with pytest.raises(ValueError, match="mode must be one of"):
        cuda.graph(mode="strict")
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
    # after all that, nothing is left capturing: eager work runs at once again
    k[1, 1](d, 5.0)
    assert d.copy_to_host()[0] == 5.0

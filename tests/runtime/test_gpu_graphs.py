"""CUDA graphs on a real GPU: the shared scenario (tests/support/graph_scenarios.py) captured, replayed
with new host data and updated in place gives what the same work run eagerly gives, and what
NumPy computes; a refused operation leaves the stream able to capture again."""

import numpy as np
import pytest

from tests.support import graph_scenarios

pytestmark = pytest.mark.gpu


def test_replays_match_eager_execution_and_numpy():
    from numba import cuda

    a_of_step = lambda step: 2.0 if step < 2 else -0.5  # noqa: E731
    expected = graph_scenarios.eager(cuda, 4, a_of_step)
    got, g = graph_scenarios.captured(cuda, 4, a_of_step, update_at={2})
    assert g.num_nodes == 6
    y = np.arange(graph_scenarios.N, dtype=np.float32)
    for step, ((out, total), (want_out, want_total)) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(total, want_total)
        numpy_out = np.float32(a_of_step(step)) * graph_scenarios.inputs(step) + y
        np.testing.assert_array_equal(out, numpy_out)
        assert total[0] == numpy_out.sum()
    g.close()


def test_a_refused_operation_leaves_the_stream_usable():
    from numba import cuda

    @cuda.jit
    def inc(a):
        a[0] += 1

    s = cuda.stream()
    d = cuda.to_device(np.zeros(1, np.int32))
    inc[1, 1, s](d)
    s.synchronize()
    with pytest.raises(cuda.GraphCaptureError, match="synchronous"):
        with cuda.graph(s):
            inc[1, 1, s](d)
            d.copy_to_host()
    with cuda.graph(s) as g:
        inc[1, 1, s](d)
    for _ in range(3):
        g.launch()
    s.synchronize()
    assert d.copy_to_host()[0] == 4

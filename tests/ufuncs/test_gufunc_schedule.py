"""A gufunc call's schedule: core shapes, loop dimensions, broadcast ("pinned") inputs."""

import numpy as np
import pytest

from numba_cuda.ufuncs.schedule import GUFuncEngine

MATMUL = "(m, n), (n, p) -> (m, p)"


@pytest.mark.parametrize("layout, shapes, ishapes, oshapes, loopdims, pinned", [
    (MATMUL, [(100, 4, 5), (1, 5, 7)], [(4, 5), (5, 7)], [(4, 7)], (100,), [False, True]),
    (MATMUL, [(100, 4, 5), (100, 5, 7)], [(4, 5), (5, 7)], [(4, 7)], (100,), [False, False]),
    (MATMUL, [(12, 34, 4, 5), (12, 34, 5, 7)], [(4, 5), (5, 7)], [(4, 7)], (12, 34),
     [False, False]),
    (MATMUL, [(4, 5), (5, 7)], [(4, 5), (5, 7)], [(4, 7)], (), [False, False]),
    ("(a),(a)->(a)", [(5,), (5,)], [(5,), (5,)], [(5,)], (), [False, False]),
    ("(),()->()", [(5,), ()], [(), ()], [()], (5,), [False, True]),
    # NumPy's broadcasting of the loop dimensions, beyond a length-1 or absent one
    ("(),()->()", [(3, 1), (4,)], [(), ()], [()], (3, 4), [True, True]),
])
def test_schedule(layout, shapes, ishapes, oshapes, loopdims, pinned):
    schedule = GUFuncEngine.from_signature(layout).schedule(shapes)
    assert schedule.ishapes == ishapes
    assert schedule.oshapes == oshapes
    assert schedule.loopdims == loopdims
    assert schedule.loopn == int(np.prod(loopdims))
    assert schedule.pinned == pinned
    assert schedule.output_shapes == [loopdims + s for s in oshapes]


def test_an_output_dimension_no_input_fixes_has_no_shape():
    schedule = GUFuncEngine([("n",)], [("k",)]).schedule([(2, 3)])
    assert schedule.oshapes == [None] and schedule.output_shapes == [None]


@pytest.mark.parametrize("shapes, message", [
    ([(4, 5), (6, 7)], "core dimension 'n' is 5 elsewhere but 6 in input 1"),
    ([(5,), (5, 7)], r"input 0 has 1 dimension\(s\), its core dimensions \('m', 'n'\) need"),
    ([(2, 4, 5), (3, 5, 7)], r"the loop dimensions of the inputs \[\(2,\), \(3,\)\] do not "
                             "broadcast together"),
])
def test_mismatched_shapes_are_refused(shapes, message):
    with pytest.raises(ValueError, match=message):
        GUFuncEngine.from_signature(MATMUL).schedule(shapes)


def test_the_input_count_is_checked():
    with pytest.raises(TypeError, match="takes 2 input"):
        GUFuncEngine.from_signature(MATMUL).schedule([(4, 5)])

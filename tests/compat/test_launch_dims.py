"""``numba_cuda.common.launch_dims``: the one check of ``kernel[griddim, blockdim]`` sizes that the
GPU target's dispatcher, its runtime and the simulator share."""

import collections

import numpy as np
import pytest

from numba_cuda.errors import LaunchConfigError, LaunchConfigTypeError
from numba_cuda.common.launch_dims import normalize_dims


class Dim3:
    """Not iterable: a dim3-like object is read through .x, .y, .z."""

    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z


class Index:
    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def test_the_three_places_use_the_one_check():
    from numba_cuda.common import launch_dims
    from numba_cuda.dispatch import dispatcher
    from numba_cuda.runtime import launch
    from numba_cuda.simulator import launchconfig

    assert dispatcher.normalize_dims is launch_dims.normalize_dims
    assert launch.normalize_dims is launch_dims.normalize_dims
    assert launchconfig.normalize_dims is launch_dims.normalize_dims


@pytest.mark.parametrize("value,expect", [
    (5, (5, 1, 1)),
    ((2, 3), (2, 3, 1)),
    ([1, 2, 3], (1, 2, 3)),
    (np.int64(7), (7, 1, 1)),
    ((np.uint32(4), np.int8(2)), (4, 2, 1)),
    (Dim3(2, 3, 4), (2, 3, 4)),
    (collections.namedtuple("dim3", "x y z")(8, 1, 1), (8, 1, 1)),
    (Index(6), (6, 1, 1)),
    ((Index(2), 3), (2, 3, 1)),
])
def test_sizes_become_three_python_ints(value, expect):
    got = normalize_dims(value, "griddim")
    assert got == expect
    assert all(type(d) is int for d in got)


@pytest.mark.parametrize("value,cls,words", [
    (None, LaunchConfigError, "griddim is missing: launch the kernel as kernel[griddim, blockdim](...)"),
    ((1, 2, 3, 4), LaunchConfigError, "griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4]"),
    ((), LaunchConfigError, "griddim must be a sequence of 1, 2 or 3 integers, got []"),
    (2.0, LaunchConfigTypeError, "griddim must be a sequence of integers, got [2.0] (griddim.x is 2.0)"),
    ((1, "2"), LaunchConfigTypeError, "griddim must be a sequence of integers, got [1, '2'] (griddim.y is '2')"),
    (True, LaunchConfigTypeError, "griddim must be a sequence of integers, got [True] (griddim.x is True)"),
    ((4, np.True_), LaunchConfigTypeError, "griddim must be a sequence of integers, got [4, "),
    (0, LaunchConfigError, "griddim.x must be at least 1, got 0 (a launch needs at least one block of "
                           "at least one thread)"),
    ((4, 4, -2), LaunchConfigError, "griddim.z must be at least 1, got -2"),
    (Dim3(1, 0, 1), LaunchConfigError, "griddim.y must be at least 1, got 0"),
])
def test_bad_sizes_raise_numbas_classes_in_numbas_words(value, cls, words):
    with pytest.raises(cls) as info:
        normalize_dims(value, "griddim")
    assert type(info.value) is cls
    assert words in str(info.value)
    if cls is LaunchConfigTypeError:
        assert isinstance(info.value, TypeError)
    assert isinstance(info.value, ValueError)  # LaunchConfigError is a ValueError


@pytest.mark.parametrize("value", [1, 7, (3,), (2, 3), (2, 3, 4), np.int32(5), (np.int64(2), 3),
                                   [2, 3], range(1, 3)])
def test_fast_path_gives_the_general_answer(value):
    # plain ints and tuples of them take a shortcut; anything else the general check
    expected = tuple(int(v) for v in (value if not isinstance(value, (int, np.integer))
                                      else (value,)))
    expected += (1,) * (3 - len(expected))
    assert normalize_dims(value, "griddim") == expected
    assert all(type(v) is int for v in normalize_dims(value, "griddim"))


@pytest.mark.parametrize("value", [0, -1, (2, 0), (True,), True, (1, 2, 3, 4), ()])
def test_fast_path_refuses_what_the_general_check_refuses(value):
    with pytest.raises((LaunchConfigError, LaunchConfigTypeError)):
        normalize_dims(value, "griddim")

"""Launch configuration checks, done before the driver sees a launch (no GPU needed)."""

import types

import numpy as np
import pytest

from numba_cuda.errors import LaunchConfigError
from numba_cuda.runtime.launch import normalize_dims, validate_launch_config

H100 = types.SimpleNamespace(
    MAX_THREADS_PER_BLOCK=1024, MAX_BLOCK_DIM_X=1024, MAX_BLOCK_DIM_Y=1024, MAX_BLOCK_DIM_Z=64,
    MAX_GRID_DIM_X=2**31 - 1, MAX_GRID_DIM_Y=65535, MAX_GRID_DIM_Z=65535,
    MAX_SHARED_MEMORY_PER_BLOCK=49152, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN=232448)


def test_normalizes_ints_and_tuples():
    assert validate_launch_config(4, 128, 0, H100) == ((4, 1, 1), (128, 1, 1), 0)
    assert validate_launch_config((2, 3), (8, 8, 4), 1024, H100) == ((2, 3, 1), (8, 8, 4), 1024)
    assert normalize_dims(np.int64(7), "griddim") == (7, 1, 1)
    assert normalize_dims([1, 2, 3], "griddim") == (1, 2, 3)


@pytest.mark.parametrize("grid,block,match", [
    (0, 32, r"griddim\.x must be at least 1, got 0 \(a launch needs at least one block"),
    (4, (32, -1), r"blockdim\.y must be at least 1, got -1"),
    ((1, 2, 3, 4), 32, r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"),
    ((2.0, 1), 32, r"griddim must be a sequence of integers, got \[2\.0, 1\] \(griddim\.x is 2\.0\)"),
    (2.0, 32, r"griddim must be a sequence of integers, got \[2\.0\]"),
    (4, True, r"blockdim must be a sequence of integers, got \[True\]"),
])
def test_bad_dimensions(grid, block, match):
    with pytest.raises(LaunchConfigError, match=match):
        validate_launch_config(grid, block, 0, H100)


def test_too_many_threads_names_limit_and_value():
    with pytest.raises(LaunchConfigError) as info:
        validate_launch_config(1, (64, 32), 0, H100)
    msg = str(info.value)
    assert "2048 threads per block" in msg and "MAX_THREADS_PER_BLOCK of 1024" in msg


def test_block_dimension_limits():
    with pytest.raises(LaunchConfigError, match="blockdim.z is 128, over this device's "
                                                "MAX_BLOCK_DIM_Z of 64"):
        validate_launch_config(1, (1, 1, 128), 0, H100)
    with pytest.raises(LaunchConfigError, match="griddim.y is 70000, over this device's "
                                                "MAX_GRID_DIM_Y of 65535"):
        validate_launch_config((1, 70000), 32, 0, H100)


def test_kernel_register_limit():
    with pytest.raises(LaunchConfigError, match="this kernel can run at most 512 per block"):
        validate_launch_config(1, 1024, 0, H100, kernel_max_threads=512)
    validate_launch_config(1, 512, 0, H100, kernel_max_threads=512)


def test_dynamic_shared_memory_limit():
    validate_launch_config(1, 32, 232448, H100)
    with pytest.raises(LaunchConfigError) as info:
        validate_launch_config(1, 32, 232449, H100)
    assert "232449 bytes" in str(info.value) and "232448 bytes" in str(info.value)
    with pytest.raises(LaunchConfigError, match="plus 1024 bytes of static shared memory"):
        validate_launch_config(1, 32, 232000, H100, static_shared=1024)
    with pytest.raises(LaunchConfigError, match="cannot be negative"):
        validate_launch_config(1, 32, -1, H100)


def test_falls_back_to_the_non_optin_shared_limit():
    old = types.SimpleNamespace(MAX_THREADS_PER_BLOCK=1024, MAX_SHARED_MEMORY_PER_BLOCK=49152)
    with pytest.raises(LaunchConfigError, match="limit of 49152 bytes"):
        validate_launch_config(1, 32, 49153, old)

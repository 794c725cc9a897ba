"""Shared pytest configuration.

Tests marked ``@pytest.mark.gpu`` need an NVIDIA driver and at least one
device; without them they are skipped with the reason found here.
"""

import functools
import os
import sys

import pytest

# Numba's low-occupancy warning (on by default, as in Numba) would fire for nearly every launch
# of the suite's small grids; the tests of the warning turn it on themselves.  Subprocesses
# inherit the variable.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
if "numba.core.config" in sys.modules:
    sys.modules["numba.core.config"].CUDA_LOW_OCCUPANCY_WARNINGS = int(
        os.environ["NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"])


@functools.lru_cache(maxsize=None)
def gpu_unavailable_reason():
    """None when a GPU can be used, else a sentence saying why not."""
    from numba_cuda.common.env_flags import env_flag

    if env_flag("NUMBA_ENABLE_CUDASIM", False):
        return "NUMBA_ENABLE_CUDASIM is set: the simulator is in use"
    try:
        from cuda.bindings import driver
    except Exception as exc:  # noqa: BLE001
        return f"cuda-bindings is not importable ({exc})"
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # noqa: BLE001
        return f"no NVIDIA driver (libcuda) could be loaded: {exc}"
    if err != driver.CUresult.CUDA_SUCCESS:
        return f"cuInit failed: {err.name}"
    err, count = driver.cuDeviceGetCount()
    if err != driver.CUresult.CUDA_SUCCESS or count == 0:
        return "the NVIDIA driver reports no CUDA device"
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        # The marker itself: ``"gpu" in item.keywords`` also matched a parameter whose id is
        # "gpu" (``parametrize("target", ["gpu", "simulator"])``) and skipped that case too.
        if item.get_closest_marker("gpu") is not None:
            if reason is None:
                reason = gpu_unavailable_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"needs a GPU: {reason}"))

"""Fixtures for the compiler tests (everything up to PTX: no GPU needed)."""

import pytest

from tests.support import subprocesses


@pytest.fixture(scope="session")
def cuda():
    from numba import cuda as numba_cuda

    # the CUDA target registered with Numba, as the first cuda.jit / cuda.compile_ptx does, so
    # that a test may call the compiler's own stages (pipeline.compile_cuda ...) first
    import numba_cuda.dispatch  # noqa: F401

    return numba_cuda


@pytest.fixture(scope="session")
def cuda_major():
    from numba_cuda import toolkit

    return toolkit.get_toolkit().cuda_major


@pytest.fixture
def run_python():
    """``run_python(code, env=None, timeout=120)``: ``code`` in a fresh interpreter; returns the
    CompletedProcess."""
    return subprocesses.run_python

"""Fixtures for the tests of the dispatch layer (``numba_cuda.dispatch``: ``cuda.jit``, the
dispatcher and its launch configurations, registration with Numba); no GPU needed."""

import pytest

from tests.support import subprocesses


@pytest.fixture(scope="session")
def cuda():
    from numba import cuda as numba_cuda

    return numba_cuda


@pytest.fixture
def run_python():
    """``run_python(code, env=None, timeout=120)``: ``code`` in a fresh interpreter."""
    return subprocesses.run_python

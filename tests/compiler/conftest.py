"""Fixtures for the compiler tests (everything up to PTX: no GPU needed)."""

import os
import subprocess
import sys
import textwrap

import pytest


@pytest.fixture(scope="session")
def cuda():
    from numba import cuda as numba_cuda

    return numba_cuda


@pytest.fixture(scope="session")
def cuda_major():
    from numba_cuda import toolkit

    return toolkit.get_toolkit().cuda_major


@pytest.fixture
def run_python():
    """Run a Python snippet in a fresh interpreter; returns the CompletedProcess."""

    def run(code, env=None, timeout=120):
        full_env = dict(os.environ)
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True, text=True, env=full_env, timeout=timeout,
        )

    return run

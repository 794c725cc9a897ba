"""Numba's own EMM plugin tests (``numba/cuda/tests/cudadrv/test_emm_plugins.py`` in the
installed numba wheel, loaded from there, not copied) pass against ours on the fake driver."""

import importlib.util
import os
import unittest

import numba
import pytest

from tests.runtime.fake_driver import FakeDriver

NUMBA_TEST = os.path.join(os.path.dirname(numba.__file__), "cuda", "tests", "cudadrv",
                          "test_emm_plugins.py")


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver().install(monkeypatch)
    from numba_cuda.runtime import memory_managers

    monkeypatch.setattr(memory_managers, "_memory_manager", None)
    yield drv
    from numba import cuda

    cuda.close()


@pytest.mark.skipif(not os.path.exists(NUMBA_TEST), reason="this numba ships no CUDA tests")
def test_numbas_emm_plugin_tests_pass(fake):
    spec = importlib.util.spec_from_file_location("_numba_test_emm_plugins", NUMBA_TEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TestResult()
    suite.run(result)
    problems = [f"{test}: {trace}" for test, trace in result.errors + result.failures]
    assert problems == []
    assert result.testsRun >= 6 and not result.skipped

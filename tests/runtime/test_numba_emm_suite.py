"""Numba's own tests of memory management (``numba/cuda/tests/cudadrv/test_emm_plugins.py``
and ``test_deallocations.py`` in the installed numba wheel, loaded from there, not copied)
pass against ours on the fake driver."""

import importlib.util
import os
import unittest

import numba
import pytest

from tests.support.fake_driver import FakeDriver

NUMBA_TESTS = os.path.join(os.path.dirname(numba.__file__), "cuda", "tests", "cudadrv")


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver().install(monkeypatch)
    from numba_cuda.runtime import memory_managers

    monkeypatch.setattr(memory_managers, "_memory_manager", None)
    yield drv
    from numba import cuda

    cuda.close()


def _run_numba_tests(name):
    path = os.path.join(NUMBA_TESTS, name)
    if not os.path.exists(path):
        pytest.skip(f"this numba ships no {name}")
    spec = importlib.util.spec_from_file_location(f"_numba_{name[:-3]}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TestResult()
    suite.run(result)
    problems = [f"{test}: {trace}" for test, trace in result.errors + result.failures]
    assert problems == []
    assert not result.skipped
    return result.testsRun


def test_numbas_emm_plugin_tests_pass(fake):
    assert _run_numba_tests("test_emm_plugins.py") >= 6


def test_numbas_deallocation_tests_pass(fake):
    import numba_cuda.testing

    if not hasattr(numba_cuda.testing, "skip_if_external_memmgr"):
        pytest.skip("numba_cuda.testing has no skip_if_external_memmgr yet (the conformance "
                    "work adds the helpers Numba's suite imports)")
    assert _run_numba_tests("test_deallocations.py") >= 14

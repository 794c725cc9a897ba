"""numba.cuda.testing: the helpers the peers' suites import from it."""

import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest

from numba_cuda import testing


def _outcome(case_cls, name):
    result = unittest.TestResult()
    case_cls(name).run(result)
    return result


def test_everything_the_peer_suites_import_is_there():
    # the union of the names Numba 0.68's and NVIDIA 0.30.4's suites import from numba.cuda.testing
    names = """CUDATestCase ContextResettingTestCase ForeignArray SerialMixin cc_X_or_above
        ensure_supported_ccs_initialized skip_if_cuda_includes_missing skip_if_cudadevrt_missing
        skip_if_curand_kernel_missing skip_if_external_memmgr skip_if_mvc_enabled
        skip_if_mvc_libraries_unavailable skip_if_nvjitlink_missing skip_on_arm skip_on_cudasim
        skip_on_nvjitlink_13_1_sm_120 skip_on_standalone_numba_cuda skip_on_wsl2
        skip_under_cuda_memcheck skip_unless_cc_53 skip_unless_cc_60 skip_unless_cc_75
        skip_unless_cc_90 skip_unless_conda_cudatoolkit skip_unless_cudasim skip_with_cuda_python
        skip_with_nvdisasm skip_without_nvdisasm unittest xfail_unless_cudasim""".split()
    missing = [n for n in names if not hasattr(testing, n) and n != "test_data_dir"]
    assert not missing


def test_cuda_test_case_is_numbas_test_case():
    from numba.tests.support import SerialMixin, TestCase

    assert issubclass(testing.CUDATestCase, TestCase)
    assert issubclass(testing.CUDATestCase, SerialMixin)
    assert testing.SerialMixin is SerialMixin

    class T(testing.CUDATestCase):
        def test_precise_equal_fails(self):
            self.assertPreciseEqual(np.float32(1.0), np.float64(1.0))

        def test_precise_equal_passes(self):
            self.assertPreciseEqual(np.arange(3.0), np.arange(3.0))

    assert len(_outcome(T, "test_precise_equal_fails").failures) == 1
    assert _outcome(T, "test_precise_equal_passes").wasSuccessful()


def test_warning_config_is_off_during_a_test_and_restored():
    from numba.core import config

    seen = {}

    class T(testing.CUDATestCase):
        def test_it(self):
            seen["low"] = config.CUDA_LOW_OCCUPANCY_WARNINGS
            seen["copy"] = config.CUDA_WARN_ON_IMPLICIT_COPY

    before = (config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY)
    assert _outcome(T, "test_it").wasSuccessful()
    assert seen == {"low": 0, "copy": 0}
    assert (config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY) == before


def test_set_up_and_tear_down_called_unbound_from_another_test_case():
    # NVIDIA's cache tests derive from a cache-test base and call CUDATestCase.setUp(self) /
    # tearDown(self) explicitly
    from numba.core import config

    seen = {}

    class Base(unittest.TestCase):
        pass

    class T(Base):
        def setUp(self):
            testing.CUDATestCase.setUp(self)

        def tearDown(self):
            testing.CUDATestCase.tearDown(self)

        def test_it(self):
            seen["low"] = config.CUDA_LOW_OCCUPANCY_WARNINGS

    before = config.CUDA_LOW_OCCUPANCY_WARNINGS
    assert _outcome(T, "test_it").wasSuccessful()
    assert seen == {"low": 0}
    assert config.CUDA_LOW_OCCUPANCY_WARNINGS == before


def test_skip_decorators_follow_the_simulator_switch(monkeypatch):
    import numba_cuda

    monkeypatch.setattr(numba_cuda, "USE_SIMULATOR", True)

    class T(unittest.TestCase):
        @testing.skip_on_cudasim("not in the simulator")
        def test_a(self):
            pass

        @testing.skip_unless_cudasim("only in the simulator")
        def test_b(self):
            pass

        @testing.xfail_unless_cudasim
        def test_c(self):
            pass

        @testing.skip_unless_cc_90
        def test_d(self):
            pass

    assert len(_outcome(T, "test_a").skipped) == 1
    assert _outcome(T, "test_b").wasSuccessful() and not _outcome(T, "test_b").skipped
    assert _outcome(T, "test_c").wasSuccessful()  # no expected-failure wrapper in the simulator
    assert not _outcome(T, "test_d").skipped  # the simulator has every capability
    assert testing.cc_X_or_above(9, 0) is True
    assert testing.cudadevrt_missing() is False


def test_without_a_gpu_cc_decorators_skip_instead_of_raising(monkeypatch):
    import numba_cuda

    monkeypatch.setattr(numba_cuda, "USE_SIMULATOR", False)
    monkeypatch.setattr(testing, "_gpu_reason", lambda: "no GPU here")
    assert testing.cc_X_or_above(5, 0) is False

    class T(unittest.TestCase):
        @testing.skip_unless_cc_53
        def test_x(self):
            pass

        @testing.xfail_unless_cudasim
        def test_y(self):
            raise AssertionError("fails on the real target")

    assert _outcome(T, "test_x").skipped[0][1] == "requires cc >= 5.3"
    assert len(_outcome(T, "test_y").expectedFailures) == 1


def test_environment_driven_skips(monkeypatch):
    monkeypatch.setenv("NUMBA_CUDA_MEMORY_MANAGER", "rmm.allocators.numba")
    monkeypatch.setenv("CUDA_MEMCHECK", "1")

    class T(unittest.TestCase):
        @testing.skip_if_external_memmgr("an EMM plugin is in use")
        def test_emm(self):
            pass

        @testing.skip_under_cuda_memcheck("under memcheck")
        def test_memcheck(self):
            pass

    assert _outcome(T, "test_emm").skipped
    assert _outcome(T, "test_memcheck").skipped
    monkeypatch.setenv("NUMBA_CUDA_MEMORY_MANAGER", "default")

    class U(unittest.TestCase):
        @testing.skip_if_external_memmgr("an EMM plugin is in use")
        def test_emm(self):
            pass

    assert not _outcome(U, "test_emm").skipped


def test_foreign_array_hides_everything_but_the_interface():
    class Dev:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f8", "data": (0, False),
                                    "version": 3}

    f = testing.ForeignArray(Dev())
    assert f.__cuda_array_interface__ is Dev.__cuda_array_interface__
    assert not hasattr(f, "copy_to_host")


def test_test_data_dir_is_the_imported_suites_data_folder(tmp_path):
    suite = tmp_path / "suite"
    (suite / "data").mkdir(parents=True)
    (suite / "__init__.py").write_text(
        "from numba.cuda.testing import test_data_dir\nDATA = test_data_dir\n")
    code = textwrap.dedent(f"""
        import importlib.util, sys
        import numba_cuda.testing as t
        try:
            t.test_data_dir
        except AttributeError as exc:
            print("no suite:", "scripts/conformance" in str(exc))
        spec = importlib.util.spec_from_file_location(
            "numba.cuda.tests", {str(suite / '__init__.py')!r},
            submodule_search_locations=[{str(suite)!r}])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["numba.cuda.tests"] = mod
        spec.loader.exec_module(mod)
        print(mod.DATA)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["no suite: True", str(suite / "data")]


def test_helpers_touch_no_gpu_at_import():
    code = ("import numba_cuda.testing, sys; "
            "print(any(m.startswith('numba_cuda.runtime') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


@pytest.mark.parametrize("flag", ["0", "1"])
def test_context_resetting_case_runs_in_both_modes(flag):
    code = textwrap.dedent("""
        import unittest
        from numba.cuda.testing import ContextResettingTestCase
        from numba import cuda

        class T(ContextResettingTestCase):
            def test_it(self):
                cuda.to_device([1, 2, 3])  # needs a context (the simulator's, or none on CPU)

        r = unittest.TestResult()
        T("test_it").run(r)
        print(len(r.errors) + len(r.failures), cuda.gpus.current is None if r.wasSuccessful() else "")
    """)
    env = {"NUMBA_ENABLE_CUDASIM": flag}
    import os

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    if flag == "1":
        # ran, and the context was reset afterwards
        assert proc.stdout.split() == ["0", "True"]


def test_skip_if_lto_never_skips_without_lto_by_default():
    class T(testing.CUDATestCase):
        def test_it(self):
            self.skip_if_lto("exceptions are not supported with LTO")

    result = _outcome(T, "test_it")
    assert result.wasSuccessful() and not result.skipped

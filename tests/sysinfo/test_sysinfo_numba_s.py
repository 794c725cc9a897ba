"""Numba's own ``numba -s`` runs without errors and reports this CUDA target."""

import os
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_numba_s_reports_this_target():
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-m", "numba", "-s"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = {ln.split(":", 1)[0].strip(): ln.split(":", 1)[1].strip()
             for ln in proc.stdout.splitlines() if ":" in ln}
    assert lines["CUDA Target Implementation"] == "numba-cuda"
    assert "Probing CUDA failed" not in proc.stdout


def test_compat_modules_answer_what_numba_s_asks():
    from numba.cuda import cudadrv
    from numba.cuda.cudadrv.driver import USE_NV_BINDING, driver
    from numba.cuda.cudadrv.runtime import runtime

    assert USE_NV_BINDING is True
    assert callable(driver.get_version) and callable(runtime.get_version)
    assert callable(cudadrv.libs.test)
    major, minor = runtime.get_version()  # cudart from the chosen toolkit, no GPU needed
    assert major in (12, 13) and minor >= 0


def test_libs_test_prints_each_component(capsys):
    from numba.cuda.cudadrv import libs

    ok = libs.test()
    out = capsys.readouterr().out
    for name in ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink"):
        assert f"Finding {name}" in out
    assert ok is True  # the test venvs hold every required component


def test_libs_test_does_not_fail_on_a_missing_optional_component(capsys, monkeypatch):
    from numba.cuda.cudadrv import libs

    from numba_cuda import toolkit
    from numba_cuda.toolkit.model import Component

    real = toolkit.get_toolkit()
    missing = Component("nvdisasm", error="nvdisasm: not installed (test)")
    monkeypatch.setitem(real.components, "nvdisasm", missing)
    assert libs.test() is True
    assert "(optional) ERROR: nvdisasm: not installed (test)" in capsys.readouterr().out


def test_numba_sysinfo_reports_driver_runtime_and_libraries_with_a_driver(monkeypatch):
    """What ``numba -s`` prints on a GPU machine, here on the fake driver: no ``?``/``None``."""
    from numba.misc import numba_sysinfo as ns

    from tests.support.fake_driver import FakeDriver

    FakeDriver(ndevices=1).install(monkeypatch)
    info = ns.get_sysinfo()
    assert info[ns._cu_target_impl] == "numba-cuda"
    assert info[ns._cu_dev_init] is True
    major, minor = info[ns._cu_drv_ver].split(".")
    assert int(major) in (12, 13)
    assert info[ns._cu_rt_ver].split(".")[0] in ("12", "13")
    assert "Found 1 CUDA devices" in info[ns._cu_detect_out]
    libs = info[ns._cu_lib_test]
    assert libs.startswith("Toolkit: CUDA ")
    for name in ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink"):
        assert f"Finding {name} from " in libs
    # only optional components (nvdisasm: no CUDA 12 wheel) may be missing
    assert all("(optional)" in line for line in libs.splitlines() if "ERROR" in line), libs
    assert info[ns._cu_nvidia_bindings_used] is True


@pytest.mark.slow
def test_numba_s_under_the_simulator_probes_without_errors():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-m", "numba", "-s"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Probing CUDA failed" not in proc.stdout, proc.stdout[-3000:]
    assert "CUDA Target Implementation" in proc.stdout and "numba-cuda (simulator)" in proc.stdout
    libs = proc.stdout.split("CUDA Libraries Test Output:", 1)[1].split("__", 1)[0]
    assert "simulator" in libs and "None" not in libs


def test_simulator_cudadrv_submodules_resolve_as_attributes():
    import importlib

    sim = importlib.import_module("numba_cuda.simulator.cudadrv")
    for name in ("libs", "driver", "runtime", "devices", "error", "nvvm", "devicearray"):
        # (the modules live in the compat yard; numba_cuda.simulator.cudadrv is its row)
        assert getattr(sim, name).__name__ == f"numba_cuda.compat.simulator.cudadrv.{name}"
        assert getattr(sim, name) is importlib.import_module(f"numba_cuda.simulator.cudadrv.{name}")
    assert callable(sim.libs.test)

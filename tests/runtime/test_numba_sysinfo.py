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
    import dataclasses

    from numba.cuda.cudadrv import libs

    from numba_cuda import toolkit

    real = toolkit.get_toolkit()
    missing = dataclasses.replace(real.components["nvvm"], name="nvdisasm", path=None,
                                  source=None, error="nvdisasm: not installed (test)")
    monkeypatch.setitem(real.components, "nvdisasm", missing)
    assert libs.test() is True
    assert "(optional) ERROR: nvdisasm: not installed (test)" in capsys.readouterr().out

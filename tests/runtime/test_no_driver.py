"""Behaviour without a usable driver: import works, is_available() is False, the first real
use raises CudaSupportError with a clear message (never a binding exception).

NUMBA_DISABLE_CUDA=1 makes any machine look driverless, so the subprocess tests run
everywhere; the "no NVIDIA driver found" wording is checked only where libcuda is absent.
"""

import json
import os
import subprocess
import sys

import pytest

from numba_cuda.runtime.probe import probe_driver

NO_LIBCUDA = probe_driver()["version"] is None and "no NVIDIA driver found" in (
    probe_driver()["error"] or "")

SCRIPT = r"""
import json, sys
import numpy as np
from numba import cuda
out = {"available": cuda.is_available()}
def first_use(name, fn):
    try:
        fn()
        out[name] = None
    except Exception as exc:
        out[name] = [type(exc).__module__ + "." + type(exc).__name__, str(exc)]
first_use("to_device", lambda: cuda.to_device(np.arange(3)))
first_use("device_array", lambda: cuda.device_array(3))
first_use("gpus_len", lambda: len(cuda.gpus))
first_use("gpus_current", lambda: cuda.gpus.current)
first_use("list_devices", lambda: cuda.list_devices())
first_use("current_context", lambda: cuda.current_context())
first_use("stream", lambda: cuda.stream())
first_use("event", lambda: cuda.event())
first_use("synchronize", lambda: cuda.synchronize())
first_use("select_device", lambda: cuda.select_device(0))
out["detect"] = cuda.detect()
from numba_cuda.runtime.probe import probe_driver, probe_devices
out["probe_driver"] = probe_driver()
out["probe_devices"] = probe_devices()
print("JSON" + json.dumps(out))
"""


def run_script(extra_env):
    env = dict(os.environ, **extra_env)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON")][-1]
    printed = proc.stdout.replace(line, "")
    return json.loads(line[4:]), printed, proc.stderr


@pytest.mark.parametrize("env", [{"NUMBA_DISABLE_CUDA": "1"}] + ([{}] if NO_LIBCUDA else []),
                         ids=lambda e: "disabled" if e else "no-libcuda")
def test_first_use_raises_cuda_support_error(env):
    out, printed, stderr = run_script(env)
    assert out["available"] is False
    expected = "CUDA is disabled" if env else "no NVIDIA driver found"
    for name in ("to_device", "device_array", "gpus_len", "gpus_current", "list_devices", "current_context",
                 "stream", "event", "synchronize", "select_device"):
        cls, message = out[name]
        assert cls == "numba_cuda.errors.CudaSupportError", (name, cls, message)
        assert message.startswith(expected), (name, message)
    assert out["detect"] is False
    assert "CUDA is not available" in printed and expected in printed
    assert out["probe_driver"]["version"] is None
    assert out["probe_driver"]["error"].startswith(expected)
    assert out["probe_devices"] == []
    assert "Traceback" not in stderr


@pytest.mark.skipif(not NO_LIBCUDA, reason="libcuda is installed here")
def test_no_driver_message_names_the_library_and_the_fix():
    err = probe_driver()["error"]
    assert "libcuda.so.1 could not be loaded" in err or "nvcuda.dll could not be loaded" in err
    assert "NUMBA_ENABLE_CUDASIM=1" in err and "Install the NVIDIA display driver" in err


def test_import_touches_no_driver():
    code = ("import sys; from numba import cuda; import numba_cuda.runtime.api; "
            "print('cuda.bindings.driver' in sys.modules, cuda.is_available.__module__)")
    env = dict(os.environ, NUMBA_DISABLE_CUDA="1")
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded, module = proc.stdout.split()
    assert loaded == "False"
    assert module == "numba_cuda.runtime.api"


def test_probes_never_raise_and_have_the_documented_shape():
    drv = probe_driver()
    assert set(drv) == {"version", "error"}
    assert (drv["version"] is None) != (drv["error"] is None)
    from numba_cuda.runtime.probe import probe_devices

    for dev in probe_devices():
        assert {"id", "name", "compute_capability", "uuid", "total_memory", "supported"} <= set(dev)


def test_probe_helpers():
    from numba_cuda.runtime.probe import format_driver_version, format_uuid, is_supported_cc

    assert format_driver_version(13000) == "13.0"
    assert format_driver_version(12080) == "12.8"
    assert format_uuid(bytes(range(16))) == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"
    assert is_supported_cc((7, 5), 13) and not is_supported_cc((7, 0), 13)
    assert is_supported_cc((5, 0), 12) and not is_supported_cc((3, 7), 12)

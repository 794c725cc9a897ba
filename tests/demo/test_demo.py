"""``numba-cuda demo``: the README's first command ends here."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import gpu_unavailable_reason  # noqa: E402


def run_demo(**env_extra):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "numba_cuda", "demo"], capture_output=True,
                          text=True, env=env, timeout=600)


@pytest.mark.skipif(gpu_unavailable_reason() is None, reason="a GPU is present: the demo runs there")
def test_demo_without_gpu_compiles_ptx_then_runs_in_the_simulator():
    proc = run_demo()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "No GPU found:" in out
    assert "compiled to PTX by libNVVM without a GPU: .version" in out
    assert "Running on: NUMBA_ENABLE_CUDASIM=1" in out
    assert "result: OK" in out
    assert "Traceback" not in proc.stderr


def test_demo_in_the_simulator_directly():
    proc = run_demo(NUMBA_ENABLE_CUDASIM="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "simulator" in proc.stdout and "result: OK" in proc.stdout


@pytest.mark.gpu
def test_demo_on_the_gpu():
    proc = run_demo()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Running on: GPU" in proc.stdout and "result: OK" in proc.stdout

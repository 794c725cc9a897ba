"""``scripts/run-tests`` runs every job on ``NUMBA_CUDA_TEST_WORKERS`` pytest-xdist workers and
refuses a value that is not a number before it creates or installs anything."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "run-tests"


def test_bad_worker_count_is_refused_before_any_venv_is_touched():
    env = dict(os.environ, NUMBA_CUDA_TEST_WORKERS="two", NUMBA_CUDA_FRESH_VENVS="0")
    proc = subprocess.run(["bash", str(SCRIPT), "13"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "NUMBA_CUDA_TEST_WORKERS must be a number of workers" in proc.stderr
    assert "'two'" in proc.stderr
    assert "== installing" not in proc.stdout


def test_every_pytest_run_goes_through_the_worker_option():
    text = SCRIPT.read_text()
    # one place runs pytest, and it passes the workers; no job adds its own -n
    assert text.count("-m pytest") == 1
    assert '-m pytest -p no:cacheprovider "${xdist[@]}"' in text
    assert " -n 2 " not in text

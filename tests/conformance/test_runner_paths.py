"""``scripts/conformance`` takes ``--python`` and ``--workdir`` relative to the caller's
directory: its child processes run in the work directory, where a relative path would name
nothing (a relative ``--python`` used to end in a ``FileNotFoundError`` traceback once the
first suite started)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.script_modules import load_script

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "scripts" / "conformance"


def _runner_module():
    return load_script("scripts/conformance", "conformance_runner")


def test_relative_python_becomes_absolute_without_following_the_venv_symlink(tmp_path,
                                                                              monkeypatch):
    runner = _runner_module()
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    link = venv_bin / "python"
    link.symlink_to(sys.executable)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    python = runner.interpreter(os.path.join("..", "venv", "bin", "python"))
    assert python.is_absolute()
    # the venv's own path, not the base interpreter it links to (that would drop the venv)
    assert python == venv_bin / "python"
    assert python.is_symlink()


def test_missing_python_is_refused_by_name(tmp_path, monkeypatch):
    runner = _runner_module()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        runner.interpreter("no-such-venv/bin/python")
    assert "--python: no-such-venv/bin/python is not an executable file" in str(info.value)
    assert str(tmp_path / "no-such-venv" / "bin" / "python") in str(info.value)


def test_missing_python_ends_the_run_with_a_message_before_anything_is_made(tmp_path):
    work = tmp_path / "work"
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--python", "missing/bin/python", "--workdir", "work"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "--python: missing/bin/python is not an executable file" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not work.exists()


def test_default_is_the_repository_venv_or_this_interpreter():
    runner = _runner_module()
    default = REPO / "venvs" / "cu13" / "bin" / "python"
    assert runner.interpreter(None) == (default if default.exists() else Path(sys.executable))

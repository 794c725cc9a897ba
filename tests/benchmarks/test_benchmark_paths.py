"""The benchmarks take interpreters and venvs relative to the caller's directory (``--ours
venvs/cu13/bin/python``): the processes they measure run in a temporary directory, where a
relative path would name nothing.  Each is made absolute when parsed, without following
symlinks (a venv's ``python`` links to its base interpreter, which has none of the venv's
packages)."""

import os
import pathlib

import pytest

from tests.support.script_modules import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    return load_script(f"benchmarks/{name}.py", f"bench_{name}")


class Seen(Exception):
    """Raised by a stand-in for the first function a benchmark calls with the paths."""


def _record(*paths):
    raise Seen(*paths)


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to("/nonexistent/base/python3")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return tmp_path


def test_compile_benchmark_paths_are_absolute(elsewhere, monkeypatch):
    bench = _load("compile")
    monkeypatch.setattr(bench, "ensure_reference", lambda venv, base: _record(venv))
    with pytest.raises(Seen) as seen:
        bench.main(["--ref-venv", "../venv", "--ours", "../venv/bin/python"])
    assert seen.value.args[0] == elsewhere / "venv"

    monkeypatch.setattr(bench, "ensure_reference", lambda venv, base: "ref-python")
    monkeypatch.setattr(bench, "environment_summary", _record)
    with pytest.raises(Seen) as seen:
        bench.main(["--ref-venv", "../venv", "--ours", "../venv/bin/python"])
    # the venv's python itself, not the interpreter it links to
    assert seen.value.args[0] == str(elsewhere / "venv" / "bin" / "python")


def test_cache_benchmark_python_is_absolute(elsewhere, monkeypatch):
    bench = _load("cache")
    monkeypatch.setattr(bench, "measure", lambda python, repeat: _record(python))
    with pytest.raises(Seen) as seen:
        bench.main(["--python", "../venv/bin/python"])
    assert seen.value.args[0] == str(elsewhere / "venv" / "bin" / "python")


def test_simulator_benchmark_paths_are_absolute(elsewhere, monkeypatch):
    bench = _load("simulator")
    monkeypatch.setattr(bench, "ensure_ref_venv", lambda venv: _record(venv))
    with pytest.raises(Seen) as seen:
        bench.main(["--ref-venv", "../venv", "--ours", "../venv/bin/python"])
    assert seen.value.args[0] == pathlib.Path(elsewhere / "venv")

    monkeypatch.setattr(bench, "ensure_ref_venv", lambda venv: "ref-python")
    monkeypatch.setattr(bench, "which_numba_cuda", _record)
    with pytest.raises(Seen) as seen:
        bench.main(["--ref-venv", "../venv", "--ours", "../venv/bin/python"])
    assert seen.value.args[0] == str(elsewhere / "venv" / "bin" / "python")
    assert os.path.islink(seen.value.args[0])


def test_reference_folder_reaches_the_child_as_an_absolute_path(elsewhere, monkeypatch):
    import subprocess

    implementations = _load("implementations")
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(kwargs)
        return subprocess.CompletedProcess(cmd, 0, stdout='RESULT{"ok": 1}\n', stderr="")

    monkeypatch.setattr(implementations.subprocess, "run", fake_run)
    got = implementations.run_child(str(ROOT / "benchmarks" / "launch.py"), "reference", "../venv")
    assert got == {"ok": 1}
    (kwargs,) = calls
    assert kwargs["cwd"] == "/"
    first = kwargs["env"]["PYTHONPATH"].split(os.pathsep)[0]
    assert first == str(elsewhere / "venv")

"""recipe/tests/check_install.py (run by the conda recipe and the wheel test) catches what it must."""

import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "recipe" / "tests" / "check_install.py"


@pytest.fixture(scope="module")
def check():
    spec = importlib.util.spec_from_file_location("_check_install", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _info(major=13, source="conda", **overrides):
    components = {name: {"path": f"/env/{name}", "source": source, "version": f"{major}.0", "error": None}
                  for name in ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas")}
    for name, comp in overrides.items():
        components[name].update(comp)
    return {"target": "numba-cuda", "redirected": True, "toolkit": {"cuda_major": major, "components": components}}


def test_a_complete_toolkit_passes(check):
    assert check.check_sysinfo(_info(), 13, "conda") == []


def test_wrong_major_source_missing_component_and_target_are_reported(check):
    assert check.check_sysinfo(_info(major=12), 13, "conda") == ["toolkit CUDA major is 12, expected 13"]
    (problem,) = check.check_sysinfo(_info(nvrtc={"source": "pip"}), 13, "conda")
    assert problem.startswith("nvrtc: found at /env/nvrtc from source 'pip'")
    (problem,) = check.check_sysinfo(_info(ptxas={"path": None, "error": "ptxas not found"}), 13, "conda")
    assert problem == "ptxas: not found (ptxas not found)"
    info = _info()
    info["target"], info["redirected"] = "numba-builtin", False
    assert len(check.check_sysinfo(info, 13, "conda")) == 2


def test_conda_major_comes_from_cuda_version_record(check, tmp_path, monkeypatch):
    (tmp_path / "conda-meta").mkdir()
    (tmp_path / "conda-meta" / "cuda-version-12.9-h5_3.json").write_text('{"name": "cuda-version", "version": "12.9"}')
    monkeypatch.setattr(check.sys, "prefix", str(tmp_path))
    assert check.conda_cuda_major() == 12


def test_files_the_script_names_exist():
    """The docstring names who runs it; every repository file it names must exist."""
    root = SCRIPT.parents[2]
    named = set(re.findall(r"\b(?:tests|recipe|scripts)/[\w/.-]+\.py\b", SCRIPT.read_text()))
    assert named
    for path in named:
        assert (root / path).is_file(), f"check_install.py names {path}, which does not exist"

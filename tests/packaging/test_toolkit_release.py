"""Each pip extra brings ONE CUDA toolkit release, and discovery reports that release.

``numba-cuda[cu12]`` / ``[cu13]`` take the toolkit through NVIDIA's
``cuda-toolkit[...]`` metapackage, which pins every component wheel to one
release.  Two checks:

* in this venv (scripts/run-tests installs ``.[cuNN,test]``, the normal and
  the lowest-versions venvs alike), the installed component wheels are of one
  release -- the same major.minor as the installed ``cuda-toolkit`` -- and
  ``numba_cuda.toolkit`` reports every component with that version;
* for both extras, what pip *would* install (``pip install --dry-run
  --report``, resolved against the index, marked slow) is one release.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _minor(v):
    return ".".join(str(v).split(".")[:2])


def _this_major():
    major = os.environ.get("NUMBA_CUDA_TEST_MAJOR")
    if major is None:
        pytest.skip("NUMBA_CUDA_TEST_MAJOR is not set: this environment was not made by scripts/run-tests "
                    "from a cuNN extra (a conda environment, say), so there is no cuda-toolkit wheel to check")
    return int(major)


def test_installed_component_wheels_are_one_release(deps):
    major = _this_major()
    toolkit = version("cuda-toolkit")
    assert toolkit.split(".")[0] == str(major)
    versions = {}
    for extra, wheel in deps.TOOLKIT_WHEELS[major].items():
        try:
            versions[wheel] = version(wheel)
        except PackageNotFoundError:
            pytest.fail(f"{wheel} (cuda-toolkit[{extra}]) is not installed")
    assert {_minor(v) for v in versions.values()} == {_minor(toolkit)}, (toolkit, versions)


def test_discovery_reports_the_release(deps):
    major = _this_major()
    from numba_cuda.toolkit import get_toolkit

    tk = get_toolkit(refresh=True)
    assert tk.cuda_major == major
    release = _minor(version("cuda-toolkit"))
    for name in ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include"):
        comp = tk.components[name]
        assert comp.source == "pip", (name, comp.source, comp.path)
        assert comp.version is not None and _minor(comp.version) == release, (name, comp.version, release)


@pytest.mark.slow
@pytest.mark.parametrize("major", [12, 13])
def test_extra_resolves_to_one_release(deps, major, tmp_path):
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), f"{ROOT}[cu{major}]"],
        capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    installed = {item["metadata"]["name"].lower(): item["metadata"]["version"]
                 for item in json.loads(report.read_text())["install"]}
    toolkit = installed["cuda-toolkit"]
    assert toolkit.split(".")[0] == str(major)
    wheels = deps.TOOLKIT_WHEELS[major]
    assert {_minor(installed[w]) for w in wheels.values()} == {_minor(toolkit)}, installed
    # Nothing of the other major came along.
    other = 13 if major == 12 else 12
    assert not set(installed) & (set(deps.TOOLKIT_WHEELS[other].values()) - set(wheels.values()))
    assert installed["cuda-bindings"].split(".")[0] == str(major)

"""The lowest-versions job: scripts/floors.py pins every declared floor, and CI runs the job."""

import re
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def floors(deps):
    return deps.load_script("floors")


@pytest.mark.parametrize("major", [12, 13])
def test_every_run_extra_and_build_requirement_is_pinned_to_its_floor(deps, floors, major):
    pins = floors.floors(major)
    names = {re.sub(r"[-_.]+", "-", r.name).lower()
             for group in ("run", f"cu{major}", "build-system") for r in deps.requirements(group)}
    assert names <= set(pins), names - set(pins)
    for group in ("run", f"cu{major}", "build-system"):
        for req in deps.requirements(group):
            floor = pins[re.sub(r"[-_.]+", "-", req.name).lower()]
            assert req.specifier.contains(str(floor)), (req, floor)  # the floor is allowed ...
    # ... and is the tightest lower bound: the cuNN extra's cuda-bindings, not the base range.
    assert str(pins["cuda-bindings"]) == ("12.9.3" if major == 12 else "13.0.2")
    assert str(pins["cuda-toolkit"]).split(".")[0] == str(major)
    assert {"numba", "llvmlite", "numpy", "hatchling", "py-rattler-build"} <= set(pins)


def test_a_requirement_without_a_floor_is_refused(floors, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[build-system]\nrequires = ["hatchling>=1.27"]\n'
        '[project]\ndependencies = ["numba"]\n'
        '[project.optional-dependencies]\ncu13 = []\ntest = []\n')
    with pytest.raises(SystemExit, match="numba declares no lower bound"):
        floors.floors(13, pyproject)


def test_floor_of_a_star_pin_is_its_first_release(floors):
    from packaging.requirements import Requirement

    assert str(floors.floor(Requirement("cuda-toolkit==13.*"))) == "13"
    assert str(floors.floor(Requirement("cuda-toolkit>=12.8,==12.*"))) == "12.8"


def test_check_tells_a_floor_venv_from_a_newest_one(deps):
    """--check passes in the lowest-versions venvs (NUMBA_CUDA_LOWEST=1) and fails, naming what
    differs, in the normal ones, where dependencies are at their newest."""
    import os

    major = os.environ.get("NUMBA_CUDA_TEST_MAJOR", "13")
    proc = subprocess.run([sys.executable, str(deps.ROOT / "scripts" / "floors.py"), major, "--check"],
                          capture_output=True, text=True)
    if os.environ.get("NUMBA_CUDA_LOWEST") == "1":
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 1
        assert "not at the declared floors" in proc.stderr


def test_ci_runs_the_lowest_versions_job(deps):
    ci = (deps.ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec bash scripts/run-tests\s*$", ci, re.M), "CI runs scripts/run-tests without arguments"
    script = (deps.ROOT / "scripts" / "run-tests").read_text()
    assert re.search(r"^lowest=1$", script, re.M), "the lowest-versions job runs by default"
    assert "scripts/floors.py \"$major\" --check" in script
    assert "--no-build-isolation" in script  # the hatchling floor is the backend actually used


def test_ci_runs_the_newest_python_job(deps):
    """Besides the jobs on the oldest Python (PYTHON), CI runs the interpreter-dependent areas on
    the newest one; a machine without it reports the job as not run, in the summary."""
    script = (deps.ROOT / "scripts" / "run-tests").read_text()
    assert re.search(r"^newest=1$", script, re.M), "the newest-Python job runs by default"
    assert re.search(r'^NEWEST_PYTHON=\$\{NEWEST_PYTHON:-python3\.1[3-9]\}$', script, re.M)
    for area in ("tests/compiler", "tests/lang", "tests/simulator", "tests/redirector"):
        assert area in script.split("NEWEST_TESTS=(", 1)[1].split(")", 1)[0], area
    assert "newest Python: not run" in script

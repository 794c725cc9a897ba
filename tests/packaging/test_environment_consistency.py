"""environment-cuda12.yml / environment-cuda13.yml (conda-forge dev envs) list exactly pyproject.toml's dependencies.

Run, test and docs dependencies plus the build backend, under their conda-forge
names (PyPI-only packages in the pip section), pinned to the file's CUDA major
with the conda recipe's pins.
"""

import re

import pytest
from packaging.specifiers import SpecifierSet


def _environment(deps, major):
    env = deps.load_yaml(deps.ENVIRONMENTS[major])
    conda, pip = {}, {}
    for item in env["dependencies"]:
        if isinstance(item, dict):
            for line in item["pip"]:
                if line.startswith("-e"):
                    continue
                name, version = deps.split_conda_spec(line)
                pip[name] = {str(s) for s in SpecifierSet(version)}
        else:
            name, version = deps.split_conda_spec(item)
            conda[name] = deps.conda_clauses(version)
    return env, conda, pip


def test_one_file_per_major(deps):
    assert sorted(deps.ENVIRONMENTS) == list(deps.MAJORS)
    assert not (deps.ROOT / "environment.yml").exists(), "one environment file per CUDA major"
    names = {deps.load_yaml(path)["name"] for path in deps.ENVIRONMENTS.values()}
    assert names == {f"numba-cuda-cu{m}" for m in deps.MAJORS}


@pytest.mark.parametrize("major", [12, 13])
def test_channels_are_conda_forge_only(deps, major):
    env, _, _ = _environment(deps, major)
    assert env["channels"][0] == "conda-forge"
    assert set(env["channels"]) <= {"conda-forge", "nodefaults"}


@pytest.mark.parametrize("major", [12, 13])
def test_same_dependencies_as_pyproject(deps, major):
    _, conda, pip = _environment(deps, major)
    expected = deps.expected_conda_deps(major, groups=("run", "test", "docs", "build-system"))
    expected_pip = {name: expected.pop(name) for name in list(expected) if name in deps.PIP_ONLY}
    expected["python"] = {f">={deps.python_min()}"}
    expected["pip"] = set()
    assert conda == expected
    assert pip == expected_pip


@pytest.mark.parametrize("major", [12, 13])
def test_cuda_pins_match_the_recipe(rendered, deps, major):
    _, conda, _ = _environment(deps, major)
    (v,) = [v for v in rendered["linux-64"] if v["variant"]["cuda_major_version"] == str(major)]
    run = {name: deps.conda_clauses(version) for name, version in map(deps.split_conda_spec, v["run"])}
    for name in ("cuda-version", "cuda-bindings", "cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"):
        assert conda[name] == run[name], name


def test_files_differ_only_in_the_marked_lines(deps):
    """The two files are the same but for the lines marked "CUDA major" (and the name/comments)."""
    def body(major):
        lines = deps.ENVIRONMENTS[major].read_text().splitlines()
        return [line for line in lines if not line.startswith("#") and "# CUDA major" not in line
                and not line.startswith("name:")]

    assert body(12) == body(13)


@pytest.mark.parametrize("major", [12, 13])
def test_installs_the_checkout_editable(deps, major):
    env, _, _ = _environment(deps, major)
    (pip_section,) = [item["pip"] for item in env["dependencies"] if isinstance(item, dict)]
    assert "-e ." in pip_section


@pytest.mark.parametrize("major", [12, 13])
def test_pip_names_map_to_real_conda_names(deps, major):
    """Guard the mapping itself: no PyPI-only spelling (nvidia-*, *-cu12, cuda-toolkit) in the conda section."""
    _, conda, _ = _environment(deps, major)
    for name in conda:
        assert not name.startswith("nvidia-") and not re.search(r"-cu1\d$", name), name
        assert name != "cuda-toolkit", "conda-forge's cuda-toolkit is the whole toolkit; use cuda-version + components"

"""environment.yml (conda-forge dev env) lists exactly pyproject.toml's dependencies.

Run, test and docs dependencies plus the build backend, under their conda-forge
names (PyPI-only packages in the pip section), pinned to the CUDA major of
environment.yml.
"""

import re

from packaging.specifiers import SpecifierSet


def _environment(deps):
    env = deps.load_yaml(deps.ENVIRONMENT)
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


def _env_major(conda):
    (lower,) = [c for c in conda["cuda-version"] if c.startswith(">=")]
    return int(lower[2:])


def test_channels_are_conda_forge_only(deps):
    env, _, _ = _environment(deps)
    assert env["channels"][0] == "conda-forge"
    assert set(env["channels"]) <= {"conda-forge", "nodefaults"}


def test_cuda_version_is_pinned_to_one_major(deps):
    _, conda, _ = _environment(deps)
    major = _env_major(conda)
    assert major in deps.MAJORS
    assert conda["cuda-version"] == {f">={major}", f"<{major + 1}"}


def test_same_dependencies_as_pyproject(deps):
    _, conda, pip = _environment(deps)
    major = _env_major(conda)
    expected = deps.expected_conda_deps(major, groups=("run", "test", "docs", "build-system"))
    expected_pip = {name: expected.pop(name) for name in list(expected) if name in deps.PIP_ONLY}
    expected["python"] = {f">={deps.python_min()}"}
    expected["pip"] = set()
    assert conda == expected
    assert pip == expected_pip


def test_installs_the_checkout_editable(deps):
    env, _, _ = _environment(deps)
    (pip_section,) = [item["pip"] for item in env["dependencies"] if isinstance(item, dict)]
    assert "-e ." in pip_section


def test_pip_names_map_to_real_conda_names(deps):
    """Guard the mapping itself: no PyPI-only spelling (nvidia-*, *-cu12) in the conda section."""
    _, conda, _ = _environment(deps)
    for name in conda:
        assert not name.startswith("nvidia-") and not re.search(r"-cu1\d$", name), name

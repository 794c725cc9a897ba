"""conda-lock and pixi inputs parse and agree with the recipe's per-major pins."""

import pytest
from packaging.specifiers import SpecifierSet


def _recipe_pins(rendered, deps, major):
    (v,) = [v for v in rendered["linux-64"] if v["variant"]["cuda_major_version"] == str(major)]
    run = {name: deps.conda_clauses(version) for name, version in map(deps.split_conda_spec, v["run"])}
    return v, run


# ---- conda-lock -------------------------------------------------------------

@pytest.mark.parametrize("major", [12, 13])
def test_conda_lock_overlay_pins_match_recipe(rendered, deps, major):
    overlay = deps.load_yaml(deps.LOCK / f"cuda{major}.yml")
    assert overlay["channels"] == deps.load_yaml(deps.ENVIRONMENT)["channels"]
    pins = {name: deps.conda_clauses(version) for name, version in map(deps.split_conda_spec, overlay["dependencies"])}
    _, run = _recipe_pins(rendered, deps, major)
    assert pins == {"cuda-version": run["cuda-version"], "cuda-bindings": run["cuda-bindings"]}


def test_conda_lock_overlay_overrides_every_major_pin_of_environment_yml(deps):
    """The overlay must re-pin every package that environment.yml pins to a CUDA major."""
    lines = deps.ENVIRONMENT.read_text().splitlines()
    marked = [line.strip()[2:] for line in lines if line.strip().startswith("- ") and "# CUDA major" in line]
    major_names = {deps.split_conda_spec(line)[0] for line in marked}
    assert major_names == {"cuda-version", "cuda-bindings"}, marked
    for major in deps.MAJORS:
        overlay = deps.load_yaml(deps.LOCK / f"cuda{major}.yml")
        assert {deps.split_conda_spec(d)[0] for d in overlay["dependencies"]} == major_names


def test_virtual_packages_let_both_majors_solve(rendered, deps):
    spec = deps.load_yaml(deps.LOCK / "virtual-packages.yml")
    subdirs = spec["subdirs"]
    assert set(subdirs) == set(deps.PLATFORMS)
    constraints = [c for v in rendered["linux-64"] for c in v["run_constraints"] if c.startswith("__cuda")]
    assert len(constraints) == 2
    for subdir, body in subdirs.items():
        packages = body["packages"]
        assert all(name.startswith("__") for name in packages), subdir
        cuda = str(packages["__cuda"])
        for constraint in constraints:
            _, version = deps.split_conda_spec(constraint)
            assert deps.version_satisfies(cuda, deps.conda_clauses(version)), (subdir, cuda, constraint)
        if subdir.startswith("linux"):
            assert "__glibc" in packages and "__linux" in packages and "__unix" in packages
        else:
            assert "__win" in packages


# ---- pixi --------------------------------------------------------------------

def test_pixi_environments_one_per_major(deps):
    pixi = deps.load_toml(deps.PIXI)
    envs = pixi["environments"]
    for major in deps.MAJORS:
        assert f"cu{major}" in envs[f"cu{major}"]["features"]
        assert f"cu{major - 1 if major == 13 else 13}" not in envs[f"cu{major}"]["features"]
    assert set(pixi["workspace"]["platforms"]) == set(deps.PLATFORMS)
    assert pixi["workspace"]["channels"] == ["conda-forge"]


@pytest.mark.parametrize("major", [12, 13])
def test_pixi_feature_matches_recipe(rendered, deps, major):
    pixi = deps.load_toml(deps.PIXI)
    feature = pixi["feature"][f"cu{major}"]
    assert feature["system-requirements"]["cuda"] == str(major)
    pins = {name: deps.conda_clauses(version) for name, version in feature["dependencies"].items()}
    _, run = _recipe_pins(rendered, deps, major)
    assert pins == {"cuda-version": run["cuda-version"], "cuda-bindings": run["cuda-bindings"]}


@pytest.mark.parametrize("major", [12, 13])
def test_pixi_environment_has_every_dependency(rendered, deps, major):
    """Base dependencies + cuNN + test + docs features == pyproject's, as in environment.yml."""
    pixi = deps.load_toml(deps.PIXI)
    features = pixi["environments"][f"cu{major}"]["features"]
    conda, pypi = {}, {}
    for table in [pixi] + [pixi["feature"][f] for f in features]:
        for name, version in table.get("dependencies", {}).items():
            conda[name] = deps.conda_clauses(version)
        for name, value in table.get("pypi-dependencies", {}).items():
            pypi[name] = value
    expected = deps.expected_conda_deps(major, groups=("run", "test", "docs", "build-system"))
    expected_pypi = {name for name in list(expected) if name in deps.PIP_ONLY}
    for name in expected_pypi:
        pypi_spec = pypi.get(name)
        assert pypi_spec is not None, name
        assert {str(s) for s in SpecifierSet(pypi_spec)} == expected.pop(name)
    expected["python"] = {f">={deps.python_min()}"}
    expected["pip"] = set()
    assert conda == expected
    assert pypi["numba-cuda"] == {"path": ".", "editable": True}

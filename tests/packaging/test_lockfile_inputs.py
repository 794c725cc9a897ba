"""conda-lock and pixi inputs parse and agree with the recipe's per-major pins."""

import pytest
from packaging.specifiers import SpecifierSet


def _recipe_pins(rendered, deps, major):
    (v,) = [v for v in rendered["linux-64"] if v["variant"]["cuda_major_version"] == str(major)]
    run = {name: deps.conda_clauses(version) for name, version in map(deps.split_conda_spec, v["run"])}
    return v, run


# ---- conda-lock -------------------------------------------------------------

def _lock_commands(deps, *args):
    import subprocess

    out = subprocess.run(["bash", str(deps.ROOT / "scripts" / "lock"), "--print", *args],
                         capture_output=True, text=True, check=True).stdout
    return [line[2:].split() for line in out.splitlines() if line.startswith("+ ")]


def test_lock_script_locks_each_environment_file_with_the_virtual_packages(deps):
    """`bash scripts/lock` is the one command: one conda-lock call per major, from the committed inputs."""
    commands = _lock_commands(deps, "conda-lock")
    assert len(commands) == len(deps.MAJORS)
    for major, cmd in zip(deps.MAJORS, commands):
        assert cmd[:2] == ["conda-lock", "lock"]
        args = dict(zip(cmd[2::2], cmd[3::2]))
        assert (deps.ROOT / args["-f"]) == deps.ENVIRONMENTS[major]
        assert (deps.ROOT / args["--virtual-package-spec"]) == deps.LOCK / "virtual-packages.yml"
        assert args["--lockfile"] == f"lock/conda-lock-cuda{major}.yml"
        platforms = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-p"]
        assert sorted(platforms) == sorted(deps.PLATFORMS)
    assert _lock_commands(deps, "pixi") == [["pixi", "lock"]]
    assert len(_lock_commands(deps)) == len(deps.MAJORS) + 1


@pytest.mark.parametrize("major", [12, 13])
def test_conda_lock_input_pins_match_recipe(rendered, deps, major):
    env = deps.load_yaml(deps.ENVIRONMENTS[major])
    pins = {name: deps.conda_clauses(version)
            for name, version in map(deps.split_conda_spec, [d for d in env["dependencies"] if isinstance(d, str)])}
    _, run = _recipe_pins(rendered, deps, major)
    assert pins["cuda-version"] == run["cuda-version"]
    assert pins["cuda-bindings"] == run["cuda-bindings"]


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
    """Base dependencies + cuNN + test + docs features == pyproject's, as in the environment files."""
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


def test_lockfiles_page_shows_the_pixi_feature_as_it_is(deps):
    """docs/install/lockfiles.rst quotes pixi.toml's cu12 feature: it must be the real one."""
    text = (deps.ROOT / "docs" / "install" / "lockfiles.rst").read_text()
    feature = deps.load_toml(deps.PIXI)["feature"]["cu12"]
    for name, spec in feature["dependencies"].items():
        assert f'{name} = "{spec}"' in text, name
    assert f'cuda = "{feature["system-requirements"]["cuda"]}"' in text


def test_lockfiles_page_and_readme_say_where_lockfiles_are_made(deps):
    for path in (deps.ROOT / "docs" / "install" / "lockfiles.rst", deps.LOCK / "README.md"):
        text = " ".join(path.read_text().split())
        assert "machine that reaches conda-forge" in text, path
        assert "bash scripts/lock" in text, path

"""recipe/recipe.yaml agrees with pyproject.toml and the package (one truth, checked)."""

import pytest


def _run(rendered, deps, major):
    (v,) = [v for v in rendered["linux-64"] if v["variant"]["cuda_major_version"] == str(major)]
    return {name: deps.conda_clauses(version) for name, version in map(deps.split_conda_spec, v["run"])}


def test_version_matches_the_package(rendered, deps):
    for v in rendered["linux-64"]:
        assert v["version"] == deps.package_version()


def test_python_min_matches_requires_python(deps):
    variants = deps.load_yaml(deps.VARIANTS)
    assert variants["python_min"] == [deps.python_min()]
    assert variants["cuda_major_version"] == [str(m) for m in deps.MAJORS]


@pytest.mark.parametrize("major", [12, 13])
def test_run_requirements_match_pyproject(rendered, deps, major):
    """Same packages, same lower bounds; the cuNN extra's toolkit wheels map onto conda packages."""
    expected = deps.expected_conda_deps(major)
    expected["python"] = {f">={deps.python_min()}"}
    assert _run(rendered, deps, major) == expected


@pytest.mark.parametrize("major", [12, 13])
def test_pip_toolkit_is_one_release_of_the_major(deps, major):
    """The cuNN extra takes the toolkit from cuda-toolkit[...] of that major only.

    The metapackage pins every component wheel to its own release, so the
    extra installs one toolkit release; the conda side pins cuda-version to
    the same range.
    """
    reqs = deps.requirements(f"cu{major}")
    assert not [r for r in reqs if r.name.lower().startswith("nvidia-")], \
        "component wheels float independently: require them through cuda-toolkit[...]"
    toolkit = deps.toolkit_requirement(major)
    # Every conda toolkit package the recipe needs has a component extra.
    assert {deps.TOOLKIT_EXTRA_TO_CONDA[e] for e in toolkit.extras} == {
        "cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"}
    assert set(toolkit.extras) == set(deps.TOOLKIT_WHEELS[major])
    for r in (toolkit, *[r for r in reqs if r.name == "cuda-bindings"]):
        assert not r.specifier.contains(f"{major + 1}.0"), r
        assert not r.specifier.contains(f"{major - 1}.9"), r
        assert r.specifier.contains(f"{major}.9.9"), r


def test_cuda12_floor_is_12_9_on_both_sides(rendered, deps):
    """pip's cu12 extra and the conda CUDA 12 variant start at the same toolkit release."""
    toolkit = deps.toolkit_requirement(12)
    assert not toolkit.specifier.contains("12.8.1") and toolkit.specifier.contains("12.9.0")
    run = _run(rendered, deps, 12)
    assert ">=12.9" in run["cuda-version"]
    assert not deps.version_satisfies("12.8", run["cuda-version"])


def test_entry_points_match_project_scripts(rendered, deps):
    scripts = deps.pyproject()["project"]["scripts"]
    expected = sorted(f"{name} = {target}" for name, target in scripts.items())
    recipe = rendered["linux-64"][0]["recipe"]
    assert sorted(recipe["build"]["python"]["entry_points"]) == expected


def test_build_backend_in_host(rendered, deps):
    host = dict(map(deps.split_conda_spec, rendered["linux-64"][0]["host"]))
    for req in deps.requirements("build-system"):
        assert deps.conda_clauses(host[deps.conda_name(req.name)]) == deps.pip_clauses(req)
    assert "pip" in host

"""The conda recipe renders offline to exactly one noarch variant per CUDA major.

py-rattler-build (the `test` extra) renders recipe/recipe.yaml against
conda_build_config.yaml for each platform conda-forge builds numba-cuda for;
no channel is contacted.
"""

import re

import pytest


def test_py_rattler_build_is_installed():
    # Part of the `test` extra: without it the render tests below cannot run.
    import rattler_build

    assert rattler_build.rattler_build_version()


@pytest.mark.parametrize("platform", ["linux-64", "linux-aarch64", "win-64"])
def test_two_variants_one_per_major(rendered, platform):
    variants = rendered[platform]
    assert len(variants) == 2, [v["build_string"] for v in variants]
    assert sorted(v["variant"]["cuda_major_version"] for v in variants) == ["12", "13"]
    for v in variants:
        assert v["name"] == "numba-cuda"
        assert v["noarch"] == "python"
        major = v["variant"]["cuda_major_version"]
        number = 100 if major == "13" else 0
        assert re.fullmatch(rf"cuda{major}_py_h[0-9a-f]{{7}}_{number}", v["build_string"]), v["build_string"]
    assert len({v["build_string"] for v in variants}) == 2


def test_noarch_renders_the_same_on_every_platform(rendered):
    def summary(variants):
        return sorted((v["build_string"], tuple(v["run"]), tuple(v["run_constraints"])) for v in variants)

    first = summary(rendered["linux-64"])
    for platform in ("linux-aarch64", "win-64"):
        assert summary(rendered[platform]) == first, platform


def _by_major(rendered):
    return {int(v["variant"]["cuda_major_version"]): v for v in rendered["linux-64"]}


@pytest.mark.parametrize("major", [12, 13])
def test_run_requirements_pinned_to_the_major(rendered, deps, major):
    v = _by_major(rendered)[major]
    run = dict(deps.split_conda_spec(spec) for spec in v["run"])
    assert run["cuda-version"] == (">=12.9,12.*" if major == 12 else ">=13.1,13.*")
    bindings = deps.conda_clauses(run["cuda-bindings"])
    assert f"<{major + 1}" in bindings
    (lower,) = [c for c in bindings if c.startswith(">=")]
    assert lower == f">={major}" or lower.startswith(f">={major}."), bindings
    for toolkit in ("cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"):
        assert run[toolkit] == "", f"{toolkit} must be unversioned (cuda-version pins it)"
    for name in ("python", "numba", "llvmlite", "numpy"):
        assert name in run
    # Declared but never imported by numba_cuda: dropped (docs/maintainers.rst).
    assert "cuda-core" not in run and "packaging" not in run
    assert run["python"] == f">={deps.python_min()}"
    assert v["run_constraints"] == [f"__cuda >={major}"]
    # The CUDA-versioned requirements admit only this major.
    for spec in v["run"]:
        name, version = deps.split_conda_spec(spec)
        if name in ("cuda-version", "cuda-bindings"):
            assert deps.version_satisfies(f"{major}.9.9", deps.conda_clauses(version)), spec
            assert not deps.version_satisfies(f"{major + 1}.0", deps.conda_clauses(version)), spec
            assert not deps.version_satisfies(f"{major - 1}.9", deps.conda_clauses(version)), spec


def test_host_python_is_python_min(rendered, deps):
    for v in rendered["linux-64"]:
        assert f"python {deps.python_min()}.*" in v["host"]


def test_recipe_tests_section(rendered, deps):
    recipe = rendered["linux-64"][0]["recipe"]
    tests = recipe["tests"]
    python_tests = [t["python"] for t in tests if "python" in t]
    assert python_tests and "numba_cuda" in python_tests[0]["imports"]
    scripts = [line for t in tests if "script" in t for line in t["script"]]
    assert "numba-cuda sysinfo" in scripts
    assert any("check_install.py" in line for line in scripts)
    # The python test runs on the oldest and the newest Python.
    assert python_tests[0]["python_version"] == [f"{deps.python_min()}.*", "*"]
    files = [f for t in tests for f in t.get("files", {}).get("recipe", [])]
    assert files
    for f in files:
        assert (deps.RECIPE.parent / f).is_file(), f


def test_about_and_maintainers(rendered, deps):
    recipe = rendered["linux-64"][0]["recipe"]
    about = recipe["about"]
    assert about["license"] == deps.pyproject()["project"]["license"]
    assert about["license_file"] == ["LICENSE"]
    assert (deps.ROOT / "LICENSE").is_file()
    assert about["summary"] and about["homepage"] and about["repository"]
    assert recipe["extra"]["recipe-maintainers"]


def test_staged_recipes_variant_renders_with_sdist_source(deps, tmp_path):
    """--staged-recipes swaps the checkout for the PyPI sdist (url + sha256) and still renders."""
    import hashlib

    module = deps.load_script("render_recipe")
    sdist = tmp_path / f"numba_cuda-{deps.package_version()}.tar.gz"
    sdist.write_bytes(b"not really an sdist")
    outdir = tmp_path / "staged"
    assert module.main(["--staged-recipes", str(sdist), str(outdir), "--maintainer", "alice",
                        "--maintainer", "conda-forge/cuda-python", "--repository", "https://git.example.org/numba-cuda"]) == 0
    variants = module.render("linux-64", recipe=outdir / "recipe.yaml", variants=outdir / "conda_build_config.yaml")
    assert len(variants) == 2
    (source,) = variants[0]["recipe"]["source"]
    assert source["sha256"] == hashlib.sha256(b"not really an sdist").hexdigest()
    assert source["url"][0].endswith(f"numba_cuda-{deps.package_version()}.tar.gz") if isinstance(
        source["url"], list
    ) else source["url"].endswith(f"numba_cuda-{deps.package_version()}.tar.gz")
    assert (outdir / "tests" / "check_install.py").is_file()
    recipe = variants[0]["recipe"]
    assert recipe["extra"]["recipe-maintainers"] == ["alice", "conda-forge/cuda-python"]
    assert recipe["about"]["repository"] == "https://git.example.org/numba-cuda"
    assert "REPLACE-ME" not in (outdir / "recipe.yaml").read_text()


def test_recipe_marks_its_placeholders(rendered, deps):
    """No maintainer or repository URL is known yet: the recipe says so, in a form the script replaces."""
    module = deps.load_script("render_recipe")
    recipe = rendered["linux-64"][0]["recipe"]
    assert recipe["extra"]["recipe-maintainers"] == [module.MAINTAINER_PLACEHOLDER]
    assert recipe["about"]["repository"] == module.REPOSITORY_PLACEHOLDER
    assert module.REPOSITORY_PLACEHOLDER.split("/")[2].endswith(".invalid")  # RFC 2606: never a real host


@pytest.mark.parametrize("extra, match", [
    ([], "--maintainer"),
    (["--maintainer", "alice"], "--repository"),
    (["--maintainer", "alice", "--repository", "https://replace-me.invalid/numba-cuda"], "--repository"),
    (["--maintainer", "REPLACE-ME-maintainer-handle", "--repository", "https://x.org/y"], "GitHub handle"),
])
def test_staged_recipes_refuses_to_keep_a_placeholder(deps, tmp_path, extra, match):
    module = deps.load_script("render_recipe")
    sdist = tmp_path / f"numba_cuda-{deps.package_version()}.tar.gz"
    sdist.write_bytes(b"x")
    with pytest.raises(SystemExit, match=match):
        module.main(["--staged-recipes", str(sdist), str(tmp_path / "out"), *extra])
    assert not (tmp_path / "out" / "recipe.yaml").exists()


def test_staged_recipes_refuses_a_version_mismatch(deps, tmp_path):
    module = deps.load_script("render_recipe")
    sdist = tmp_path / "numba_cuda-99.0.0.tar.gz"
    sdist.write_bytes(b"x")
    with pytest.raises(SystemExit, match="99.0.0"):
        module.main(["--staged-recipes", str(sdist), str(tmp_path / "out"),
                     "--maintainer", "alice", "--repository", "https://x.org/y"])


def test_too_old_py_rattler_build_is_not_reported_as_missing(deps, monkeypatch):
    """An old py-rattler-build (before 0.58: no Stage0Recipe ...) is named as too old, with the floor."""
    import sys
    import types

    module = deps.load_script("render_recipe")
    monkeypatch.setitem(sys.modules, "rattler_build", types.ModuleType("rattler_build"))
    with pytest.raises(SystemExit) as excinfo:
        module.render("linux-64")
    message = str(excinfo.value)
    assert "too old" in message and "not installed" not in message
    assert f">={module.RATTLER_BUILD_MIN}" in message and "Stage0Recipe" in message


def test_render_floor_matches_the_test_extra(deps):
    module = deps.load_script("render_recipe")
    (req,) = [r for r in deps.requirements("test") if r.name == "py-rattler-build"]
    assert str(req.specifier) == f">={module.RATTLER_BUILD_MIN}"

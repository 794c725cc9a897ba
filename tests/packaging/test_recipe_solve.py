"""Which of the two noarch variants a conda solver picks, per driver.

The recipe renders to two ``noarch: python`` packages of the same version
(cuda12_..., cuda13_...).  This solves them for real with rattler's solver
(py-rattler, the same solver pixi and rattler-build use) against a local
channel: the two rendered variants exactly as the recipe renders them, plus
stand-ins for their dependencies shaped like conda-forge's (``cuda-version
X.Y`` run-constrains ``__cuda >=X``; toolkit packages depend on
``cuda-version`` of their own minor).  No channel is contacted.

What must hold (and what the docs promise):

* a CUDA 12 driver (``__cuda 12.x``) gets the cuda12 variant: cuda13's
  ``__cuda >=13`` run constraint excludes it;
* a CUDA 13 driver gets cuda13, and so does a machine without a driver
  (both variants are installable there): the build-number offset decides;
* ``cuda-version 12.*`` selects cuda12 whatever the driver.
"""

import asyncio
import json

import pytest

import rattler  # py-rattler, in the test extra
from rattler.exceptions import SolverError

TIMESTAMP = 1_750_000_000_000


def _record(name, version, build="0", build_number=0, depends=(), constrains=(), noarch=None):
    rec = {
        "name": name,
        "version": version,
        "build": build,
        "build_number": build_number,
        "depends": list(depends),
        "constrains": list(constrains),
        "subdir": "noarch" if noarch else "linux-64",
        "timestamp": TIMESTAMP,
        "license": "BSD-2-Clause",
        "md5": "0" * 32,
        "sha256": "0" * 64,
        "size": 1,
    }
    if noarch:
        rec["noarch"] = noarch
    return rec


def _stand_ins():
    """conda-forge-shaped stand-ins for everything the two variants need."""
    recs = [
        _record("python", "3.12.0", depends=["__glibc >=2.17"]),
        _record("numba", "0.68.1", depends=["python", "numpy", "llvmlite"]),
        _record("llvmlite", "0.50.0", depends=["python"]),
        _record("numpy", "2.3.0", depends=["python"]),
    ]
    for major, minors in ((12, (4, 6, 8, 9)), (13, (0, 1, 2))):
        for minor in minors:
            mm = f"{major}.{minor}"
            recs.append(_record("cuda-version", mm, noarch="generic",
                                constrains=[f"__cuda >={major}", f"cudatoolkit {mm}|{mm}.*"]))
            for pkg in ("cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"):
                recs.append(_record(pkg, f"{mm}.0", build=f"h{major}{minor}_0",
                                    depends=[f"cuda-version >={mm},<{major}.{minor + 1}"]))
        # The first release of each major needs a driver for NVVM; the floors exclude it.
        for bindings in (("12.9.0", "12.9.3") if major == 12 else ("13.0.0", "13.0.2")):
            recs.append(_record("cuda-bindings", bindings, depends=["python", f"cuda-version >={major},<{major + 1}"]))
    return recs


def _variant_records(rendered):
    return [
        _record(v["name"], v["version"], build=v["build_string"],
                build_number=int(v["recipe"]["build"]["number"]),
                depends=v["run"], constrains=v["run_constraints"], noarch="python")
        for v in rendered["linux-64"]
    ]


@pytest.fixture(scope="module")
def channel(rendered, tmp_path_factory):
    root = tmp_path_factory.mktemp("channel")
    by_subdir = {"noarch": [], "linux-64": []}
    for rec in _variant_records(rendered) + _stand_ins():
        by_subdir[rec["subdir"]].append(rec)
    paths = {}
    for subdir, recs in by_subdir.items():
        (root / subdir).mkdir()
        packages = {f"{r['name']}-{r['version']}-{r['build']}.conda": r for r in recs}
        path = root / subdir / "repodata.json"
        path.write_text(json.dumps({"info": {"subdir": subdir}, "packages": {}, "packages.conda": packages}))
        paths[subdir] = path
    channel = rattler.Channel(str(root))
    return [rattler.SparseRepoData(channel, subdir, str(path)) for subdir, path in paths.items()]


def _solve(channel, specs, cuda=None):
    virtual = [
        rattler.GenericVirtualPackage(rattler.PackageName("__glibc"), rattler.Version("2.28"), rattler.BuildString("0")),
        rattler.GenericVirtualPackage(rattler.PackageName("__unix"), rattler.Version("0"), rattler.BuildString("0")),
        rattler.GenericVirtualPackage(rattler.PackageName("__linux"), rattler.Version("5.10"), rattler.BuildString("0")),
    ]
    if cuda is not None:
        virtual.append(rattler.GenericVirtualPackage(rattler.PackageName("__cuda"), rattler.Version(cuda), rattler.BuildString("0")))
    records = asyncio.run(rattler.solve_with_sparse_repodata(specs, channel, virtual_packages=virtual))
    return {str(r.name.normalized): r for r in records}


def _picked(solution):
    return str(solution["numba-cuda"].build).split("_")[0]


@pytest.mark.parametrize("cuda, expected", [("12.2", "cuda12"), ("12.9", "cuda12"), ("13.0", "cuda13"), ("13.1", "cuda13"), (None, "cuda13")])
def test_solver_picks_the_variant_the_driver_allows(channel, cuda, expected):
    solution = _solve(channel, ["numba-cuda"], cuda=cuda)
    assert _picked(solution) == expected
    major = expected[len("cuda"):]
    assert str(solution["cuda-version"].version).split(".")[0] == major
    # Every toolkit package comes from the same release (cuda-version's minor).
    assert str(solution["cuda-bindings"].version) == ("12.9.3" if major == "12" else "13.0.2")
    minor = str(solution["cuda-version"].version)
    for pkg in ("cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"):
        assert str(solution[pkg].version).startswith(minor + "."), (pkg, solution[pkg].version, minor)


def test_cuda_version_pin_selects_cuda12_on_a_cuda13_driver(channel):
    solution = _solve(channel, ["numba-cuda", "cuda-version 12.*"], cuda="13.0")
    assert _picked(solution) == "cuda12"


def test_cuda13_variant_is_not_installable_on_a_cuda12_driver(channel):
    with pytest.raises(SolverError, match="__cuda|cuda-version|numba-cuda"):
        _solve(channel, ["numba-cuda", "cuda-version 13.*"], cuda="12.9")


def test_cuda12_variant_refuses_cuda_12_before_12_9(channel):
    """cuda-version >=12.9 (the pip extras' floor): older CUDA 12 toolkits do not solve."""
    with pytest.raises(SolverError, match="cuda-version|numba-cuda"):
        _solve(channel, ["numba-cuda", "cuda-version <12.9"], cuda="12.9")


def test_build_number_offset_is_what_prefers_cuda13(rendered):
    """Both variants have the same version: only the build number can order them."""
    numbers = {v["variant"]["cuda_major_version"]: int(v["recipe"]["build"]["number"]) for v in rendered["linux-64"]}
    assert numbers["13"] == numbers["12"] + 100
    assert {v["version"] for v in rendered["linux-64"]} == {rendered["linux-64"][0]["version"]}

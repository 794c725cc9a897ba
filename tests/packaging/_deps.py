"""Shared facts for the packaging tests: where things are, and pip -> conda names.

Loaded by ``conftest.py`` (as the ``deps`` fixture) because test files cannot
import siblings under ``--import-mode=importlib``.
"""

import importlib.util
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import yaml

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
RECIPE = ROOT / "recipe" / "recipe.yaml"
VARIANTS = ROOT / "conda_build_config.yaml"
ENVIRONMENT = ROOT / "environment.yml"
PIXI = ROOT / "pixi.toml"
LOCK = ROOT / "lock"
MAJORS = (12, 13)
PLATFORMS = ("linux-64", "linux-aarch64", "win-64")

# PyPI name -> conda-forge name.  The NVIDIA toolkit wheels map onto the conda
# packages that ship the same files; on conda their version comes from the
# cuda-version pin, not from a version on the package.
TOOLKIT_PIP_TO_CONDA = {
    "nvidia-cuda-nvcc-cu12": "cuda-nvcc-impl",
    "nvidia-cuda-nvrtc-cu12": "cuda-nvrtc",
    "nvidia-cuda-runtime-cu12": "cuda-cudart",
    "nvidia-nvjitlink-cu12": "libnvjitlink",
    "nvidia-cuda-nvcc": "cuda-nvcc-impl",
    "nvidia-nvvm": "cuda-nvcc-impl",  # CUDA 13 splits NVVM into its own wheel; conda's cuda-nvcc-impl brings it
    "nvidia-cuda-nvrtc": "cuda-nvrtc",
    "nvidia-cuda-runtime": "cuda-cudart",
    "nvidia-nvjitlink": "libnvjitlink",
}
PIP_TO_CONDA = {
    "build": "python-build",
    **TOOLKIT_PIP_TO_CONDA,
}
# On PyPI only: listed in environment.yml's pip section / pixi's pypi-dependencies.
PIP_ONLY = {"py-rattler-build"}


def conda_name(pip_name):
    return PIP_TO_CONDA.get(pip_name.lower(), pip_name.lower())


def pyproject():
    with open(PYPROJECT, "rb") as f:
        return tomllib.load(f)


def requirements(group):
    """Requirements of ``group``: "run", an extra name, or "build-system"."""
    data = pyproject()
    if group == "run":
        lines = data["project"]["dependencies"]
    elif group == "build-system":
        lines = data["build-system"]["requires"]
    else:
        lines = data["project"]["optional-dependencies"][group]
    return [Requirement(line) for line in lines]


def package_version():
    text = (ROOT / "numba_cuda" / "_version.py").read_text()
    return re.search(r'__version__\s*=\s*"([^"]+)"', text).group(1)


def python_min():
    spec = SpecifierSet(pyproject()["project"]["requires-python"])
    (lower,) = [s.version for s in spec if s.operator == ">="]
    return lower


def split_conda_spec(spec):
    """``"numba >=0.68"`` -> ``("numba", ">=0.68")``; ``"cuda-nvrtc"`` -> ``("cuda-nvrtc", "")``."""
    spec = spec.split("#", 1)[0].strip()
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", spec)
    name, version = match.group(1), match.group(2).strip()
    if version.startswith("=") and not version.startswith("=="):
        version = version[1:]  # conda's fuzzy "=13" / "=13.*"
    return name.lower(), version.replace(" ", "")


def conda_clauses(version):
    """A conda version spec as a set of PEP 440 clauses (``"13.*"`` -> ``{">=13", "<14"}``)."""
    if not version or version == "*":
        return set()
    star = re.fullmatch(r"(\d+)\.\*", version)
    if star:
        major = int(star.group(1))
        return {f">={major}", f"<{major + 1}"}
    return {str(s) for s in SpecifierSet(version)}


def pip_clauses(requirement):
    return {str(s) for s in requirement.specifier}


def expected_conda_deps(major, groups=("run",)):
    """What a conda environment for ``major`` must pin, derived from pyproject.toml.

    Returns ``{conda_name: set_of_clauses}``; toolkit packages map to an empty
    set (their version is the cuda-version pin).  ``cuda-bindings`` takes its
    range from the ``cuNN`` extra (narrower than the base dependency).
    """
    expected = {}
    for group in (*groups, f"cu{major}"):
        for req in requirements(group):
            name = conda_name(req.name)
            if req.name.lower() in TOOLKIT_PIP_TO_CONDA:
                expected[name] = set()
            else:
                expected[name] = pip_clauses(req)
    expected["cuda-version"] = {f">={major}", f"<{major + 1}"}
    return expected


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


def load_toml(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def load_script(name):
    """Import scripts/<name>.py as a module."""
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_scripts_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def version_satisfies(version, clauses):
    return all(Version(version) in SpecifierSet(c) for c in clauses)

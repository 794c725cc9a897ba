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
ENVIRONMENTS = {major: ROOT / f"environment-cuda{major}.yml" for major in (12, 13)}
PIXI = ROOT / "pixi.toml"
LOCK = ROOT / "lock"
MAJORS = (12, 13)
PLATFORMS = ("linux-64", "linux-aarch64", "win-64")

# PyPI name -> conda-forge name.
PIP_TO_CONDA = {
    "build": "python-build",
    "py-rattler": "py-rattler",
}
# The toolkit comes from NVIDIA's cuda-toolkit metapackage, one release per
# extra (cuda-toolkit[nvcc,...]==13.*).  On conda the release is the
# cuda-version pin and each component is an unversioned package:
TOOLKIT_METAPACKAGE = "cuda-toolkit"
TOOLKIT_EXTRA_TO_CONDA = {
    "nvcc": "cuda-nvcc-impl",
    "nvvm": "cuda-nvcc-impl",  # CUDA 13 splits NVVM into its own wheel; conda's cuda-nvcc-impl brings it
    "nvrtc": "cuda-nvrtc",
    "cudart": "cuda-cudart",
    "nvjitlink": "libnvjitlink",
}
# The component wheels that each extra installs (what `pip install .[cuNN]` must resolve to).
TOOLKIT_WHEELS = {
    12: {"nvcc": "nvidia-cuda-nvcc-cu12", "nvrtc": "nvidia-cuda-nvrtc-cu12",
         "cudart": "nvidia-cuda-runtime-cu12", "nvjitlink": "nvidia-nvjitlink-cu12"},
    13: {"nvcc": "nvidia-cuda-nvcc", "nvvm": "nvidia-nvvm", "nvrtc": "nvidia-cuda-nvrtc",
         "cudart": "nvidia-cuda-runtime", "nvjitlink": "nvidia-nvjitlink"},
}
# On PyPI only: listed in the environment files' pip section / pixi's pypi-dependencies.
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


def _clauses(version):
    """Comma-separated clauses as a set of PEP 440 clauses; ``N.*`` and ``==N.*`` -> ``>=N``, ``<N+1``."""
    out = set()
    for clause in filter(None, (c.strip() for c in version.replace(" ", "").split(","))):
        star = re.fullmatch(r"(?:==)?(\d+)\.\*", clause)
        if star:
            major = int(star.group(1))
            out |= {f">={major}", f"<{major + 1}"}
        else:
            out |= {str(s) for s in SpecifierSet(clause)}
    return _tightest(out)


def _tightest(clauses):
    """Keep only the highest ``>=`` and the lowest ``<`` (``{">=12", ">=12.4"}`` -> ``{">=12.4"}``)."""
    def pick(op, best):
        found = [c for c in clauses if c.startswith(op) and not c.startswith(op + "=")] if op == "<" else \
            [c for c in clauses if c.startswith(op)]
        if not found:
            return set()
        key = lambda c: (Version(c[len(op):]), len(c))  # noqa: E731  equal versions: the longer spelling
        return {best(found, key=key)}

    def canonical(op, found):
        # 13.0 and 13 are the same bound: spell it without trailing zeros.
        (clause,) = found or [None]
        if clause is None:
            return set()
        release = list(Version(clause[len(op):]).release)
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        return {op + ".".join(map(str, release))}

    lower = canonical(">=", pick(">=", max))
    upper = canonical("<", pick("<", lambda xs, key: min(xs, key=lambda c: (Version(c[1:]), -len(c)))))
    rest = {c for c in clauses if not c.startswith(">=") and not (c.startswith("<") and not c.startswith("<="))}
    return lower | upper | rest


def conda_clauses(version):
    """A conda version spec as a set of PEP 440 clauses (``">=12.4,12.*"`` -> ``{">=12.4", ">=12", "<13"}``)."""
    if not version or version == "*":
        return set()
    return _clauses(version)


def pip_clauses(requirement):
    return _clauses(str(requirement.specifier))


def expected_conda_deps(major, groups=("run",)):
    """What a conda environment for ``major`` must pin, derived from pyproject.toml.

    Returns ``{conda_name: set_of_clauses}``.  The ``cuNN`` extra's
    ``cuda-toolkit[...]`` requirement becomes ``cuda-version`` with the same
    range plus one unversioned package per component extra.
    ``cuda-bindings`` takes its range from the ``cuNN`` extra (narrower than
    the base dependency).
    """
    expected = {}
    for group in (*groups, f"cu{major}"):
        for req in requirements(group):
            if req.name.lower() == TOOLKIT_METAPACKAGE:
                expected["cuda-version"] = pip_clauses(req)
                for extra in req.extras:
                    expected[TOOLKIT_EXTRA_TO_CONDA[extra]] = set()
            else:
                expected[conda_name(req.name)] = pip_clauses(req)
    return expected


def toolkit_requirement(major):
    """The ``cuda-toolkit[...]`` requirement of the ``cuNN`` extra."""
    (req,) = [r for r in requirements(f"cu{major}") if r.name.lower() == TOOLKIT_METAPACKAGE]
    return req


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

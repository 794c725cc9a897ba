"""The declared floors of pyproject.toml, as pip constraints (for the lowest-versions job).

    python scripts/floors.py 12            # print "numba==0.68" ... for numba-cuda[cu12]
    python scripts/floors.py 12 --check    # exit 1 unless this interpreter has exactly those versions

Every requirement of the run dependencies, of the ``cuNN`` extra and of the
build system is pinned to its lower bound (the highest ``>=`` bound, or ``N.0``
for ``==N.*``), and so are the test tools whose floor is an API this
repository uses (py-rattler-build, py-rattler).  ``scripts/run-tests lowest``
installs numba-cuda with these constraints and runs the tests; it is how the
floors are known to hold.  Needs ``packaging``.
"""

import argparse
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
# Test-extra packages whose floor is an API the tests or scripts use; the other
# test tools (pytest, sphinx, build ...) are developer tools and run at their newest.
TEST_FLOORS = ("py-rattler-build", "py-rattler")


def floor(requirement):
    """The lowest version ``requirement`` allows, from its ``>=`` and ``==N.*`` clauses."""
    bounds = []
    for spec in requirement.specifier:
        if spec.operator == ">=":
            bounds.append(Version(spec.version))
        elif spec.operator == "==" and spec.version.endswith(".*"):
            bounds.append(Version(spec.version[:-2]))
        elif spec.operator == "==":
            bounds.append(Version(spec.version))
    if not bounds:
        raise SystemExit(f"{requirement} declares no lower bound: give it one (>=X) so its floor can be tested")
    return max(bounds)


def requirements(major, pyproject=ROOT / "pyproject.toml"):
    with open(pyproject, "rb") as f:
        data = tomllib.load(f)
    lines = (data["project"]["dependencies"] + data["project"]["optional-dependencies"][f"cu{major}"]
             + data["build-system"]["requires"]
             + [r for r in data["project"]["optional-dependencies"]["test"]
                if Requirement(r).name in TEST_FLOORS])
    return [Requirement(line) for line in lines]


def floors(major, pyproject=ROOT / "pyproject.toml"):
    """``{name: lowest version}`` over every pinned requirement (the tightest bound per name)."""
    out = {}
    for req in requirements(major, pyproject):
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        out[name] = max(out.get(name, Version("0")), floor(req))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("major", type=int, choices=(12, 13))
    parser.add_argument("--check", action="store_true",
                        help="check the installed versions instead of printing constraints")
    args = parser.parse_args(argv)
    pins = floors(args.major)
    if not args.check:
        for name, version in sorted(pins.items()):
            print(f"{name}=={version}")
        return 0
    from importlib.metadata import PackageNotFoundError, version

    wrong = []
    for name, lowest in sorted(pins.items()):
        try:
            installed = Version(version(name))
        except PackageNotFoundError:
            wrong.append(f"{name}: not installed (floor {lowest})")
            continue
        if installed != lowest:
            wrong.append(f"{name}: {installed} installed, floor is {lowest}")
        else:
            print(f"{name} {installed} (floor)")
    if wrong:
        print("not at the declared floors:\n  " + "\n  ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

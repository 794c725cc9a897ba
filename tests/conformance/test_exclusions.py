"""scripts/conformance-exclusions.txt: every line has a reason, and the list stays under 5% of
Numba's suite (counted generously: a whole file for a module or class entry)."""

import os
import re
from pathlib import Path

import numba

from tests.support.script_modules import load_script


def _runner():
    return load_script("scripts/conformance", "conformance_runner")


def test_every_exclusion_has_a_reason_and_names_something_that_exists():
    runner = _runner()
    suite = Path(numba.__file__).parent / "cuda" / "tests"
    for line in runner.EXCLUSIONS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        body, _, reason = line.partition("#")
        assert len(reason.strip()) > 20, line
    patterns = runner.read_exclusions("numba")
    assert patterns
    for pat in patterns:
        parts = pat.removeprefix("numba.cuda.tests.").split(".")
        # the module part of the id is a file of the installed suite
        assert any((suite / Path(*parts[:i])).with_suffix(".py").exists()
                   for i in range(1, len(parts) + 1)), pat


def test_exclusions_stay_under_five_percent_of_numbas_suite():
    runner = _runner()
    suite = Path(numba.__file__).parent / "cuda" / "tests"
    total = 0
    counts = {}
    for root, _, files in os.walk(suite):
        for f in files:
            if f.startswith("test_") and f.endswith(".py"):
                path = Path(root) / f
                n = len(re.findall(r"^\s+def test_", path.read_text(), re.M))
                total += n
                counts[".".join(path.relative_to(suite).with_suffix("").parts)] = n
    excluded = 0
    for pat in runner.read_exclusions("numba"):
        rel = pat.removeprefix("numba.cuda.tests.")
        module = next(m for m in counts if rel == m or rel.startswith(m + "."))
        excluded += 1 if rel.count(".") > module.count(".") + 1 else counts[module]
    assert total > 1000
    assert excluded < 0.05 * total, (excluded, total)


def test_exclusion_matching():
    runner = _runner()
    pats = ["numba.cuda.tests.cudapy.test_gufunc_scheduling", "numba.cuda.tests.x.T.test_a*"]
    assert runner.is_excluded("numba.cuda.tests.cudapy.test_gufunc_scheduling.T.test_1", pats)
    assert runner.is_excluded("numba.cuda.tests.cudapy.test_gufunc_scheduling", pats)
    assert runner.is_excluded("setUpClass (numba.cuda.tests.cudapy.test_gufunc_scheduling.T)", pats)
    assert runner.is_excluded("numba.cuda.tests.x.T.test_ab", pats)
    assert not runner.is_excluded("numba.cuda.tests.cudapy.test_gufunc_schedulingx.T.t", pats)
    assert not runner.is_excluded("numba.cuda.tests.x.T.test_b", pats)

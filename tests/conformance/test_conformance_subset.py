"""A fast slice of ``scripts/conformance``: Numba's own CUDA tests against ours and against
Numba's built-in target, measured in the same run; ours must pass at least as many.

The full run (both peer suites, all modes) is documented in docs/maintainers.rst.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "scripts" / "conformance"

SIM_MODULES = [
    "cudasim",
    "cudadrv/test_runtime.py",
    "cudapy/test_frexp_ldexp.py",
    "cudapy/test_intrinsics.py",
    "cudapy/test_exception.py",
    "cudapy/test_print.py",
    "cudapy/test_userexc.py",
    "cudadrv/test_host_alloc.py",
]
NOCUDA_MODULES = [
    "nocuda/test_nvvm.py",
    "nocuda/test_import.py",
    "cudapy/test_libdevice.py",
]


def _run(tmp_path, mode, modules):
    out = tmp_path / f"{mode}.json"
    cmd = [sys.executable, str(RUNNER), "--suite", "numba", "--mode", mode, "--check",
           "--show-diff", "--workdir", str(tmp_path / "work"), "--python", sys.executable,
           "--json", str(out)]
    for m in modules:
        cmd += ["--only", m]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    report = json.loads(out.read_text())[f"numba/{mode}"]
    return proc, report


def _passed(results):
    return sum(1 for outcome, _ in results.values() if outcome == "passed")


@pytest.mark.slow
@pytest.mark.parametrize("mode, modules", [("sim", SIM_MODULES), ("nocuda", NOCUDA_MODULES)])
def test_numba_suite_slice_passes_at_least_as_much_as_the_builtin(tmp_path, mode, modules):
    proc, report = _run(tmp_path, mode, modules)
    excluded = set(report["excluded"])  # checked apart (scripts/conformance-exclusions.txt)
    ours = {t: r for t, r in report["ours"].items() if t not in excluded}
    ref = {t: r for t, r in report["reference"].items() if t not in excluded}
    assert _passed(ref) > 0, proc.stdout + proc.stderr
    # the reference's tests are all there on our side (none lost to import errors)
    missing = sorted(set(ref) - set(ours))
    assert not missing, missing
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _passed(ours) >= _passed(ref)

"""The layering of ``numba_cuda`` is checked by import-linter (``[tool.importlinter]`` in
pyproject.toml): these tests run ``lint-imports`` on the package, and on a copy with forbidden
imports added, to show that each contract fails when it should."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"

CONTRACTS = {
    "layers": "Layers: dispatch above compiler",
    "compiler": "The compiler is a pure stage",
    "runtime": "The runtime knows nothing of the compiler",
    "simulator": "The simulator uses neither the compiler",
    "compat": "Nothing in the package imports the compat yard",
    "loops": "No import loops inside any package of numba_cuda",
    "common": "The common floor imports no other room",
}


def _lint_imports():
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        found = shutil.which("lint-imports")
        if found is None:
            pytest.fail("lint-imports is not installed: install the test extra (pip install -e '.[test]')")
        exe = Path(found)
    return str(exe)


def _run(package_parent, cwd):
    env = dict(os.environ)
    # The package analysed is the first numba_cuda on sys.path: the copy under test.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package_parent), env.get("PYTHONPATH")]))
    return subprocess.run(
        [_lint_imports(), "--config", str(PYPROJECT), "--no-cache"],
        capture_output=True, text=True, cwd=str(cwd), env=env, timeout=300,
    )


def _status_lines(output):
    """Contract name prefix -> 'KEPT' / 'BROKEN' from lint-imports' summary (names may wrap)."""
    flat = " ".join(output.split())
    status = {}
    for key, prefix in CONTRACTS.items():
        at = flat.find(prefix)
        assert at >= 0, f"contract {prefix!r} missing from the report:\n{output}"
        rest = flat[at:]
        kept, broken = rest.find(" KEPT"), rest.find(" BROKEN")
        candidates = [i for i in (kept, broken) if i >= 0]
        assert candidates, output
        status[key] = "KEPT" if min(candidates) == kept else "BROKEN"
    return status


def test_the_package_keeps_every_contract():
    proc = _run(ROOT, ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(_status_lines(proc.stdout).values()) == {"KEPT"}


def _inject(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n\n" + text + "\n")


def test_each_contract_bites(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "numba_cuda", copy / "numba_cuda",
                    ignore=shutil.ignore_patterns("__pycache__"))
    pkg = copy / "numba_cuda"
    # A function-local import of the runtime in the compiler (import-linter reads those too).
    _inject(pkg / "compiler" / "kernel.py",
            "def _sneaky_device():\n    from numba_cuda.runtime import api\n\n    return api")
    # An import loop inside the runtime.
    _inject(pkg / "runtime" / "array_layout.py",
            "def _loop():\n    from numba_cuda.runtime import devicearray  # noqa: F401")
    # The simulator reaching into the dispatch layer.
    _inject(pkg / "simulator" / "kernelapi.py",
            "def _real_jit():\n    from numba_cuda.dispatch.api import jit\n\n    return jit")

    proc = _run(copy, tmp_path)
    assert proc.returncode != 0, proc.stdout
    status = _status_lines(proc.stdout)
    assert status == {"layers": "BROKEN", "compiler": "BROKEN", "runtime": "KEPT",
                      "simulator": "BROKEN", "compat": "KEPT", "loops": "BROKEN",
                      "common": "KEPT"}, proc.stdout
    flat = " ".join(proc.stdout.split())
    assert "numba_cuda.compiler.kernel -> numba_cuda.runtime.api" in flat, proc.stdout
    assert "numba_cuda.simulator.kernelapi -> numba_cuda.dispatch.api" in flat, proc.stdout
    assert "numba_cuda.runtime" in flat and "array_layout" in flat, proc.stdout


def test_the_runtime_contract_bites(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "numba_cuda", copy / "numba_cuda",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _inject(copy / "numba_cuda" / "runtime" / "kernel_errors.py",
            "def _layout():\n    from numba_cuda.compiler import device_errors\n\n"
            "    return device_errors.RECORD_BYTES")
    proc = _run(copy, tmp_path)
    assert proc.returncode != 0, proc.stdout
    status = _status_lines(proc.stdout)
    assert status["runtime"] == "BROKEN" and status["compiler"] == "KEPT", proc.stdout
    assert "numba_cuda.runtime.kernel_errors -> numba_cuda.compiler.device_errors" in \
        " ".join(proc.stdout.split()), proc.stdout


def test_the_common_floor_contract_bites(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "numba_cuda", copy / "numba_cuda",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The shared floor reaching up into the simulator (a room above it).
    _inject(copy / "numba_cuda" / "common" / "launch_dims.py",
            "def _sim():\n    from numba_cuda.simulator import kernelapi\n\n    return kernelapi")
    proc = _run(copy, tmp_path)
    assert proc.returncode != 0, proc.stdout
    status = _status_lines(proc.stdout)
    assert status["common"] == "BROKEN" and status["simulator"] == "KEPT", proc.stdout
    assert "numba_cuda.common.launch_dims -> numba_cuda.simulator.kernelapi" in \
        " ".join(proc.stdout.split()), proc.stdout


def test_the_compat_contract_bites(tmp_path):
    # The dispatch layer reaching for a compat module directly, not through its old path.
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "numba_cuda", copy / "numba_cuda",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _inject(copy / "numba_cuda" / "dispatch" / "api.py",
            "def _old_driver():\n    from numba_cuda.compat.gpu.cudadrv import driver\n\n"
            "    return driver")
    proc = _run(copy, tmp_path)
    assert proc.returncode != 0, proc.stdout
    status = _status_lines(proc.stdout)
    assert status["compat"] == "BROKEN" and status["layers"] == "KEPT", proc.stdout
    assert "numba_cuda.dispatch.api -> numba_cuda.compat.gpu.cudadrv" in \
        " ".join(proc.stdout.split()), proc.stdout

"""Assembling compiled PTX with the toolkit's ptxas, shared by the tests that compile kernels.

Import as ``from tests.support.ptx_helpers import assemble`` (pytest runs from the repository root).
"""

import os
import subprocess
import tempfile

import pytest


def run_ptxas(ptx, cc, ptxas=None, compile_only=False):
    """ptxas on ``ptx`` for ``sm_XY``; the completed process (the caller judges it).
    ``compile_only``: relocatable code (``-c``), for PTX that calls functions defined elsewhere."""
    from numba_cuda import toolkit

    ptxas = ptxas or toolkit.ptxas_path()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        return subprocess.run(
            [ptxas, f"-arch=sm_{cc[0]}{cc[1]}", *(["-c"] if compile_only else []), src, "-o",
             os.path.join(tmp, "kernel.cubin")],
            capture_output=True, text=True, timeout=120,
        )


def ptxas_or_skip():
    """``run_ptxas`` bound to the toolkit's ptxas; skips the test when there is none."""
    from numba_cuda import toolkit

    path = toolkit.ptxas_path()
    if path is None:
        pytest.skip("ptxas is not installed in this toolkit (install nvidia-cuda-nvcc)")
    return lambda ptx, cc: run_ptxas(ptx, cc, path)


def assemble(ptx, cc, compile_only=False):
    """Run ptxas on ``ptx`` for ``sm_XY``; fail the test if ptxas is missing or refuses the PTX
    (the failure carries ptxas's message and the PTX).  ``compile_only``: see ``run_ptxas``."""
    from numba_cuda import toolkit

    if toolkit.ptxas_path() is None:
        pytest.fail("ptxas was not found by toolkit discovery (install the nvcc wheel of this CUDA major)")
    proc = run_ptxas(ptx, cc, compile_only=compile_only)
    if proc.returncode != 0:
        pytest.fail(f"ptxas -arch=sm_{cc[0]}{cc[1]} rejected the PTX:\n{proc.stderr}\n--- PTX ---\n{ptx}")

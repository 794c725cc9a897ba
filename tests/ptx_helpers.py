"""Assembling compiled PTX with the toolkit's ptxas, shared by the tests that compile kernels.

Import as ``from tests.ptx_helpers import assemble`` (pytest runs from the repository root).
"""

import os
import subprocess
import tempfile

import pytest


def assemble(ptx, cc):
    """Run ptxas on ``ptx`` for ``sm_XY``; fail the test if ptxas is missing or refuses the PTX
    (the failure carries ptxas's message and the PTX)."""
    from numba_cuda import toolkit

    ptxas = toolkit.ptxas_path()
    if ptxas is None:
        pytest.fail("ptxas was not found by toolkit discovery (install the nvcc wheel of this CUDA major)")
    arch = f"sm_{cc[0]}{cc[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run(
            [ptxas, f"-arch={arch}", src, "-o", os.path.join(tmp, "kernel.cubin")],
            capture_output=True, text=True,
        )
    if proc.returncode != 0:
        pytest.fail(f"ptxas -arch={arch} rejected the PTX:\n{proc.stderr}\n--- PTX ---\n{ptx}")

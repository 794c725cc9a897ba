"""Fixtures for the kernel-language tests: compile to PTX and assemble with the toolkit's ptxas.

``ptx_for(fn, sig, ccs=..., **options)`` compiles ``fn`` with ``cuda.compile_ptx`` for each
compute capability (default: every one of 7.5, 8.0, 9.0, 10.0, 12.0 the installed libNVVM
accepts), feeds each PTX to ``ptxas -arch=sm_XY`` (which must accept it) and returns
``{cc: ptx}``.  ``run_python(code)`` runs code in a fresh interpreter (for anything that could
take the process down) and returns the completed process.
"""

import subprocess
import sys

import pytest

from tests.support.ptx_helpers import assemble

TARGET_CCS = ((7, 5), (8, 0), (9, 0), (10, 0), (12, 0))


def available_ccs():
    from numba_cuda.compiler import capability

    supported = set(capability.supported_ccs())
    return tuple(cc for cc in TARGET_CCS if cc in supported)


@pytest.fixture(scope="session")
def ccs():
    found = available_ccs()
    assert (7, 5) in found and (9, 0) in found, f"the installed libNVVM should accept 7.5 and 9.0; got {found}"
    return found


@pytest.fixture
def ptx_for(ccs):
    from numba import cuda

    def compile_all(fn, sig, ccs=ccs, **options):
        out = {}
        for cc in ccs:
            ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, **options)
            assemble(ptx, cc)
            out[cc] = ptx
        return out

    return compile_all


@pytest.fixture
def ptx_one():
    """Compile for the lowest target cc only (7.5) and assemble; returns the PTX."""
    from numba import cuda

    def compile_one(fn, sig, cc=(7, 5), **options):
        ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, **options)
        assemble(ptx, cc)
        return ptx

    return compile_one


@pytest.fixture
def run_python():
    def run(code, timeout=240):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)

    return run


def _code_lines(ptx):
    lines = []
    for line in ptx.splitlines():
        line = line.split("//", 1)[0].strip()
        if line and not line.startswith(".param") and "_param_" not in line:
            lines.append(line)
    return "\n".join(lines)


@pytest.fixture
def code():
    """``code(ptx)``: the PTX without comments and parameter lines (mangled kernel names can
    contain op-like substrings), as one string to search."""
    return _code_lines

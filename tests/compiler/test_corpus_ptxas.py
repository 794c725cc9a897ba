"""Every corpus entry (``tests/**/corpus_*.py``, see ``corpus_compiler.py`` for the convention) is
compiled once to NVVM IR, then to PTX for each compute capability the installed libNVVM accepts
among 7.5, 8.0, 9.0, 10.0, 12.0, and each PTX is fed to the toolkit's ``ptxas``."""

import os
import re
import subprocess
import tempfile

import pytest

from tests.support import corpus

WANTED_CCS = ((7, 5), (8, 0), (9, 0), (10, 0), (12, 0))
REQUIRED_CCS = ((7, 5), (8, 0), (9, 0))


def _load_corpus():
    return [pytest.param(fn, sig, device, id=name) for name, fn, sig, device in corpus.entries()]


CORPUS = _load_corpus()


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 40, f"the corpus has only {len(CORPUS)} entries"


@pytest.fixture(scope="module")
def ccs():
    from numba_cuda.compiler import capability

    supported = set(capability.supported_ccs())
    missing = [cc for cc in REQUIRED_CCS if cc not in supported]
    assert not missing, f"libNVVM rejects required compute capabilities {missing}"
    return [cc for cc in WANTED_CCS if cc in supported]


@pytest.fixture(scope="module")
def ptxas():
    from numba_cuda import toolkit

    path = toolkit.ptxas_path()
    if path is None:
        pytest.skip("ptxas is not installed in this toolkit (install nvidia-cuda-nvcc)")
    return path


def _ptxas(ptxas, ptx, cc):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as fh:
            fh.write(ptx)
        proc = subprocess.run(
            [ptxas, f"-arch=sm_{cc[0]}{cc[1]}", "-o", os.devnull, src],
            capture_output=True, text=True, timeout=120,
        )
    return proc


@pytest.mark.parametrize("fn, sig, device", CORPUS)
def test_compiles_and_passes_ptxas(fn, sig, device, ccs, ptxas):
    from numba_cuda.compiler.api import compile_to_library
    from numba_cuda.compiler.pipeline import CompileOptions

    library, _ = compile_to_library(fn, sig, CompileOptions(), device=device)
    for cc in ccs:
        ptx = library.get_ptx(cc)
        assert f".target sm_{cc[0]}{cc[1]}" in ptx
        if device:
            assert ".visible .func" in ptx, "the exported device function is missing"
        else:
            assert ".entry" in ptx
            # helpers linked into a kernel must not stay externally visible
            assert not re.search(r"^\.visible \.func", ptx, re.M), ptx[:2000]
        proc = _ptxas(ptxas, ptx, cc)
        assert proc.returncode == 0, f"ptxas sm_{cc[0]}{cc[1]} rejected the PTX:\n{proc.stderr}"

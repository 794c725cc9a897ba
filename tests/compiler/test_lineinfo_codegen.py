"""``lineinfo=True`` adds line tables and never changes the code: over the compiler corpus, the PTX
with and without it has the same instructions in the same basic blocks (``.loc``/``.file`` lines
aside; libNVVM may order independent instructions of a block differently when the IR carries
debug locations -- 2 of the corpus's entries -- and then ptxas may allocate one more register),
ptxas gives it the same register count, and the PTX is never marked ``.target sm_XY, debug`` (which makes ptxas
de-optimise) nor carries DWARF sections.  Checked for the oldest compute capability the toolkit
accepts, one on libNVVM's LLVM-7-era reader (7.5..9.0) and one on its modern reader (10.0+)."""

import os
import re
import subprocess
import tempfile

import pytest

from tests.compiler.corpus_compiler import CORPUS


@pytest.fixture(scope="module")
def ccs():
    from numba_cuda.compiler import capability

    supported = capability.supported_ccs()
    wanted = [supported[0], (7, 5), (9, 0), (12, 0)]
    return sorted({cc for cc in wanted if cc in supported})


@pytest.fixture(scope="module")
def ptxas():
    from numba_cuda import toolkit

    path = toolkit.ptxas_path()
    if path is None:
        pytest.fail("ptxas was not found by toolkit discovery (install the nvcc wheel of this CUDA major)")
    return path


_REGISTERS = re.compile(r"Used (\d+) registers")


def _registers(ptxas, ptx, cc):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, "-v", f"-arch=sm_{cc[0]}{cc[1]}", "-o", os.devnull, src],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [int(n) for n in _REGISTERS.findall(proc.stderr)]


_MANGLED = re.compile(r"_ZN[\w$]+")


def _instructions(ptx):
    """The code of the PTX: without line-table directives, comments, blank lines and the
    ``.debug_str`` section after the code (the inlined functions' names the ``.loc`` lines
    refer to); mangled names are blanked (the lineinfo option is part of their ABI tag), and the
    ``.reg`` declarations are left out: they count virtual registers, not instructions (the
    registers the code really uses are ptxas's count, compared separately)."""
    out = []
    for line in ptx.splitlines():
        line = line.split("//", 1)[0].strip()
        if line.startswith(".section") and ".debug_str" in line:
            break
        if not line or line.startswith((".loc", ".file", ".reg")):
            continue
        out.append(_MANGLED.sub("_ZN...", line))
    return out


_REGISTER = re.compile(r"%(r|rd|rs|f|fd|p|h|hh)\d+")


def _blocks(instructions):
    """The instructions per basic block (split at labels), each block as a sorted list with
    register numbers blanked: what must not change, whatever order the scheduler picks."""
    blocks, current = [], []
    for line in instructions:
        if line.endswith(":"):
            blocks.append(sorted(current))
            current = [line]
        else:
            current.append(_REGISTER.sub(r"%\1", line))
    blocks.append(sorted(current))
    return blocks


def _compile(fn, sig, device, lineinfo):
    from numba_cuda.compiler.api import compile_to_library
    from numba_cuda.compiler.pipeline import CompileOptions

    library, _ = compile_to_library(fn, sig, CompileOptions.from_user(lineinfo=lineinfo), device=device)
    return library


@pytest.mark.parametrize("fn, sig, device", [pytest.param(f, s, d, id=n) for n, f, s, d in CORPUS])
def test_lineinfo_changes_no_instruction_and_no_register(fn, sig, device, ccs, ptxas):
    plain = _compile(fn, sig, device, lineinfo=False)
    lined = _compile(fn, sig, device, lineinfo=True)
    for cc in ccs:
        without, with_lines = plain.get_ptx(cc), lined.get_ptx(cc)
        target = [ln for ln in with_lines.splitlines() if ln.startswith(".target")]
        assert target == [f".target sm_{cc[0]}{cc[1]}"], (cc, target)
        for section in (".debug_info", ".debug_abbrev", ".debug_loc", ".debug_frame"):
            assert section not in with_lines, (cc, section)
        assert ".loc" in with_lines and ".file" in with_lines, cc  # the line table is there
        registers, registers_without = _registers(ptxas, with_lines, cc), _registers(ptxas, without, cc)
        if _instructions(with_lines) == _instructions(without):
            assert registers == registers_without, cc
        else:
            # libNVVM ordered independent instructions of a block differently (it does so
            # whenever the IR carries debug locations, whatever their lines): the same
            # instructions, and ptxas's allocation may differ by a register at most.
            assert _blocks(_instructions(with_lines)) == _blocks(_instructions(without)), cc
            assert all(r <= r0 + 1 for r, r0 in zip(registers, registers_without)), (cc, registers,
                                                                                    registers_without)


def test_shared_memory_matmul_keeps_its_registers(ccs, ptxas):
    # The report: 38 registers without lineinfo, 60 with it, at sm_75.
    from numba import cuda, float32

    def matmul(A, B, C):
        sA = cuda.shared.array((16, 16), float32)
        sB = cuda.shared.array((16, 16), float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        acc = float32(0.0)
        for i in range(A.shape[1] // 16):
            sA[ty, tx] = A[y, tx + i * 16]
            sB[ty, tx] = B[ty + i * 16, x]
            cuda.syncthreads()
            for j in range(16):
                acc += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = acc

    sig = (float32[:, :], float32[:, :], float32[:, :])
    for cc in ccs:
        plain, _ = cuda.compile_ptx(matmul, sig, cc=cc)
        lined, _ = cuda.compile_ptx(matmul, sig, cc=cc, lineinfo=True)
        assert ", debug" not in lined
        assert _registers(ptxas, lined, cc) == _registers(ptxas, plain, cc), cc


def test_most_of_the_corpus_has_the_very_same_instruction_order():
    cc = (7, 5)
    same = sum(_instructions(_compile(f, s, d, True).get_ptx(cc)) == _instructions(_compile(f, s, d, False).get_ptx(cc))
               for _n, f, s, d in CORPUS)
    assert same >= 0.9 * len(CORPUS), (same, len(CORPUS))


def test_debug_still_marks_the_target_for_debugging(ccs):
    from numba import cuda, float32

    def k(a):
        a[0] = 1

    ptx, _ = cuda.compile_ptx(k, (float32[::1],), cc=ccs[-1], debug=True, opt=False)
    assert f".target sm_{ccs[-1][0]}{ccs[-1][1]}, debug" in ptx

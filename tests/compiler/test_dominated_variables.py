"""Variables assigned once, in a block dominating the blocks that read them, are used directly
rather than through a stack slot (``local_variables.singly_assigned_variables(...,
across_blocks=True)``, asked for by ``CUDALower`` without debug information): which variables
qualify, on hand-built IR and against Numba's own analyses (``test_lowering_fast_paths``
compares the whole corpus's NVVM IR with that); the NVVM IR loses the slots (arguments,
``cuda.grid(1)`` read after an ``if``); and over the corpus ptxas never needs more registers
for the PTX than with Numba's slots, while most kernels' PTX stays the same, instruction for
instruction.  ``debug=True`` keeps the slots its variable descriptions point at;
``lineinfo=True`` changes nothing (``test_lineinfo_codegen``)."""

import os
import re
import subprocess
import tempfile

import pytest
from numba import cuda, float32, void
from numba.core import ir

from numba_cuda.compiler import local_variables
from tests.compiler.test_corpus_ptxas import CORPUS
from tests.compiler.test_lowering_fast_paths import dominated_variables
from tests.support.lowering_inputs import UNIQUE, nvvm_inputs

LOC = ir.Loc("f", 1)
SCOPE = ir.Scope(None, LOC)
ONE = ir.Const(1, LOC)


def var(name):
    return ir.Var(SCOPE, name, LOC)


def assign(value, target):
    return ir.Assign(value, var(target), LOC)


def use(*names):
    """A statement reading ``names`` (a print)."""
    return ir.Print([var(n) for n in names], None, LOC)


def block(*body):
    b = ir.Block(SCOPE, LOC)
    b.body = list(body)
    return b


def jump(target):
    return ir.Jump(target, LOC)


def branch(cond, yes, no):
    return ir.Branch(var(cond), yes, no, LOC)


def ret():
    return ir.Return(var("r"), LOC)


def across(blocks):
    """What across_blocks adds to Numba's set."""
    return (local_variables.singly_assigned_variables(blocks, across_blocks=True)
            - local_variables.singly_assigned_variables(blocks))


def _ir(blocks):
    return type("IR", (), {"blocks": blocks})()


def test_read_in_a_dominated_later_block():
    # 0: a = 1; if c -> 10 else 20;  10: use(a) -> 20;  20: use(a); return
    blocks = {0: block(assign(ONE, "a"), assign(ONE, "c"), branch("c", 10, 20)),
              10: block(use("a"), jump(20)),
              20: block(use("a"), assign(ONE, "r"), ret())}
    assert across(blocks) == {"a"}
    assert across(blocks) == dominated_variables(_ir(blocks))


def test_assigned_in_one_branch_read_after_the_merge():
    # 0: if c -> 10 else 20;  10: a = 1 -> 20;  20: use(a): 10 does not dominate 20
    blocks = {0: block(assign(ONE, "c"), branch("c", 10, 20)),
              10: block(assign(ONE, "a"), jump(20)),
              20: block(use("a"), assign(ONE, "r"), ret())}
    assert "a" not in across(blocks)
    assert across(blocks) == dominated_variables(_ir(blocks))


def test_assigned_in_a_loop_body_read_after_the_loop():
    # 0 -> 10;  10: if c -> 20 else 30;  20: a = 1 -> 10;  30: use(a)
    blocks = {0: block(assign(ONE, "c"), jump(10)),
              10: block(branch("c", 20, 30)),
              20: block(assign(ONE, "a"), use("a"), jump(10)),
              30: block(use("a"), assign(ONE, "r"), ret())}
    assert "a" not in across(blocks)
    assert "c" in across(blocks)  # the entry block dominates the loop
    assert across(blocks) == dominated_variables(_ir(blocks))


def test_read_in_a_block_lowered_before_the_assignment():
    # 0 -> 20;  20: a = 1 -> 10;  10: use(a): 20 dominates 10 but is lowered after it
    blocks = {0: block(jump(20)),
              20: block(assign(ONE, "a"), jump(10)),
              10: block(use("a"), assign(ONE, "r"), ret())}
    assert "a" not in across(blocks)
    assert across(blocks) == dominated_variables(_ir(blocks))


def test_deleted_in_a_block_not_dominated():
    # 0: if c -> 10 else 20;  10: b = 1 -> 15;  15: use(b) -> 30;  20: (del b) -> 30;  30: return
    def blocks(deleted):
        return {0: block(assign(ONE, "c"), branch("c", 10, 20)),
                10: block(assign(ONE, "b"), jump(15)),
                15: block(use("b"), jump(30)),
                20: block(*([ir.Del("b", LOC)] if deleted else []), jump(30)),
                30: block(assign(ONE, "r"), ret())}

    assert "b" in across(blocks(False))
    assert "b" not in across(blocks(True))
    for deleted in (False, True):
        assert across(blocks(deleted)) == dominated_variables(_ir(blocks(deleted)))


def test_reassigned_or_read_first_in_its_block():
    blocks = {0: block(assign(ONE, "a"), assign(ONE, "a"), use("b"), assign(ONE, "b"),
                       assign(ONE, "c"), jump(10)),
              10: block(use("a", "b", "c"), assign(ONE, "r"), ret())}
    assert across(blocks) == {"c"}
    assert across(blocks) == dominated_variables(_ir(blocks))


def test_read_in_an_unreachable_block():
    blocks = {0: block(assign(ONE, "a"), assign(ONE, "r"), ret()),
              10: block(use("a"), assign(ONE, "r"), ret())}
    assert "a" not in across(blocks)


def test_without_across_blocks_it_is_numbas_set():
    blocks = {0: block(assign(ONE, "a"), assign(ONE, "c"), branch("c", 10, 20)),
              10: block(use("a"), jump(20)),
              20: block(use("a"), assign(ONE, "r"), ret())}
    assert "a" not in local_variables.singly_assigned_variables(blocks)


def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] + 1


SIG = void(float32[::1], float32[::1])
#: a stack slot of a variable, named after it (the kernel wrapper's slot is numbered)
_VARIABLE_SLOT = re.compile(r'%"[A-Za-z_][\w.$]*" = alloca')


def _ir_texts(cuda, monkeypatch, **options):
    texts, _ptx = nvvm_inputs(cuda, monkeypatch, add_one, SIG, False, cc=(9, 0), **options)
    return "\n".join(texts)


def test_arguments_and_grid_index_have_no_stack_slot(cuda, monkeypatch):
    text = _ir_texts(cuda, monkeypatch)
    assert not _VARIABLE_SLOT.search(text), _VARIABLE_SLOT.findall(text)
    monkeypatch.setattr(local_variables, "ACROSS_BLOCKS", False)
    slots = _ir_texts(cuda, monkeypatch)
    assert '%"a" = alloca' in slots and '%"i" = alloca' in slots


def test_debug_info_keeps_the_slots(cuda, monkeypatch):
    text = _ir_texts(cuda, monkeypatch, debug=True, opt=False)
    assert '%"a" = alloca' in text and '%"i" = alloca' in text
    assert "DILocalVariable(" in text


def test_line_info_keeps_no_slot(cuda, monkeypatch):
    text = _ir_texts(cuda, monkeypatch, lineinfo=True)
    assert not _VARIABLE_SLOT.search(text), _VARIABLE_SLOT.findall(text)
    assert "!DILocation" in text


# ---- the PTX over the corpus ---------------------------------------------------------------
_REGISTERS = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores")
CC = (9, 0)


@pytest.fixture(scope="module")
def ptxas():
    from numba_cuda import toolkit

    path = toolkit.ptxas_path()
    if path is None:
        pytest.fail("ptxas was not found by toolkit discovery (install the nvcc wheel of this "
                    "CUDA major)")
    return path


def _ptxas(ptxas, ptx):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run([ptxas, "-v", f"-arch=sm_{CC[0]}{CC[1]}", "-o", os.devnull, src],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    registers = [int(m.group(1)) for m in _REGISTERS.finditer(proc.stderr)]
    spills = sum(int(n) for n in _SPILLS.findall(proc.stderr))
    return registers, spills


def _code(ptx):
    """The PTX without its ``.reg`` declarations (virtual register counts) and with unique
    names masked (each compile of a function gets a new one)."""
    return [UNIQUE.sub("ID", line) for line in ptx.splitlines()
            if not line.lstrip().startswith(".reg")]


@pytest.fixture(scope="module")
def corpus_ptx(cuda):
    """{entry id: (PTX with the slots, PTX without)} over the corpus."""
    out = {}
    for param in CORPUS:
        fn, sig, device = param.values
        name = param.id
        local_variables.ACROSS_BLOCKS = False
        try:
            slots = cuda.compile_ptx(fn, sig, device=device, cc=CC)[0]
        finally:
            local_variables.ACROSS_BLOCKS = True
        out[name] = (slots, cuda.compile_ptx(fn, sig, device=device, cc=CC)[0])
    return out


def test_corpus_needs_no_more_registers_and_mostly_the_same_ptx(corpus_ptx, ptxas):
    same = 0
    for name, (slots, direct) in corpus_ptx.items():
        if _code(slots) == _code(direct):
            same += 1
            continue
        registers, spills = _ptxas(ptxas, direct)
        registers_slots, spills_slots = _ptxas(ptxas, slots)
        assert all(r <= r0 for r, r0 in zip(registers, registers_slots)), (name, registers,
                                                                          registers_slots)
        assert spills <= spills_slots, name
    # libNVVM's optimiser removes the slots again: the code is the same for nearly every entry
    assert same >= 0.9 * len(corpus_ptx), (same, len(corpus_ptx))

"""``pass_manager.StripPhisBeforeLegalization`` (Numba's ``PreLowerStripPhis`` without its closing
post-processing sweep) must hand lowering the same IR as Numba's pass: checked on every corpus
entry and on kernels with closures, inlined overloads and device functions -- the Numba IR that
reaches lowering (statements, ``del`` placement, block entry variables) and the PTX, compared
with the pipeline running Numba's own pass."""

import io
import re

import pytest
from numba import float32, int64, void
from numba.core import ir

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.support.lowering_inputs import assert_same_lowering, compile_recording
from tests.support.ptx_helpers import assemble

CC = (8, 0)


def closure_and_loop(out, k):
    acc = 0.0
    for i in range(out.size):
        acc += (lambda y: y * k)(out[i])
        if acc > 10:
            break
    out[0] = acc


def branches_into_phis(out, n):
    x = 0
    for i in range(n):
        if i % 3 == 0:
            x += i
        elif i % 3 == 1:
            x -= 1
        else:
            continue
    out[0] = x


EXTRA = [
    pytest.param(closure_and_loop, void(float32[::1], float32), False, id="closure_and_loop"),
    pytest.param(branches_into_phis, void(int64[::1], int64), False, id="branches_into_phis"),
]


def _describe(state):
    func_ir = state.func_ir
    text = io.StringIO()
    func_ir.dump(text)
    # an inlined lambda's variables carry a per-process counter (``..._lambda__v2_y``)
    dump = re.sub(r"(_lambda__v)\d+", r"\1N", text.getvalue())
    entry_vars = {label: [re.sub(r"(_lambda__v)\d+", r"\1N", v)
                          for v in sorted(func_ir.get_block_entry_vars(block))]
                  for label, block in func_ir.blocks.items()}
    dels = sum(isinstance(inst, ir.Del) for block in func_ir.blocks.values()
               for inst in block.body)
    return state.func_id.func_qualname, dump, entry_vars, dels, func_ir.generator_info


def _compile(cuda, monkeypatch, fn, sig, device, numbas_pass):
    """``(IR text at lowering of every function compiled, PTX)``."""
    from numba_cuda.compiler import pipeline

    if numbas_pass:
        from numba.core.typed_passes import PreLowerStripPhis

        table = dict(pipeline._WHEN_NEEDED)
        del table[PreLowerStripPhis]
        monkeypatch.setattr(pipeline, "_WHEN_NEEDED", table)
    return compile_recording(cuda, monkeypatch, fn, sig, device, _describe, cc=CC)


@pytest.mark.parametrize("fn,sig,device", CORPUS + EXTRA)
def test_same_ir_reaches_lowering_as_with_numbas_pass(cuda, monkeypatch, fn, sig, device):
    ours, our_ptx = _compile(cuda, monkeypatch, fn, sig, device, numbas_pass=False)
    numbas, numba_ptx = _compile(cuda, monkeypatch, fn, sig, device, numbas_pass=True)
    assert_same_lowering(ours, our_ptx, numbas, numba_ptx)


def test_the_pipeline_runs_the_replacement(cuda):
    from numba.core.typed_passes import PreLowerStripPhis

    from numba_cuda.compiler import pass_manager, pipeline

    names = []
    for cls, _description in pipeline._when_needed([(PreLowerStripPhis, "remove phis nodes")]):
        names.append(cls)
    assert names == [pass_manager.StripPhisBeforeLegalization]


def test_phis_are_stripped(cuda, monkeypatch):
    seen, ptx = _compile(cuda, monkeypatch, branches_into_phis, void(int64[::1], int64), False,
                         numbas_pass=False)
    _name, text, _entry, dels, _gen = seen[-1]
    assert "phi(" not in text
    assert dels > 0  # IRLegalization's sweep (which emits the dels) still ran
    assemble(ptx, CC)


def test_ir_without_phis_gets_copied_blocks_as_numba_does():
    import copy

    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.pass_manager import StripPhisBeforeLegalization, _shallow_copy

    def straight(out):
        out[0] = 1

    func_ir = run_frontend(straight)
    before = dict(func_ir.blocks)
    StripPhisBeforeLegalization()._strip_phi_nodes(func_ir)
    for label, block in func_ir.blocks.items():
        assert block is not before[label] and block.body is not before[label].body
        assert block.body == before[label].body and block.scope is before[label].scope
        assert vars(_shallow_copy(block)).keys() == vars(copy.copy(block)).keys()

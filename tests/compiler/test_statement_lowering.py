"""``CUDALower.lower_block`` and its assignment path (``_lower_assignment``) must emit exactly
what Numba's ``Lower.lower_block``/``lower_inst`` emit: the NVVM IR handed to libNVVM is compared
line by line with the pipeline running Numba's methods, on every corpus entry (with and without
line info) and on kernels using third-party ``@overload``/``@intrinsic`` extensions; and a
lowering error carries Numba's context ('lowering "<statement>" at <location>')."""

import pytest
from numba import int64, types, void
from numba.core import errors
from numba.extending import intrinsic

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.compiler.test_operator_lowering import EXTRA, ir_and_ptx
from tests.support.lowering_inputs import UNIQUE

CC = (8, 0)


def _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods, lineinfo=False):
    from numba.core.lowering import Lower

    numbas = {"lower_block": Lower.lower_block,
              "_lower_assignment": lambda self, inst: Lower.lower_inst(self, inst)}
    return ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas if numbas_methods else None,
                      lineinfo=lineinfo)


@pytest.mark.parametrize("fn,sig,device", CORPUS + EXTRA)
def test_same_ir_as_numbas_statement_lowering(cuda, monkeypatch, fn, sig, device):
    ours, our_ptx = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=False)
    numbas, numba_ptx = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=True)
    assert ours == numbas
    assert UNIQUE.sub("ID", our_ptx) == UNIQUE.sub("ID", numba_ptx)


@pytest.mark.parametrize("fn,sig,device", CORPUS[::5])
def test_same_ir_with_line_info(cuda, monkeypatch, fn, sig, device):
    ours, _ = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=False,
                          lineinfo=True)
    numbas, _ = _ir_and_ptx(cuda, monkeypatch, fn, sig, device, numbas_methods=True,
                            lineinfo=True)
    assert any("!DILocation" in text for text in ours)
    assert ours == numbas


@intrinsic(target="cuda")
def fails_to_lower(typingctx, x):
    def codegen(context, builder, sig, args):
        raise errors.NumbaError("this intrinsic cannot be lowered")

    return types.int64(types.int64), codegen


def broken(a):
    a[0] = fails_to_lower(a[1])


def test_lowering_error_has_numbas_context(cuda, monkeypatch):
    from numba.core.lowering import Lower

    from numba_cuda.compiler import lowering

    with pytest.raises(errors.NumbaError) as ours:
        cuda.compile_ptx(broken, void(int64[::1]), cc=CC)
    monkeypatch.setattr(lowering.CUDALower, "lower_block", Lower.lower_block)
    monkeypatch.setattr(lowering.CUDALower, "_lower_assignment",
                        lambda self, inst: Lower.lower_inst(self, inst))
    with pytest.raises(errors.NumbaError) as numbas:
        cuda.compile_ptx(broken, void(int64[::1]), cc=CC)
    assert "this intrinsic cannot be lowered" in str(ours.value)
    assert 'lowering "' in str(ours.value) and "test_statement_lowering.py" in str(ours.value)
    assert str(ours.value) == str(numbas.value)

"""A kernel wrapper without debug info passes the kernel's flattened arguments straight to the
device function (``CUDATargetContext.build_kernel_wrapper``), instead of Numba's round trip that
rebuilds every value from them and flattens it again.  The PTX is byte for byte what the round
trip gives, for every corpus kernel, with and without error reporting (``boundscheck``), on the
lowest and a recent compute capability; wrappers with debug info keep the round trip (its
instructions carry the kernel's line)."""

import itertools
import re

import pytest
from numba import cuda, types

from numba_cuda.compiler import device_errors
from numba_cuda.compiler.target import cuda_target
from numba_cuda.compiler.target_context import CUDATargetContext
from numba_cuda.dispatch.registration import ensure_registered
from tests.compiler.corpus_compiler import CORPUS

KERNELS = [(name, fn, sig) for name, fn, sig, device in CORPUS if not device]


def _unique_names_removed(ptx):
    # each compile gets a fresh ABI tag in its mangled names (B2v3, B3v17 ...)
    return re.sub(r"B\d+v\d+", "Bv", ptx)


def _all_ptx(cc, boundscheck, monkeypatch):
    # exception codes are process-wide ids: the same ones for both runs
    ids = itertools.count(10_000)
    monkeypatch.setattr(device_errors, "next_exception_id", lambda: next(ids))
    out = {}
    for name, fn, sig in KERNELS:
        if boundscheck:
            (ptx,) = cuda.jit(sig, boundscheck=True)(fn).inspect_asm(cc=cc).values()
        else:
            ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
        out[name] = _unique_names_removed(ptx)
    return out


@pytest.fixture
def fresh_templates(monkeypatch):
    """The target context's wrapper templates emptied, for this test only."""
    ensure_registered()
    context = cuda_target.target_context
    monkeypatch.setitem(vars(context), "_wrapper_templates", {})
    return context


@pytest.mark.parametrize("boundscheck", [False, True], ids=["plain", "boundscheck"])
@pytest.mark.parametrize("cc_kind", ["lowest", "sm_90"])
def test_pass_through_wrapper_gives_the_round_trips_ptx(cuda, fresh_templates, monkeypatch,
                                                         boundscheck, cc_kind, cuda_major):
    cc = ((5, 0) if cuda_major == 12 else (7, 5)) if cc_kind == "lowest" else (9, 0)
    ours = _all_ptx(cc, boundscheck, monkeypatch)
    monkeypatch.setitem(vars(fresh_templates), "_wrapper_templates", {})
    monkeypatch.setattr(CUDATargetContext, "WRAPPER_PASS_THROUGH", False)  # Numba's round trip
    numbas = _all_ptx(cc, boundscheck, monkeypatch)
    assert len(ours) == len(KERNELS) > 30
    different = sorted(name for name in ours if ours[name] != numbas[name])
    assert not different, different


def test_plain_wrapper_rebuilds_no_argument(fresh_templates):
    """The perf property itself: no value is rebuilt (insertvalue) or taken apart again
    (extractvalue) in a wrapper without debug info, for arrays, tuples, records and booleans."""
    argtypes = (types.float32[:, ::1], types.Tuple((types.int32, types.boolean)),
                types.complex64, types.boolean)
    template = fresh_templates.kernel_wrapper_template(argtypes, types.none)
    text = template.render("entry", "callee")
    assert "insertvalue" not in text and "extractvalue" not in text, text
    assert text.count(" = call i32 ") == 1


# ---- the pass-through wrapper's text, written directly (kernel_wrapper.pass_through_text) ----

_OPTIONS = [(None, None), (64, None), (None, (128,)), (32, (128, 4)), (None, (64, 2, 8))]
_EXTRA_SIGNATURES = [
    (),
    (types.float32[:, ::1], types.Tuple((types.int32, types.boolean)), types.complex64,
     types.boolean),
    (types.float16, types.UniTuple(types.float64, 3), types.int8[:, :, :], types.uint64),
    (types.Record.make_c_struct([("x", types.int32), ("y", types.float64)])[::1],),
]


def _signatures():
    sigs = [tuple(sig.args) for _name, _fn, sig in KERNELS]
    return sigs + _EXTRA_SIGNATURES


def _template(context, argtypes, max_registers, launch_bounds, direct, monkeypatch):
    monkeypatch.setattr(CUDATargetContext, "WRAPPER_TEXT_DIRECT", direct)
    monkeypatch.setitem(vars(context), "_wrapper_templates", {})
    return context.kernel_wrapper_template(argtypes, types.none, max_registers, False,
                                           launch_bounds)


def test_direct_wrapper_text_is_what_llvmlite_prints(fresh_templates, monkeypatch):
    """Byte for byte the text of the module built with ``llvmlite.ir`` and printed, for every
    corpus kernel's signature and a few more (records, float16, tuples, no argument), with and
    without ``max_registers`` and ``launch_bounds``."""
    compared = 0
    for argtypes in _signatures():
        for max_registers, launch_bounds in _OPTIONS:
            direct = _template(fresh_templates, argtypes, max_registers, launch_bounds, True,
                               monkeypatch)
            built = _template(fresh_templates, argtypes, max_registers, launch_bounds, False,
                              monkeypatch)
            assert direct.render("k", "f") == built.render("k", "f"), (argtypes, max_registers,
                                                                      launch_bounds)
            assert direct.ll_args == built.ll_args
            compared += 1
    assert compared > 150


def test_direct_wrapper_text_covers_every_corpus_signature(fresh_templates):
    """The direct writer answers (no fallback to building) for every corpus kernel."""
    from numba_cuda.compiler import kernel_wrapper, nvvm

    for argtypes in _signatures():
        ll_args = list(fresh_templates.get_arg_packer(argtypes).argument_types)
        callee = fresh_templates.call_conv.get_function_type(types.none, argtypes)
        text = kernel_wrapper.pass_through_text(
            ll_args, callee, triple=nvvm.TRIPLE, data_layout=nvvm.DATA_LAYOUT,
            ir_version=nvvm.ir_version())
        assert text is not None, argtypes


def test_direct_wrapper_text_declines_what_it_cannot_write():
    """A named struct type (llvmlite defines it at the top of the module), a return slot that is
    not a pointer, or a callee whose parameters are not the kernel's: None, and the caller builds
    the module instead."""
    from llvmlite import ir

    from numba_cuda.compiler import kernel_wrapper

    i32, i8p = ir.IntType(32), ir.IntType(8).as_pointer()
    # (a context of its own: a type named in llvmlite's global context is printed by every
    # module built later)
    named = ir.Context().get_identified_type("numba_cuda_test_named")
    named.set_body(i32, i32)
    kwargs = dict(triple="t", data_layout="d", ir_version=(2, 0, 3, 2))
    ok = kernel_wrapper.pass_through_text([i32], ir.FunctionType(i32, [i8p.as_pointer(), i32]),
                                          **kwargs)
    assert ok is not None and 'call i32 @"\x01callee\x01"' in ok
    assert kernel_wrapper.pass_through_text(
        [named.as_pointer()], ir.FunctionType(i32, [i8p.as_pointer(), named.as_pointer()]),
        **kwargs) is None
    assert kernel_wrapper.pass_through_text(
        [i32], ir.FunctionType(i32, [i32.as_pointer(), i32]), **kwargs) is None
    assert kernel_wrapper.pass_through_text(
        [i32], ir.FunctionType(i32, [i8p.as_pointer(), ir.IntType(64)]), **kwargs) is None

"""A kernel wrapper without debug info passes the kernel's flattened arguments straight to the
device function (``CUDATargetContext.build_kernel_wrapper``), instead of Numba's round trip that
rebuilds every value from them and flattens it again.  The PTX is byte for byte what the round
trip gives, for every corpus kernel, with and without error reporting (``boundscheck``), on the
lowest and a recent compute capability; wrappers with debug info keep the round trip (its
instructions carry the kernel's line)."""

import itertools
import re

import pytest
from llvmlite import ir
from numba import cuda, types

from numba_cuda.compiler import device_errors, kernel_wrapper, nvvmir
from numba_cuda.compiler.target import cuda_target
from numba_cuda.compiler.target_context import CUDATargetContext
from numba_cuda.dispatch.registration import ensure_registered
from tests.compiler.corpus_compiler import CORPUS

KERNELS = [(name, fn, sig) for name, fn, sig, device in CORPUS if not device]


def _round_trip_wrapper(self, argtypes, restype, entry_name, callee_name, max_registers=None,
                        report_errors=False, debug_location=None, fndesc=None,
                        launch_bounds=None):
    """Numba's kernel wrapper (no debug info): every argument rebuilt from the flattened
    parameters (``from_argument``), then flattened again by the call (``as_argument``)."""
    assert debug_location is None
    packer = self.get_arg_packer(argtypes)
    ll_args = list(packer.argument_types)
    module = self.create_module(kernel_wrapper.module_name(entry_name))
    wrapper = ir.Function(module, ir.FunctionType(ir.VoidType(), ll_args), entry_name)
    builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
    callee = ir.Function(module, self.call_conv.get_function_type(restype, argtypes), callee_name)
    values = packer.from_arguments(builder, wrapper.args)
    status, _ = self.call_conv.call_function(builder, callee, restype, argtypes, values)
    keep = ()
    if report_errors:
        record = device_errors.define_error_record(module, entry_name)
        device_errors.emit_error_check(builder, status, record)
        keep = (record,)
    builder.ret_void()
    nvvmir.mark_kernel(module, wrapper, max_registers, keep=keep, launch_bounds=launch_bounds)
    return module, ll_args


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
            ptx = cuda.jit(sig, boundscheck=True)(fn).inspect_asm(cc=cc)
            ptx = next(iter(ptx.values())) if isinstance(ptx, dict) else ptx
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
    monkeypatch.setattr(CUDATargetContext, "build_kernel_wrapper", _round_trip_wrapper)
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

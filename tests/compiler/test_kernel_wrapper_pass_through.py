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

"""The CUDA pass manager and the Numba passes it runs only when the IR needs them."""

from functools import reduce

import numpy as np
import pytest
from numba import float32, from_dtype, int64, void
from numba.core import event

from tests.support.ptx_helpers import assemble

CC = (8, 0)


def closure_kernel(out, k):
    i = 0

    def scale(x):
        return x * k

    while i < out.size:
        out[i] = scale(out[i]) + (lambda y: y + 1)(i)
        i += 1


def reduce_kernel(out, a, b, c):
    # the bare name, as Numba's inliner recognises it (``functools.reduce`` is not inlined)
    out[0] = reduce(lambda x, y: x * y, (a, b, c))


def plain_kernel(out):
    i = 0
    while i < out.size:
        out[i] = out[i] * 2
        i += 1


RECORD = from_dtype(np.dtype([("y", np.int64), ("x", np.float32)], align=True))


def field(rec, key):
    return rec[key]


def record_field_through_device_function(cuda_module):
    # In ``field`` the key is an argument: typed as a string literal (Numba retries the call
    # with literal types), so only the post-inference rewrite turns ``rec[key]`` into the
    # static_getitem that lowering needs.
    dev = cuda_module.jit(device=True)(field)

    def kernel(recs, out):
        out[0] = dev(recs[0], "y")

    return kernel, dev


def untyped_ir(fn):
    from numba.core.compiler import run_frontend

    return run_frontend(fn)


def test_closures_and_lambdas_are_still_inlined(cuda):
    from numba_cuda.compiler.pass_manager import closure_likes_present

    assert closure_likes_present(untyped_ir(closure_kernel))
    ptx, _ = cuda.compile_ptx(closure_kernel, void(float32[::1], float32), cc=CC)
    assemble(ptx, CC)


def test_functools_reduce_is_still_inlined(cuda):
    from numba_cuda.compiler.pass_manager import closure_likes_present

    assert closure_likes_present(untyped_ir(reduce_kernel))
    ptx, _ = cuda.compile_ptx(reduce_kernel, void(int64[::1], int64, int64, int64), cc=CC)
    assemble(ptx, CC)
    assert "mul.lo.s64" in ptx


def test_plain_kernel_needs_no_closure_inlining(cuda):
    from numba_cuda.compiler.pass_manager import closure_likes_present

    assert not closure_likes_present(untyped_ir(plain_kernel))


def test_string_literal_index_is_rewritten_after_typing(cuda):
    kernel, _ = record_field_through_device_function(cuda)
    ptx, _ = cuda.compile_ptx(kernel, void(RECORD[::1], int64[::1]), cc=CC)
    assemble(ptx, CC)


def _rewrite_answers(cuda_module, fn, sig):
    """``{function name: post_inference_rewrites_apply answer}`` for every function compiled
    while compiling ``fn`` (device functions included)."""
    from numba_cuda.compiler import pass_manager

    seen = {}
    original = pass_manager.post_inference_rewrites_apply

    def spy(state):
        answer = original(state)
        seen[state.func_id.func_name] = answer
        return answer

    pass_manager.post_inference_rewrites_apply = spy
    try:
        cuda_module.compile_ptx(fn, sig, cc=CC)
    finally:
        pass_manager.post_inference_rewrites_apply = original
    return seen


def test_post_inference_rewrites_judged_per_function(cuda):
    assert _rewrite_answers(cuda, plain_kernel, void(float32[::1])) == {"plain_kernel": False}
    kernel, _ = record_field_through_device_function(cuda)
    answers = _rewrite_answers(cuda, kernel, void(RECORD[::1], int64[::1]))
    assert answers["kernel"] is False
    assert answers["field"] is True


def test_unknown_post_inference_rewrite_always_runs(cuda):
    from numba.core.rewrites import Rewrite, rewrite_registry

    calls = []

    class CountingRewrite(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            calls.append(block)
            return False

    rewrite_registry.rewrites["after-inference"].append(CountingRewrite)
    try:
        cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    finally:
        rewrite_registry.rewrites["after-inference"].remove(CountingRewrite)
    assert calls, "a third-party post-inference rewrite was never offered the IR"


def test_run_pass_listeners_still_get_every_pass(cuda):
    from numba_cuda.compiler.pass_manager import _run_pass_has_listeners

    assert not _run_pass_has_listeners()  # the quiet path is the one normally taken
    with event.install_recorder("numba:run_pass") as recorder:
        assert _run_pass_has_listeners()
        cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    names = [ev.data["name"].split(" ")[0] for _, ev in recorder.buffer if ev.is_start]
    assert "nopython_type_inference" in names
    assert "cuda_native_lowering" in names


def test_pipeline_times_are_recorded(cuda):
    from numba_cuda.compiler.pipeline import CompileOptions, compile_cuda

    def body(out):
        out[0] = 1.0

    cres = compile_cuda(body, None, (float32[::1],), CompileOptions())
    times = cres.metadata["pipeline_times"]["cuda"]
    assert any(key.endswith("_nopython_type_inference") for key in times)
    assert all(t.run >= 0 for t in times.values())


def test_errors_still_name_the_pipeline_step(cuda):
    from numba.core.errors import TypingError

    def bad(out):
        out[0] = undefined_name  # noqa: F821

    with pytest.raises(TypingError, match=r"Failed in cuda mode pipeline \(step: "):
        cuda.compile_ptx(bad, void(float32[::1]), cc=CC)


def test_numba_internals_missing_means_numbas_own_path(cuda, monkeypatch):
    from numba_cuda.compiler import pass_manager

    quiet = []
    original = pass_manager.CUDAPassManager._run_pass_quietly

    def spy(self, *args):
        quiet.append(args)
        return original(self, *args)

    monkeypatch.setattr(pass_manager.CUDAPassManager, "_run_pass_quietly", spy)
    cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    assert quiet
    quiet.clear()
    monkeypatch.setattr(pass_manager, "_NUMBA_INTERNALS",
                        pass_manager._NUMBA_INTERNALS + ("_renamed_in_a_future_numba",))
    ptx, _ = cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    assert quiet == [] and ".entry" in ptx


def test_errors_carry_the_pass_context(cuda):
    from numba.core.errors import TypingError

    def bad(out):
        out[0] = undefined_name  # noqa: F821

    with pytest.raises(TypingError, match=r"During: Pass nopython_type_inference"):
        cuda.compile_ptx(bad, void(float32[::1]), cc=CC)


def test_the_held_compiler_lock_is_not_re_entered_per_pass(cuda, monkeypatch):
    from numba_cuda.compiler import pass_manager

    answers = []
    original = pass_manager._lock_already_held

    def spy():
        answers.append(original())
        return answers[-1]

    monkeypatch.setattr(pass_manager, "_lock_already_held", spy)
    cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    assert answers and all(answers)  # compile_cuda holds the lock for the whole pipeline


def test_compiler_lock_listeners_still_see_every_pass_take_the_lock(cuda):
    with event.install_recorder("numba:compiler_lock") as recorder:
        cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    starts = sum(1 for _, ev in recorder.buffer if ev.is_start)
    assert starts > 20  # once for the compile, once per pass (as Numba's pass manager does)


# ---- the pass list, built once per key ----------------------------------------------------------
def _compiler(flag_values=()):
    from numba.core import types

    from numba_cuda.compiler.pipeline import CompileOptions, CUDACompiler, make_flags
    from numba_cuda.compiler.target import cuda_target
    from numba_cuda.dispatch.registration import ensure_registered

    ensure_registered()
    flags = make_flags(CompileOptions())
    for name, value in flag_values:
        setattr(flags, name, value)
    return CUDACompiler(cuda_target.typing_context, cuda_target.target_context, None,
                        (types.int64,), None, flags, {})


FLAG_COMBINATIONS = [(), (("no_rewrites", True),), (("enable_ssa", False),),
                     (("no_rewrites", True), ("enable_ssa", False)), (("auto_parallel", True),)]


@pytest.mark.parametrize("flag_values", FLAG_COMBINATIONS)
@pytest.mark.parametrize("with_ir", [False, True])
def test_pipeline_passes_are_those_numbas_builders_give(flag_values, with_ir):
    """The pass manager ``define_pipelines`` returns holds the passes built from Numba's
    builders for that state (every time), with Numba's own dependency analysis of them."""
    from numba.core.compiler_machinery import PassManager

    from numba_cuda.compiler import pipeline

    for _ in range(2):
        compiler = _compiler(flag_values)
        if with_ir:
            compiler.state.func_ir = untyped_ir(plain_kernel)
        [pm] = compiler.define_pipelines()
        assert pm.finalized
        assert tuple(pm.passes) == pipeline.build_pipeline_passes(compiler.state)
        numbas = PassManager("numba")
        numbas.passes = list(pm.passes)
        assert pm._analysis == numbas.dependency_analysis()
    names = [cls.name() for cls, _description in pm.passes]  # (replacements keep Numba's names)
    assert ("translate_bytecode" in names) == (not with_ir)
    assert ("reconstruct_ssa" in names) == (dict(flag_values).get("enable_ssa", True))


def test_pipeline_passes_differ_per_key():
    from numba_cuda.compiler import pipeline

    lists = {pipeline.build_pipeline_passes(_compiler(values).state) for values in FLAG_COMBINATIONS}
    keys = {pipeline.pipeline_key(_compiler(values).state) for values in FLAG_COMBINATIONS}
    assert len(lists) == len(keys) == len(FLAG_COMBINATIONS)


def test_numbas_builders_read_only_the_key(monkeypatch):
    """``pipeline_key`` covers all Numba's builders read of the state: whether the IR exists
    and the flags in ``PIPELINE_FLAGS``."""
    from numba.core.compiler import DefaultPassBuilder

    from numba_cuda.compiler import pipeline

    state = _compiler().state
    read = set()

    class Recording:
        def __init__(self, wrapped, prefix):
            object.__setattr__(self, "_wrapped", wrapped)
            object.__setattr__(self, "_prefix", prefix)

        def __getattr__(self, name):
            read.add(self._prefix + name)
            value = getattr(self._wrapped, name)
            return Recording(value, f"{self._prefix}{name}.") if name == "flags" else value

        def __getitem__(self, name):
            return self.__getattr__(name)

    recording = Recording(state, "")
    DefaultPassBuilder.define_untyped_pipeline(recording)
    DefaultPassBuilder.define_typed_pipeline(recording)
    flags_read = {name.split(".")[1] for name in read if name.startswith("flags.")}
    assert read - {"flags"} - {f"flags.{name}" for name in flags_read} <= {"func_ir"}
    assert flags_read <= set(pipeline.PIPELINE_FLAGS)


def test_pipeline_is_built_once_per_key(monkeypatch, cuda):
    from numba.core.compiler import DefaultPassBuilder

    from numba_cuda.compiler import pipeline

    calls = []
    original = DefaultPassBuilder.define_untyped_pipeline

    def counting(state, name="untyped"):
        calls.append(name)
        return original(state, name)

    monkeypatch.setattr(DefaultPassBuilder, "define_untyped_pipeline", staticmethod(counting))
    for _ in range(3):
        cuda.compile_ptx(plain_kernel, void(float32[::1]), cc=CC)
    assert calls == ["untyped"]
    assert any(key[4] is counting for key in pipeline._PIPELINE_PASSES)


def slicing_kernel(out, a):
    b = a[1:]
    c = a.T
    out[0] = b[0] + c[1]


def test_slices_and_attributes_are_no_array_expressions(cuda):
    sig = void(float32[::1], float32[::1])
    assert _rewrite_answers(cuda, slicing_kernel, sig) == {"slicing_kernel": False}



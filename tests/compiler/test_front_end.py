"""``compiler.front_end``: Numba's untyped passes without the work nobody reads in the CUDA
pipeline must hand lowering the same IR as Numba's own passes, and fail the same way.

Checked on every corpus entry and on kernels exercising what the skipped work is about
(closures, ``literal_unroll``, with-blocks, ``try``/``raise``, dead branches, loops with several
back edges, star-args calls, ``print``, generators ...): the Numba IR that reaches lowering
(statements, types, ``del`` placement, block entry variables), the PTX, and every error
(class, message, location)."""

import io
import re
from functools import reduce

import numpy as np
import pytest
from numba import float32, float64, int32, int64, literal_unroll, njit, types, void
from numba.core import bytecode, ir
from numba.core.interpreter import Interpreter

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.support.lowering_inputs import assert_same_lowering, compile_recording, normalised_ptx

CC = (8, 0)


# ---- kernels exercising the front end ----------------------------------------------------------
def closure_and_lambda(out, k):
    def scale(x):
        return x * k

    for i in range(out.size):
        out[i] = scale(out[i]) + (lambda y: y + 1)(i)


def unrolled_tuple(out, t):
    acc = 0.0
    for v in literal_unroll(t):
        acc += v
    out[0] = acc


UNROLLED_SIG = void(float64[::1], types.Tuple((int32, float64, int64)))


def dead_branches(out, flag):
    if flag is None:
        out[0] = 1
    else:
        out[0] = 2
    if 3 > 4:
        out[1] = 5
    n = len((1, 2, 3))
    if n == 3:
        out[2] = 7


def several_back_edges(out, n):
    i = 0
    acc = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i % 5 == 0:
            acc -= 1
            continue
        acc += i
    out[0] = acc


def constant_raise(out, n):
    if n < 0:
        raise ValueError("negative", 3)
    if n > 100:
        raise IndexError
    out[0] = n


def _add3(a, b, c):
    return a + b + c


add3 = njit(_add3)


def star_args(out, t):
    u = (*t, 1)
    out[0] = add3(*t) + u[3]


def static_getitem_and_power(out, a):
    out[0] = a[0] ** 2 + a[1] ** 0.5
    out[1] = a[-1]
    a[2] = out[0]


def printing(out, n):
    print("n is", n, 1.5)
    out[0] = n


@njit(inline="always")
def _inlined(x):
    return x * 3 if x > 0 else -x


def inlines_inlinable(out, n):
    out[0] = _inlined(n) + _inlined(-n)


def uses_isinstance(out, x):
    if isinstance(x, int):
        out[0] = 1
    out[1] = x


def reduces(out, a, b, c):
    out[0] = reduce(lambda x, y: x * y, (a, b, c))


def nested_loops_with_breaks(out, n):
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 7 == 0:
                continue
            out[0] += i * j
        else:
            out[1] += 1


EXTRA = [
    pytest.param(closure_and_lambda, void(float32[::1], float32), False, id="closure_and_lambda"),
    pytest.param(dead_branches, void(int64[::1], types.none), False, id="dead_branches"),
    pytest.param(several_back_edges, void(int64[::1], int64), False, id="several_back_edges"),
    pytest.param(constant_raise, void(int64[::1], int64), False, id="constant_raise"),
    pytest.param(star_args, void(int64[::1], types.UniTuple(int64, 3)), False, id="star_args"),
    pytest.param(static_getitem_and_power, void(float64[::1], float64[::1]), False,
                 id="static_getitem_and_power"),
    pytest.param(printing, void(int64[::1], int64), False, id="print"),
    pytest.param(inlines_inlinable, void(int64[::1], int64), False, id="inline_always"),
    pytest.param(uses_isinstance, void(int64[::1], int64), False, id="isinstance"),
    pytest.param(reduces, void(int64[::1], int64, int64, int64), False, id="functools_reduce"),
    pytest.param(nested_loops_with_breaks, void(int64[::1], int64), False, id="nested_loops"),
]


# ---- helpers ------------------------------------------------------------------------------------
def _numbas_table():
    """The pipeline's table of replaced passes, emptied: every pass is Numba's own (the front
    end's replacements and pass_manager's passes run when needed alike)."""
    return {}


def _stable(text):
    # an inlined function's, lambda's or closure's variables carry a per-process counter
    return re.sub(r" at 0x[0-9a-f]+", " at 0x", re.sub(r"_v\d+(?=_)", "_vN", text))


def _relabelled(text, labels):
    """Block labels made by inlining and unrolling come from a per-process counter: number
    the blocks in order instead."""
    def label(match):
        return f"L{labels[int(match.group(0))]}"

    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("label ", "jump ", "branch ")):
            head, _, tail = line.partition("[")
            line = re.sub(r"(?<![\w$.])\d+(?![\w.])", label, " ".join(head.split())) + (" " + _ + tail if _ else "")
        out.append(line)
    return "\n".join(out)


def _describe(state):
    func_ir = state.func_ir
    text = io.StringIO()
    func_ir.dump(text)
    labels = {label: n for n, label in enumerate(sorted(func_ir.blocks))}
    entry_vars = {labels[label]: sorted(_stable(v) for v in func_ir.get_block_entry_vars(block))
                  for label, block in func_ir.blocks.items()}
    typemap = sorted((_stable(k), str(v)) for k, v in state.typemap.items())
    calltypes = sorted(str(v) for v in state.calltypes.values())
    return (state.func_id.func_qualname, _relabelled(_stable(text.getvalue()), labels),
            entry_vars, typemap, calltypes, func_ir.generator_info,
            sorted(_stable(k) for k in func_ir._definitions))


def _compile(cuda, monkeypatch, fn, sig, device, numbas_passes):
    """``(what every function compiled looked like at lowering, PTX)``."""
    from numba_cuda.compiler import pipeline

    if numbas_passes:
        monkeypatch.setattr(pipeline, "_WHEN_NEEDED", _numbas_table())
    return compile_recording(cuda, monkeypatch, fn, sig, device, _describe, cc=CC)


@pytest.mark.parametrize("fn,sig,device", CORPUS + EXTRA)
def test_same_ir_reaches_lowering_as_with_numbas_passes(cuda, monkeypatch, fn, sig, device):
    ours, our_ptx = _compile(cuda, monkeypatch, fn, sig, device, numbas_passes=False)
    numbas, numba_ptx = _compile(cuda, monkeypatch, fn, sig, device, numbas_passes=True)
    assert_same_lowering(ours, our_ptx, numbas, numba_ptx)


def test_literal_unroll_same_ir_in_fresh_processes(run_python):
    # the unroller's variable versions depend on what the process compiled before: compare
    # the first compile of a process with either pipeline
    code = """
        import pytest
        from numba import cuda
        from tests.compiler import test_front_end as t
        fn, sig = t.unrolled_tuple, t.UNROLLED_SIG
        seen, ptx = t._compile(cuda, pytest.MonkeyPatch(), fn, sig, False, NUMBAS)
        # (the kernel's function: subroutines its lowering compiles are recorded too)
        (mine,) = [s for s in seen if s[0].endswith("unrolled_tuple")]
        print(repr((mine, sorted(t.normalised_ptx(ptx).items()))))
    """
    outputs = []
    for numbas in (False, True):
        done = run_python(code.replace("NUMBAS", str(numbas)), timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append(_stable(done.stdout))
    assert outputs[0] == outputs[1]
    assert "literal_unroll" in outputs[0] or "$38for_iter" in outputs[0]


# ---- errors ------------------------------------------------------------------------------------
def array_expression(out, a, b):
    out[:] = a + b


def raise_runtime_value(out, n):
    raise ValueError(n)


def print_with_keywords(out):
    print(1, sep="")


def try_except(out):
    try:
        out[0] = 1
    except Exception:
        out[0] = 2


def with_block(out):
    with np.errstate():
        out[0] = 1


def generator_like(out):
    yield 1


def list_literal(out):
    x = [1, 2, 3]
    out[0] = x[0]


def fstring(out, n):
    s = f"{n}"
    out[0] = len(s)


def kwargs_call(out, n):
    out[0] = add3(**{"a": n, "b": 1, "c": 2})


def undefined_name(out):
    out[0] = undefined  # noqa: F821


def big_dict(out):
    n = out[0]
    d = {"a": n, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10,
         "k": 11, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 17, "r": n}
    out[0] = d["a"]


def unsupported_raise_string(out):
    raise "no"


FAILING = [
    (array_expression, void(float64[::1], float64[::1], float64[::1])),
    (raise_runtime_value, void(int64[::1], int64)),
    (print_with_keywords, void(int64[::1])),
    (try_except, void(int64[::1])),
    (with_block, void(int64[::1])),
    (generator_like, void(int64[::1])),
    (list_literal, void(int64[::1])),
    (fstring, void(int64[::1], int64)),
    (kwargs_call, void(int64[::1], int64)),
    (undefined_name, void(int64[::1])),
    (big_dict, void(int64[::1])),
    (unsupported_raise_string, void(int64[::1])),
]


def _error(cuda, fn, sig):
    try:
        cuda.compile_ptx(fn, sig, cc=CC)
    except Exception as exc:  # noqa: BLE001 - compared, whatever it is
        # (Numba indents a typing error's candidate list by how often it was reported before)
        return type(exc), re.sub(r"\n[ \t]+", "\n", _stable(str(exc)))
    return None


@pytest.mark.parametrize("fn,sig", FAILING, ids=[fn.__name__ for fn, _ in FAILING])
def test_errors_are_the_same_as_with_numbas_passes(cuda, monkeypatch, fn, sig):
    from numba_cuda.compiler import pipeline

    ours = _error(cuda, fn, sig)
    monkeypatch.setattr(pipeline, "_WHEN_NEEDED", _numbas_table())
    numbas = _error(cuda, fn, sig)
    assert ours == numbas
    if fn is not raise_runtime_value:  # (a runtime exception: Numba compiles it)
        assert ours is not None, f"{fn.__name__} compiled"


# ---- bytecode translation ----------------------------------------------------------------------
def _dump(func_ir):
    text = io.StringIO()
    func_ir.dump(text)
    return text.getvalue(), sorted(func_ir._definitions)


def _interpret(fn, interpreter):
    func_id = bytecode.FunctionIdentity.from_function(fn)
    return interpreter(func_id).interpret(bytecode.ByteCode(func_id))


def _interpreted_or_error(fn, interpreter):
    try:
        return _dump(_interpret(fn, interpreter))
    except Exception as exc:  # noqa: BLE001 - compared, whatever it is
        return type(exc), str(exc)


class BeforePeepholes(Interpreter):
    def post_process(self, peepholes, func_ir):
        return func_ir


INTERPRETED = [entry.values[0] for entry in CORPUS] + [
    closure_and_lambda, unrolled_tuple, star_args, printing, with_block, try_except,
    kwargs_call, big_dict, list_literal, fstring, generator_like, nested_loops_with_breaks,
]


@pytest.mark.parametrize("fn", INTERPRETED, ids=[f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}" for fn in INTERPRETED])
def test_interpreter_makes_the_same_ir(fn):
    from numba_cuda.compiler.front_end import CUDAInterpreter

    assert _interpreted_or_error(fn, CUDAInterpreter) == _interpreted_or_error(fn, Interpreter)


def test_peepholes_run_only_for_their_idioms():
    from numba.core import interpreter

    from numba_cuda.compiler import front_end

    def plain(out):
        out[0] = 1

    def triggers(fn):
        found = front_end.peephole_triggers(_interpret(fn, BeforePeepholes))
        return {peep.__name__ for peep, needed in found.items() if needed}

    assert triggers(plain) == set()
    assert triggers(several_back_edges) == set()
    assert triggers(star_args) == {"peep_hole_list_to_tuple",
                                   "peep_hole_call_function_ex_to_call_function_kw"}
    assert triggers(with_block) == {"peep_hole_delete_with_exit", "peep_hole_split_at_pop_block"}
    assert triggers(big_dict) == {"peep_hole_fuse_dict_add_updates"}
    del interpreter


def test_the_pipeline_runs_the_replacements(cuda, monkeypatch):
    from numba_cuda.compiler import front_end, pipeline

    names = []
    original = pipeline.CUDAPassManager._run_pass_quietly

    def spy(self, index, pss, state):
        names.append(type(pss))
        return original(self, index, pss, state)

    monkeypatch.setattr(pipeline.CUDAPassManager, "_run_pass_quietly", spy)
    cuda.compile_ptx(several_back_edges, void(int64[::1], int64), cc=CC)
    for replacement in front_end.REPLACEMENTS.values():
        assert replacement in names
    for numbas in front_end.REPLACEMENTS:
        assert numbas not in names


def test_light_sweep_leaves_lifetimes_to_the_last_sweep(cuda):
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler import front_end
    from numba_cuda.compiler.target import CUDAFlags

    func_ir = run_frontend(several_back_edges)
    before = len(func_ir.blocks)
    front_end.light_post_process(func_ir, CUDAFlags())
    assert isinstance(func_ir.variable_lifetime, front_end.postproc.VariableLifetime)
    # nothing computed yet (the eager sweep fills cfg, usedefs, livemap and deadmaps)
    assert "usedefs" not in vars(func_ir.variable_lifetime)
    assert len(func_ir.blocks) >= before
    for block in func_ir.blocks.values():
        assert isinstance(block, ir.Block)


@pytest.mark.parametrize("fn", INTERPRETED[:60], ids=[fn.__name__ for fn in INTERPRETED[:60]])
def test_variable_names_are_listed_as_numba_lists_them(fn):
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.front_end import var_names

    try:
        func_ir = run_frontend(fn)
    except Exception:  # noqa: BLE001 - what Numba cannot translate has nothing to list
        pytest.skip("not translatable")
    count = 0
    for block in func_ir.blocks.values():
        for stmt in block.body:
            assert var_names(stmt) == [v.name for v in stmt.list_vars()]
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Inst):
                assert var_names(stmt.value) == [v.name for v in stmt.value.list_vars()]
            count += 1
    assert count


def test_names_of_statements_with_their_own_list_vars():
    from numba_cuda.compiler.front_end import var_names

    loc = ir.Loc("f.py", 1)
    scope = ir.Scope(None, loc)
    a, b = scope.define("a", loc), scope.define("b", loc)
    yielded = ir.Yield(a, loc, 0)
    nested = ir.Expr.build_tuple([a, (b, [a]), {"k": b}], loc)
    for inst in (yielded, nested, ir.Assign(nested, b, loc), ir.Print((a, b), None, loc),
                 ir.SetItem(a, b, a, loc), ir.Branch(a, 1, 2, loc), ir.Del("a", loc),
                 ir.Return(b, loc), ir.StaticRaise(ValueError, ("x",), loc)):
        assert var_names(inst) == [v.name for v in inst.list_vars()]


@pytest.mark.parametrize("fn", INTERPRETED[:60], ids=[fn.__name__ for fn in INTERPRETED[:60]])
def test_ssa_violators_are_numbas(fn):
    from numba.core import ssa
    from numba.core.analysis import compute_cfg_from_blocks
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.front_end import _find_defs_violators

    try:
        func_ir = run_frontend(fn)
    except Exception:  # noqa: BLE001 - what Numba cannot translate has nothing to check
        pytest.skip("not translatable")
    cfg = compute_cfg_from_blocks(func_ir.blocks)
    assert list(_find_defs_violators(func_ir.blocks, cfg)) == list(
        ssa._find_defs_violators(func_ir.blocks, cfg))


def test_with_lifting_runs_only_for_with_blocks(cuda, monkeypatch):
    from numba.core.untyped_passes import WithLifting

    calls = []
    original = WithLifting.run_pass

    def spy(self, state):
        calls.append(state.func_id.func_name)
        return original(self, state)

    monkeypatch.setattr(WithLifting, "run_pass", spy)
    cuda.compile_ptx(several_back_edges, void(int64[::1], int64), cc=CC)
    assert calls == []
    with pytest.raises(Exception):  # noqa: B017 - the error itself is compared above
        cuda.compile_ptx(with_block, void(int64[::1]), cc=CC)
    assert calls == ["with_block"]


def test_dels_are_still_refused_after_a_function_pass():
    from numba.core.errors import CompilerError

    from numba_cuda.compiler.pass_manager import _enforce_no_dels

    func_ir = _interpret(several_back_edges, Interpreter)
    _enforce_no_dels(func_ir)
    block = next(iter(func_ir.blocks.values()))
    block.body.insert(0, ir.Del("n", loc=block.loc))
    with pytest.raises(CompilerError, match="Illegal IR, del found at: del n"):
        _enforce_no_dels(func_ir)


def test_cfg_canonicalisation_is_numbas(cuda):
    from numba.core import transforms
    from numba.core.analysis import compute_cfg_from_blocks
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.front_end import _canonicalize_cfg

    kinds = set()
    for fn in (several_back_edges, nested_loops_with_breaks, closure_and_lambda):
        func_ir = _interpret(fn, Interpreter)
        ours, cfg = _canonicalize_cfg(func_ir.blocks)
        kinds.add(cfg is None)
        numbas = transforms.canonicalize_cfg(func_ir.blocks)
        assert sorted(ours) == sorted(numbas)
        assert all([str(x) for x in ours[k].body] == [str(x) for x in numbas[k].body]
                   for k in ours)
        if cfg is not None:
            assert cfg == compute_cfg_from_blocks(numbas)
    assert kinds == {True, False}  # loops with several back edges, and without
    del run_frontend


@pytest.mark.parametrize("fn", INTERPRETED, ids=[fn.__name__ for fn in INTERPRETED])
def test_flow_is_numbas(fn):
    from numba.core.byteflow import Flow

    from numba_cuda.compiler.front_end import CUDAFlow

    def flow(cls):
        func_id = bytecode.FunctionIdentity.from_function(fn)
        result = cls(bytecode.ByteCode(func_id))
        try:
            result.run()
        except Exception as exc:  # noqa: BLE001 - compared, whatever it is
            return type(exc), str(exc)
        return (sorted((k, repr(v)) for k, v in result.block_infos.items()),
                repr(result.cfgraph._succs))

    assert flow(CUDAFlow) == flow(Flow)


# ---- overload inlining ----------------------------------------------------------------------------
def _clamp01(x):
    raise NotImplementedError


def _overload_clamp01():
    from numba.extending import overload

    @overload(_clamp01, target="cuda", inline="always")
    def impl(x):
        def body(x):
            return min(max(x, 0.0), 1.0)

        return body


_overload_clamp01()


def uses_inline_overload(out, x):
    out[0] = _clamp01(x) + _clamp01(x * 2.0)


def test_inline_overloads_same_ir_as_numbas(cuda, monkeypatch):
    sig = void(float64[::1], float64)
    ours, our_ptx = _compile(cuda, monkeypatch, uses_inline_overload, sig, False, False)
    numbas, numba_ptx = _compile(cuda, monkeypatch, uses_inline_overload, sig, False, True)
    assert ours[-1] == numbas[-1]
    assert normalised_ptx(our_ptx) == normalised_ptx(numba_ptx)
    # the overload was inlined: no call of it is left in the IR reaching lowering
    assert "impl__locals__body" in ours[-1][1]
    assert "global(_clamp01" not in ours[-1][1]


def test_inline_overloads_skipped_without_inlining_templates(run_python):
    code = """
        from numba import cuda, float32, void
        from numba.core.typed_passes import InlineOverloads
        from numba_cuda.compiler import front_end
        calls = []
        original = InlineOverloads.run_pass
        InlineOverloads.run_pass = lambda self, state: calls.append(1) or original(self, state)

        def kernel(out):
            out[0] = out[1] * 2.0

        cuda.compile_ptx(kernel, void(float32[::1]), cc=(8, 0))
        print("RAN", len(calls))
    """
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert "RAN 0" in done.stdout


def test_replacements_are_registered_as_numbas_passes():
    from numba.core.compiler_machinery import _pass_registry

    from numba_cuda.compiler import front_end

    for numbas, ours in front_end.REPLACEMENTS.items():
        assert issubclass(ours, numbas)
        assert ours.name() == numbas.name()
        a, b = _pass_registry.get(numbas), _pass_registry.get(ours)
        assert (a.mutates_CFG, a.analysis_only) == (b.mutates_CFG, b.analysis_only)


@pytest.mark.parametrize("fn", INTERPRETED[:60], ids=[fn.__name__ for fn in INTERPRETED[:60]])
def test_constant_inference_answers_as_numbas(fn):
    from numba.core import consts
    from numba.core.compiler import run_frontend

    from numba_cuda.compiler.front_end import ConstantInference

    try:
        func_ir = run_frontend(fn)
    except Exception:  # noqa: BLE001 - what Numba cannot translate has nothing to infer
        pytest.skip("not translatable")
    names = sorted(func_ir._definitions)

    def answers(cls):
        engine = cls(func_ir)
        out = []
        for name in names:
            try:
                out.append((name, True, repr(engine.infer_constant(name))))
            except Exception as exc:  # noqa: BLE001 - compared, whatever it is
                out.append((name, False, type(exc), str(exc)))
        cache = sorted((k, v[0], repr(v[1])) for k, v in engine._cache.items())
        return out, cache

    assert answers(ConstantInference) == answers(consts.ConstantInference)


def test_translated_ir_gets_the_quick_constant_inference(cuda, monkeypatch):
    from numba_cuda.compiler import front_end, pipeline

    seen = []
    original = pipeline.CUDANativeLowering.run_pass

    def recording(self, state):
        seen.append(type(state.func_ir._consts))
        return original(self, state)

    monkeypatch.setattr(pipeline.CUDANativeLowering, "run_pass", recording)
    cuda.compile_ptx(static_getitem_and_power, void(float64[::1], float64[::1]), cc=CC)
    assert seen[-1] is front_end.ConstantInference


def test_numbas_expression_constant_inference_always_fails():
    # what ConstantInference relies on to infer an expression straight away
    from numba.core.errors import ConstantInferenceError

    from numba_cuda.compiler import front_end

    assert ir.Expr.infer_constant is front_end._EXPR_INFER_CONSTANT
    loc = ir.Loc("f.py", 1)
    scope = ir.Scope(None, loc)
    a = scope.define("a", loc)
    for expr in (ir.Expr.build_tuple([], loc), ir.Expr.getattr(a, "x", loc),
                 ir.Expr.call(a, (), (), loc), ir.Expr.binop(__import__("operator").add, a, a, loc)):
        with pytest.raises(ConstantInferenceError):
            expr.infer_constant()

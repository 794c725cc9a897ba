"""The CUDA type inference pass (``numba_cuda.compiler.type_inference``) and the answers the
typing context remembers for it must give exactly what Numba's ``TypeInferer`` and searches give:
on every corpus entry the typemap, the call signatures, the return type, the NVVM IR and the PTX
are compared with ``SETTLE``/``REMEMBER_MORE`` off (Numba's inferer, no new tables); typing
errors and warnings are compared the same way; and the remembered answers are shown to be
forgotten, or not used, when what they depend on changes."""

import math
import types as pytypes
import warnings

import pytest
from numba import float32, float64, int32, int64, void
from numba.core import errors, types
from numba.core.errors import NumbaWarning, TypingError
from numba.extending import overload

from tests.compiler.test_corpus_ptxas import CORPUS
from tests.support.lowering_inputs import UNIQUE, nvvm_inputs

CC = (8, 0)


def _switch(monkeypatch, on):
    from numba_cuda.compiler import type_inference, typing_context

    monkeypatch.setattr(type_inference, "SETTLE", on)
    monkeypatch.setattr(typing_context, "REMEMBER_MORE", on)


def _typed(monkeypatch, cuda, fn, sig, device, on):
    """(typings, NVVM IR texts, PTX) of one compile: ``typings`` lists, for every function type
    inference ran on, its typemap, its call signatures (by statement) and its return type."""
    from numba_cuda.compiler import type_inference

    _switch(monkeypatch, on)
    typings = []
    original_pass = type_inference.CUDATypeInference.run_pass

    def recording_pass(self, state):
        result = original_pass(self, state)
        calls = sorted((str(inst.loc), str(inst), str(sig), sig)
                       for inst, sig in state.calltypes.items())
        typings.append(((state.func_id.func_qualname, tuple(state.args)), dict(state.typemap),
                        calls, state.return_type))
        return result

    texts, ptx = nvvm_inputs(cuda, monkeypatch, fn, sig, device,
                             [(type_inference.CUDATypeInference, "run_pass", recording_pass)],
                             cc=CC)
    return typings, texts, UNIQUE.sub("ID", ptx)


def _assert_same_typing(ours, numbas, fresh_dispatchers=False):
    """The same typing for every function both compiles typed (a device function is typed by
    the compile that first calls it), the compiled function's own last in both.  With
    ``fresh_dispatchers`` (each compile called its own dispatchers of the same functions) the
    dispatcher types and call signatures are compared by name."""
    assert ours and numbas and ours[-1][0] == numbas[-1][0]
    numbas = {t[0]: t for t in numbas}
    for name, typemap, calls, restype in ours:
        if name not in numbas:
            continue
        _, n_typemap, n_calls, n_restype = numbas[name]
        assert typemap.keys() == n_typemap.keys(), name
        for var, ty in typemap.items():
            if fresh_dispatchers and isinstance(ty, types.Dispatcher):
                assert str(ty) == str(n_typemap[var]), (name, var)
            else:
                # the very same (interned) type objects
                assert ty is n_typemap[var], (name, var, ty, n_typemap[var])
        assert [c[:3] for c in calls] == [c[:3] for c in n_calls], name
        if not fresh_dispatchers:
            assert [c[3] for c in calls] == [c[3] for c in n_calls], name
        assert restype == n_restype, name


@pytest.mark.parametrize("fn,sig,device", CORPUS)
def test_corpus_typing_and_code_are_numbas(cuda, monkeypatch, fn, sig, device):
    # A first compile loads what the entry needs (a deferred family installed mid-compile
    # makes new function types: an earlier typemap holds the old ones).  Then Numba's way (a
    # device function it calls is compiled -- and typed -- by whichever compile comes first),
    # then ours twice: once filling the tables, once from them.
    _typed(monkeypatch, cuda, fn, sig, device, on=False)
    numbas, numba_ir, numba_ptx = _typed(monkeypatch, cuda, fn, sig, device, on=False)
    for _ in range(2):
        ours, our_ir, our_ptx = _typed(monkeypatch, cuda, fn, sig, device, on=True)
        _assert_same_typing(ours, numbas)
        assert our_ir == numba_ir
        assert our_ptx == numba_ptx


def _helper(x, y):
    return x * y + 1 if x > y else (x - y) * 2


def _uses_helpers(dev, njit_dev):
    def kernel(out, a, b):
        i = 0
        while i < out.size:
            out[i] = dev(a, b) + njit_dev(i, b)
            i += 1

    return kernel


def test_device_function_typing_is_numbas(cuda, monkeypatch):
    """Device functions (``cuda.jit(device=True)`` and ``@njit`` helpers) typed while their
    caller is: fresh dispatchers of the same Python functions for each way."""
    from numba import njit

    results = {}
    for on in (False, True):
        kernel = _uses_helpers(cuda.jit(device=True)(_helper), njit(_helper))
        results[on] = _typed(monkeypatch, cuda, kernel, void(float64[::1], float64, int32),
                             False, on)
        assert len(results[on][0]) >= 3  # the kernel and both helpers
    typings, ir, ptx = results[True]
    assert [t[0] for t in typings] == [t[0] for t in results[False][0]]
    _assert_same_typing(typings, results[False][0], fresh_dispatchers=True)
    assert (ir, ptx) == results[False][1:]


# ---- the constraint network ---------------------------------------------------------------------
def _loop_carried(out, n):
    x = 0
    y = 1
    for i in range(n):
        y = x  # typed from x, which the next line (later in the round) widens to float64
        x = x + 1.5
    out[0] = x + y


def test_settled_constraints_are_skipped_and_loops_still_widen(cuda, monkeypatch):
    from numba_cuda.compiler.typing_context import CUDATypingContext

    asked = {True: 0, False: 0}
    original = CUDATypingContext.resolve_function_type

    def counter(on):
        def counting(self, *args, **kwargs):
            asked[on] += 1
            return original(self, *args, **kwargs)

        return counting

    typings = {}
    for on in (False, True):
        monkeypatch.setattr(CUDATypingContext, "resolve_function_type", counter(on))
        typings[on], _, _ = _typed(monkeypatch, cuda, _loop_carried,
                                   void(float64[::1], int64), False, on)
    _assert_same_typing(typings[True], typings[False])
    widened = [name for name, ty in typings[True][0][1].items()
               if name.startswith("y") and ty == types.float64]
    assert widened, typings[True][0][1]
    # Numba re-runs every call in every round (each asks the context again); ours runs one
    # again only when a type it read changed since its last run
    assert 0 < asked[True] < asked[False]


def _phis(out, n, a):
    x = a
    i = 0
    while i < n:  # x: a phi of two assignments, both notifying refinements of x
        if i % 2:
            x = x + 1.0
        else:
            x = out[i]
        i += 1
    out[0] = x + out.size


def test_refine_map_and_error_location_are_numbas(cuda, monkeypatch):
    """What a skipped run would have done besides typing: the constraint notified of a
    variable's refinement (the last one to claim it) and the location errors are attributed
    to, as Numba's last round leaves them."""
    from numba.core import errors as numba_errors
    from numba.core import typeinfer

    from numba_cuda.compiler import type_inference

    seen = {}

    def recorder(original, on):
        def unify(self, raise_errors=True):
            seen[on] = ({var: (c.loc.line, getattr(c, "src", None), getattr(c, "target", None))
                         for var, c in self.refine_map.items()},
                        numba_errors.loc_info.get("loc"))
            return original(self, raise_errors)

        return unify

    for on in (False, True):
        cls = type_inference.CUDATypeInferer if on else typeinfer.TypeInferer
        monkeypatch.setattr(cls, "unify", recorder(cls.unify, on))
        _typed(monkeypatch, cuda, _phis, void(float64[::1], int64, float64), False, on)
    assert seen[True] == seen[False]
    assert seen[True][0]


def _calls_device(dev):
    def kernel(out, a):
        out[0] = dev(a)

    return kernel


def test_a_dispatcher_call_is_resolved_in_every_round(cuda, monkeypatch):
    """A device function call is typed by the dispatcher (which may compile): never settled."""
    from numba.core.types.functions import Dispatcher

    dev = cuda.jit(device=True)(lambda a: a * 2)
    kernel = _calls_device(dev)
    cuda.compile_ptx(kernel, void(float64[::1], float64), cc=CC)
    counts = {}
    original = Dispatcher.get_call_type
    for on in (False, True):
        seen = []

        def spy(self, context, args, kws, seen=seen):
            seen.append(args)
            return original(self, context, args, kws)

        monkeypatch.setattr(Dispatcher, "get_call_type", spy)
        _typed(monkeypatch, cuda, kernel, void(float64[::1], float64), False, on)
        counts[on] = len(seen)
    assert counts[True] == counts[False] >= 2


def _types_unremembered(fn, calls):
    """A ``cuda`` overload typed by ``fn`` (called with the argument type), whose answers the
    typing context does not remember: every run of its call asks it again."""

    def target(x):
        pass

    @overload(target, target="cuda")
    def _typing(x):
        calls.append(x)
        return fn(x)

    return target


def test_typing_warnings_are_numbas(cuda, monkeypatch):
    """Warnings raised while typing are caught, attributed to the statement and shown as Numba
    shows them -- also when a template changes the warnings filters."""

    def warned(x):
        warnings.warn("a numba-category warning", NumbaWarning)
        warnings.warn("a user warning", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # lasts for this statement only
        return lambda x: x + 1

    def silencing(x):
        warnings.simplefilter("ignore", RuntimeWarning)  # no warning: for this statement only
        return lambda x: x - 1

    def later_warning(x):
        warnings.warn("after a filter change", RuntimeWarning)
        return lambda x: x * 2

    shown = {}
    for on in (False, True):
        # fresh functions for each mode: an overload's template types each argument tuple once
        target = _types_unremembered(warned, [])
        second = _types_unremembered(later_warning, [])
        silencer = _types_unremembered(silencing, [])

        def kernel(out, a, b):
            out[0] = target(a)
            out[1] = silencer(a)
            out[2] = second(b)
            out[3] = target(b)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _typed(monkeypatch, cuda, kernel, void(int64[::1], int64, int32), False, on)
        shown[on] = [(w.category, str(w.message), w.lineno) for w in caught]
    assert shown[True] == shown[False]
    categories = {c for c, _m, _l in shown[True]}
    assert {NumbaWarning, UserWarning, RuntimeWarning} <= categories, shown[True]


_ERRORS_SNIPPET = """
import json, math, sys
from numba import cuda, float64, void
from numba.core import errors
from numba_cuda.compiler import type_inference, typing_context

type_inference.SETTLE = typing_context.REMEMBER_MORE = sys.argv[1] == "on"

def bad_call(out, a):
    out[0] = math.sqrt(a, a)

def bad_attribute(out, a):
    out[0] = a.no_such_attribute

def bad_setitem(out, a):
    out[a] = "text"

def undefined(out, a):
    out[0] = not_defined_anywhere

def unify_fail(out, a):
    x = 1
    if a > 0:
        x = (1, 2)
    out[0] = x

SOME_OBJECT = object()

def untyped_global(out, a):
    out[0] = SOME_OBJECT

def bad_then_good(out, a):
    out[0] = math.sqrt(a) + len(a)

messages = []
for kernel in (bad_call, bad_attribute, bad_setitem, undefined, unify_fail, untyped_global,
               bad_then_good):
    for _ in range(2):  # the second time from the remembered answers
        try:
            cuda.compile_ptx(kernel, void(float64[::1], float64), cc=(8, 0))
        except errors.NumbaError as exc:
            messages.append([type(exc).__name__, str(exc)])
        else:
            messages.append(None)
print(json.dumps(messages))
"""


def test_typing_errors_are_numbas():
    """The messages of typing errors, in fresh processes (Numba's messages depend on how often a
    function type failed before in the process: its ``_depth`` indents them)."""
    import json
    import sys

    from tests.support.subprocesses import run_python

    messages = {}
    for mode in ("off", "on"):
        done = run_python(_ERRORS_SNIPPET.replace("sys.argv[1]", repr(mode)))
        assert done.returncode == 0, done.stderr
        messages[mode] = json.loads(done.stdout)
    assert messages["on"] == messages["off"]
    assert all(m is not None for m in messages["on"])
    del sys


def test_force_literal_arguments_still_work(cuda, monkeypatch):
    """A template asking for a literal argument (``ForceLiteralArg``) makes Numba retype the
    function with the argument literal: the same result either way."""
    from numba.core import extending

    def needs_literal(x):
        pass

    @extending.overload(needs_literal, target="cuda")
    def _needs_literal(x):
        if not isinstance(x, types.IntegerLiteral):
            raise errors.RequireLiteralValue(x)
        value = x.literal_value
        return lambda x: value * 10

    dev = cuda.jit(device=True)(lambda x: needs_literal(x))

    def kernel(out):
        out[0] = dev(4)

    results = [_typed(monkeypatch, cuda, kernel, void(int64[::1]), False, on)[2]
               for on in (False, True)]
    assert results[0] == results[1]


# ---- the new remembered answers ------------------------------------------------------------------
def test_constants_and_literals_are_typed_as_numba_types_them(cuda):
    from numba.core.typing.context import BaseContext

    from numba_cuda.compiler.target import cuda_target

    def kernel(out):
        out[0] = 1

    cuda.compile_ptx(kernel, void(int64[::1]), cc=CC)
    ctx = cuda_target.typing_context
    values = [0, 1, -1, 2**31, 2**63 - 1, 2**63, True, False, 0.0, -0.0, float("nan"),
              float("inf"), 1.5, 1j, 0j, -0j, "", "abc", None]
    for _ in range(2):
        for value in values:
            ours = ctx.resolve_value_type(value)
            assert ours is BaseContext.resolve_value_type(ctx, value), value
            assert ctx.literal_type(value) is types.maybe_literal(value), value
    assert ctx.literal_type(1.5) is None and ctx.literal_type(math) is None
    assert ctx.literal_type(slice(1, 2)) == types.maybe_literal(slice(1, 2))
    with pytest.raises(ValueError):  # as maybe_literal(): a Literal is refused
        ctx.literal_type(types.literal(1))
    # 1 == True == 1.0 hash alike: kept apart
    assert ctx.resolve_value_type(True) is types.boolean
    assert ctx.resolve_value_type(1) is types.intp
    assert ctx.literal_type(True) == types.literal(True) != types.literal(1)
    with pytest.raises(ValueError):
        ctx.resolve_value_type(2**64)  # too large: Numba's error, every time
    with pytest.raises(ValueError):
        ctx.resolve_value_type(2**64)


def test_builtin_method_of_an_unhashable_object_is_typed_as_numba_types_it(cuda):
    from numba.core.typing.context import BaseContext

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.typing_context
    method = [].append  # a builtin function whose hash fails
    for _ in range(2):
        with pytest.raises(ValueError) as ours:
            ctx.resolve_value_type(method)
        with pytest.raises(ValueError) as numbas:
            BaseContext.resolve_value_type(ctx, method)
        assert str(ours.value) == str(numbas.value)


def test_module_types_follow_numba_type_attribute(cuda):
    from numba.core.typing.context import BaseContext

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.typing_context
    module = pytypes.ModuleType("kernel_constants")
    assert ctx.resolve_value_type(module) == types.Module(module)
    assert ctx.resolve_value_type(module) is BaseContext.resolve_value_type(ctx, module)
    module._numba_type_ = types.float32  # typeof() now answers for it
    assert ctx.resolve_value_type(module) is types.float32


def test_module_attribute_template_registered_later_is_used(cuda):
    """The template search for a module attribute is remembered ("no template": the value is
    typed); a template registered afterwards must be found."""
    from numba.core.typing import templates

    from numba_cuda.compiler.target import cuda_target

    settings = pytypes.ModuleType("kernel_settings_t")
    settings.SCALE = 3

    def kernel(out):
        out[0] = settings.SCALE

    cuda.compile_ptx(kernel, void(float64[::1]), cc=CC)
    ctx = cuda_target.typing_context
    typ = types.Module(settings)
    assert ctx.resolve_getattr(typ, "SCALE") == types.intp
    assert (typ, "SCALE") in ctx._module_attribute_templates

    @templates.infer_getattr
    class _SettingsAttributes(templates.AttributeTemplate):
        key = typ

        def resolve_SCALE(self, mod):
            return types.float32

    ctx.refresh()  # as the next compile does
    assert ctx.resolve_getattr(typ, "SCALE") == types.float32


def test_module_constants_are_still_typed_from_their_current_value(cuda):
    from numba_cuda.compiler.target import cuda_target

    settings = pytypes.ModuleType("kernel_settings_v")
    settings.LIMIT = 3
    ctx = cuda_target.typing_context
    typ = types.Module(settings)
    assert ctx.resolve_getattr(typ, "LIMIT") == types.intp
    settings.LIMIT = 2.5
    assert ctx.resolve_getattr(typ, "LIMIT") == types.float64


def test_setitem_signatures_are_remembered_and_equal_numbas(cuda):
    from numba.core.typing.context import BaseContext

    from numba_cuda.compiler.target import cuda_target

    def kernel(out, i, x):
        out[i] = x

    cuda.compile_ptx(kernel, void(float32[::1], int64, float64), cc=CC)
    ctx = cuda_target.typing_context
    args = (types.float32[::1], types.int64, types.float64)
    ours = ctx.resolve_setitem(*args)
    assert ours == BaseContext.resolve_setitem(ctx, *args)
    assert ctx.resolve_setitem(*args) is ours
    with pytest.raises(TypingError):
        ctx.resolve_setitem(types.float32[::1], types.int64, types.unicode_type)


def test_new_tables_are_forgotten_when_a_refresh_installs_something(cuda):
    from numba_cuda.compiler.target import cuda_target

    def kernel(out):
        out[0] = 1 + math.pi

    cuda.compile_ptx(kernel, void(float64[::1]), cc=CC)
    ctx = cuda_target.typing_context
    ctx.resolve_value_type(7)
    ctx.literal_type(7)
    ctx.resolve_value_type(math)
    ctx.resolve_getattr(types.Module(math), "pi")
    ctx.resolve_getattr(types.float64[::1], "size")
    tables = (ctx._constant_types, ctx._literal_types, ctx._module_types,
              ctx._module_attribute_templates, ctx._by_identity)
    assert all(tables)
    generation = ctx.generation

    def brand_new(x):
        return x

    @overload(brand_new, target="cuda")
    def _ol(x):
        return lambda x: x

    ctx.refresh()
    assert not any(tables)
    assert ctx.generation > generation


def test_unremembered_counts_numbas_paths_only(cuda):
    import operator

    from numba_cuda.compiler.target import cuda_target

    def kernel(out, a):
        out[0] = a + 1

    cuda.compile_ptx(kernel, void(int64[::1], int64), cc=CC)
    ctx = cuda_target.typing_context
    fnty = ctx.resolve_value_type(operator.add)
    ctx.resolve_function_type(fnty, (types.int64, types.int64), {})
    before = ctx.unremembered
    ctx.resolve_function_type(fnty, (types.int64, types.int64), {})
    ctx.resolve_value_type(3)
    ctx.resolve_getattr(types.float32[::1], "size")
    assert ctx.unremembered == before
    ctx.resolve_getattr(types.Module(math), "pi")  # the module's value, read again
    assert ctx.unremembered == before + 1
    with pytest.raises(TypingError):
        ctx.resolve_function_type(fnty, (types.int64, types.unicode_type), {})
    assert ctx.unremembered > before + 1  # (and whatever the failed search asked)

"""The CUDA pipeline's pass manager and the Numba passes it runs only when they have work.

``CUDAPassManager`` runs the same passes in the same order as Numba's ``PassManager``, with the
same error context, pass timings (``exec_times``) and ``ir.Del`` check.  What it leaves out is
bookkeeping nobody asked for: when no listener is registered for Numba's ``numba:run_pass`` event
and no ``NUMBA_DEBUG_PRINT_*`` dump is requested, it does not build the event's details (the
flags pretty-printed, the argument types as text) for every pass of every compile.  Anything
else -- listeners, dumps, Numba's enforcing mode -- takes Numba's own code path.

``InlineClosureLikesWhenNeeded`` and ``NopythonRewritesWhenNeeded`` are Numba's passes behind a
cheap scan of the IR: each runs Numba's pass exactly when the IR holds something the pass could
act on, and otherwise reports "unchanged" without the two or three whole-function
post-processing sweeps (CFG, use-defs, lifetimes) the passes start and end with.

``CUDAPassManager.dependency_analysis`` is computed once per list of passes.

``StripPhisBeforeLegalization`` is Numba's ``PreLowerStripPhis`` without the post-processing
sweep it ends with: in the CUDA pipeline ``IRLegalization`` runs the same sweep (with ``del``
emission) before anything reads what it computes (see the class).
"""

import functools
import time
from types import ModuleType

from numba.core import errors, event, ir, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, PassManager, pass_timings, register_pass
from numba.core.ir_utils import enforce_no_dels
from numba.core.typed_passes import InlineOverloads, NopythonRewrites, PreLowerStripPhis
from numba.core.untyped_passes import InlineClosureLikes, InlineInlinables

_RUN_PASS_EVENT = "numba:run_pass"
_COMPILER_LOCK_EVENT = "numba:compiler_lock"


def _has_listeners(kind):
    """True when someone listens to Numba's event ``kind`` (or when we cannot tell)."""
    registered = getattr(event, "_registered", None)
    if registered is None:
        return True
    return bool(registered.get(kind))


def _run_pass_has_listeners():
    """True when someone listens to Numba's per-pass event (or when we cannot tell)."""
    return _has_listeners(_RUN_PASS_EVENT)


def _lock_already_held():
    """Is Numba's compiler lock held by this thread already, with nobody listening to its
    acquire/release events?  (Then re-entering it for every pass, as Numba's pass manager does,
    changes nothing: the lock is re-entrant.)"""
    try:
        held = global_compiler_lock._lock._is_owned()  # what is_locked() asks (an RLock)
    except AttributeError:
        try:
            held = global_compiler_lock.is_locked()
        except Exception:  # noqa: BLE001 - a Numba without it: take the lock as Numba does
            return False
    return held and not _has_listeners(_COMPILER_LOCK_EVENT)


#: The PassManager internals the quiet path stands in for; if a Numba release renames any of
#: them, every pass takes Numba's own path.
_NUMBA_INTERNALS = ("_ENFORCING", "_print_after", "_print_before", "_print_wrap", "_analysis",
                    "exec_times")


#: tuple of pass classes -> their dependency analysis (``PassManager.dependency_analysis``)
_ANALYSES = {}


class CUDAPassManager(PassManager):
    def dependency_analysis(self):
        """Numba's analysis of the passes' declared requirements, computed once per list of
        pass classes: it depends on nothing else (each registered pass class has one instance,
        whose ``get_analysis_usage`` declares fixed requirements).  Passes only read it."""
        key = tuple(cls for cls, _description in self.passes)
        analysis = _ANALYSES.get(key)
        if analysis is None:
            analysis = _ANALYSES[key] = super().dependency_analysis()
        return analysis

    def _runPass(self, index, pss, internal_state):
        if not self._quiet_path_applies():
            return super()._runPass(index, pss, internal_state)
        return self._run_pass_quietly(index, pss, internal_state)

    def _quiet_path_applies(self):
        internals = self.__dict__.get("_cuda_has_numba_internals")
        if internals is None:  # (attributes Numba's PassManager sets up once)
            internals = self._cuda_has_numba_internals = all(
                hasattr(self, name) for name in _NUMBA_INTERNALS)
        if not internals:
            return False
        return not (self._ENFORCING or self._print_after or self._print_before
                    or self._print_wrap or _run_pass_has_listeners())

    def _run_pass_quietly(self, index, pss, state):
        name = pss.name()
        pss.analysis = self._analysis
        if _lock_already_held():
            t0, t1, t2, t3 = _run_in_error_context(pss, name, state)
        else:
            with global_compiler_lock:
                t0, t1, t2, t3 = _run_in_error_context(pss, name, state)
        cls = type(pss)
        function_pass = _IS_FUNCTION_PASS.get(cls)
        if function_pass is None:
            function_pass = _IS_FUNCTION_PASS[cls] = isinstance(pss, FunctionPass)
        if function_pass:
            _enforce_no_dels(state.func_ir)
        self.exec_times[f"{index}_{name}"] = pass_timings(t1 - t0, t2 - t1, t3 - t2)


#: {pass class: is it a FunctionPass} (an ABC instance check per pass run otherwise)
_IS_FUNCTION_PASS = {}


def _enforce_no_dels(func_ir):
    """Numba's ``enforce_no_dels`` (its error when there is a ``del``), looking without
    building a list per block."""
    Del = ir.Del
    for block in func_ir.blocks.values():
        for inst in block.body:
            if isinstance(inst, Del):
                enforce_no_dels(func_ir)
                raise AssertionError("unreachable: Numba found no del")  # pragma: no cover


def _run_in_error_context(pss, name, state):
    """Run the pass's three steps inside Numba's ``new_error_context("Pass {name}")``, written
    out: a ``NumbaError`` gets the context ``Pass <name>`` added; the step times."""
    clock = time.perf_counter
    try:
        t0 = clock()
        result = pss.run_initialization(state)
        if result not in _BOOLEANS:
            _checked(pss, result)
        t1 = clock()
        result = pss.run_pass(state)
        if result not in _BOOLEANS:
            _checked(pss, result)
        t2 = clock()
        result = pss.run_finalizer(state)
        if result not in _BOOLEANS:
            _checked(pss, result)
        t3 = clock()
    except errors.NumbaError as exc:
        exc.add_context(f"Pass {name}")
        raise
    return t0, t1, t2, t3


_BOOLEANS = (True, False)


def _shallow_copy(obj):
    """``copy.copy(obj)`` for a plain object (a new instance sharing the attribute values)."""
    cls = type(obj)
    if (cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
            and getattr(cls, "__getstate__", None) is getattr(object, "__getstate__", None)
            and getattr(cls, "__copy__", None) is None
            and getattr(cls, "__setstate__", None) is None
            and getattr(cls, "__slots__", None) is None):
        new = cls.__new__(cls)
        new.__dict__.update(obj.__dict__)
        return new
    import copy

    return copy.copy(obj)


def _checked(pss, result):
    if result not in (True, False):
        raise ValueError(f"CompilerPass implementations should return True/False. CompilerPass "
                         f"with name '{pss.name()}' did not.")
    return result


# ---- passes that run only when the IR gives them something to do -----------------------------
def _instructions(func_ir):
    for block in func_ir.blocks.values():
        for inst in block.body:
            yield inst


def _names_stencil(value):
    module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
    return isinstance(module, str) and module.startswith("numba.stencils")


def closure_likes_present(func_ir):
    """Does ``func_ir`` hold anything ``InlineClosureLikes`` acts on: a closure, lambda or
    comprehension (``make_function``), a list built for ``np.array(...)`` (``build_list``), a
    ``functools.reduce`` call or a Numba stencil?"""
    for inst in _instructions(func_ir):
        if not isinstance(inst, ir.Assign):
            continue
        value = inst.value
        if isinstance(value, ir.Expr):
            if value.op in ("make_function", "build_list"):
                return True
            if value.op == "getattr" and value.attr in ("reduce", "stencil"):
                return True
        elif isinstance(value, (ir.Global, ir.FreeVar)):
            if value.value is functools.reduce or _names_stencil(value.value):
                return True
    return False


#: Numba's post-inference rewrites whose trigger ``post_inference_rewrites_apply`` knows.
KNOWN_AFTER_INFERENCE_REWRITES = frozenset((
    "numba.core.rewrites.static_getitem.RewriteStringLiteralGetitems",
    "numba.core.rewrites.static_getitem.RewriteStringLiteralSetitems",
    "numba.core.inline_closurecall.RewriteArrayOfConsts",
    "numba.np.ufunc.array_exprs.RewriteArrayExprs",
))


#: the expressions ``RewriteArrayExprs._match_array_expr`` can take for an array expression
_ARRAY_EXPR_OPS = frozenset(("unary", "binop", "call"))


def post_inference_rewrites_apply(state):
    """Could one of Numba's post-inference rewrites match ``state.func_ir``?  Only the known
    ones are judged; any other registered rewrite (a third party's) means yes.

    Their triggers: a ``getitem``/``setitem`` with a string-literal index, a ``build_list``
    (constant list to ``np.array``), an operator or call producing an array (array
    expressions: ``RewriteArrayExprs`` looks at nothing else)."""
    from numba.core.rewrites import rewrite_registry

    for cls in rewrite_registry.rewrites["after-inference"]:
        if f"{cls.__module__}.{cls.__qualname__}" not in KNOWN_AFTER_INFERENCE_REWRITES:
            return True
    typemap = state.typemap
    for inst in _instructions(state.func_ir):
        if isinstance(inst, ir.Assign):
            value = inst.value
            if not isinstance(value, ir.Expr):
                continue
            if value.op == "build_list":
                return True
            if value.op == "getitem" and isinstance(typemap.get(value.index.name),
                                                    types.StringLiteral):
                return True
            # array expressions: an operator or a (ufunc) call whose result is an array
            if value.op in _ARRAY_EXPR_OPS and isinstance(typemap.get(inst.target.name),
                                                          types.Array):
                return True
        elif isinstance(inst, ir.SetItem):
            if isinstance(typemap.get(inst.index.name), types.StringLiteral):
                return True
    return False


def register_replacement(cls):
    """Register ``cls``, the replacement of the Numba pass it subclasses, under that pass's own
    ``_name`` and with its registration (``mutates_CFG``, ``analysis_only``), so that error
    contexts ("During: Pass nopython_type_inference"), pass timings and ``NUMBA_DEBUG_PRINT_*``
    dumps read as with Numba's pass (Numba's registry does not compare names; should a release
    refuse the alias, the name gets a ``cuda_`` prefix instead)."""
    from numba.core.compiler_machinery import _pass_registry

    numbas = _pass_registry.get(cls.__mro__[1])
    if _pass_registry._does_pass_name_alias(cls._name):
        cls._name = f"cuda_{cls._name}"
    return register_pass(mutates_CFG=numbas.mutates_CFG,
                         analysis_only=numbas.analysis_only)(cls)


def run_when_needed(numba_pass, name, needed):
    """Numba's pass class ``numba_pass`` as a registered pass ``name`` that runs it only when
    ``needed(state)`` is true, and otherwise reports the IR unchanged."""

    class WhenNeeded(FunctionPass):
        _name = name

        def __init__(self):
            FunctionPass.__init__(self)
            self._numba_pass = numba_pass()

        def run_pass(self, state):
            if not needed(state):
                return False
            return self._numba_pass.run_pass(state)

    WhenNeeded.__name__ = WhenNeeded.__qualname__ = f"{numba_pass.__name__}WhenNeeded"
    WhenNeeded.__doc__ = f"Numba's ``{numba_pass.__name__}``, run only when the IR needs it."
    return register_pass(mutates_CFG=True, analysis_only=False)(WhenNeeded)


# The checks are looked up when called (tests replace them).
InlineClosureLikesWhenNeeded = run_when_needed(
    InlineClosureLikes, "cuda_inline_closure_likes",
    lambda state: closure_likes_present(state.func_ir))
NopythonRewritesWhenNeeded = run_when_needed(
    NopythonRewrites, "cuda_nopython_rewrites",
    lambda state: _with_deferred_modules(state, post_inference_rewrites_apply(state)))


def _with_deferred_modules(state, needed):
    """Numba's after-inference rewrites include ``RewriteArrayOfConsts`` once
    ``numba.core.inline_closurecall`` is imported, as it is from a process's first compile on
    without the deferral (``deferred_impls``): install the deferred modules before they run."""
    if needed:
        from .deferred_impls import load_for

        load_for(state.targetctx)
    return needed


# ---- the inlining passes, with the worker made when something is inlined ---------------------
# Numba's two passes import numba.core.inline_closurecall (and with it numba.np.arrayobj, the
# string modules ...: ~40 ms of a first compile) to build an ``InlineWorker`` for every function,
# used only to inline a call.  These run Numba's passes with a ``deferred_impls.LazyInlineWorker``
# in its place (which installs the deferred modules when first used); the rest of each
# ``run_pass`` is Numba's, unchanged.  ``InlineInlinablesLazily`` also answers the calls Numba's
# ``_do_work`` would not inline without ``resolve_func_from_module`` (see
# ``resolve_module_attribute``).

def resolve_module_attribute(func_ir, node):
    """What Numba's ``ir_utils.resolve_func_from_module(func_ir, node)`` answers: the object
    that ``node``, a chain of ``getattr`` expressions starting at a module global
    (``cuda.grid``, ``math.sin``, ``a.b.c``), names, or None (not such a chain, a variable with
    more than one definition on the way, or a falsy attribute).  Numba walks the chain with a
    recursive inner function, which refers to itself through its closure: every call leaves
    that reference cycle holding ``func_ir`` -- the whole function's IR -- for the cyclic
    garbage collector.  This walks it in a loop, asking the same definitions and attributes in
    the same order."""
    names = []
    value = node
    while getattr(value, "op", False) == "getattr":
        names.append(value.attr)
        try:
            value = func_ir.get_definition(value.value)
        except KeyError:  # more than one definition (or none)
            return None
    if not (isinstance(value, (ir.Global, ir.FreeVar)) and isinstance(value.value, ModuleType)):
        return None
    found = value.value
    for name in reversed(names):
        found = getattr(found, name, False)
        if not found:
            return None
    return found


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineInlinablesLazily(InlineInlinables):
    """Numba's ``InlineInlinables`` with the inlining worker made on first use."""

    _name = "cuda_inline_inlinables"

    def run_pass(self, state):
        from numba.core import postproc
        from numba.core.analysis import compute_cfg_from_blocks
        from numba.core.ir_utils import guard, simplify_CFG

        from .deferred_impls import LazyInlineWorker

        if self._DEBUG:  # Numba's debugging output: Numba's pass
            return super().run_pass(state)
        inline_worker = LazyInlineWorker(state, state.typingctx, state.targetctx, state.locals,
                                         state.pipeline, state.flags, validator=True)
        modified = False
        work_list = list(state.func_ir.blocks.items())
        while work_list:
            label, block = work_list.pop()
            for i, instr in enumerate(block.body):
                if isinstance(instr, ir.Assign):
                    expr = instr.value
                    if isinstance(expr, ir.Expr) and expr.op == "call":
                        if guard(self._do_work, state, work_list, block, i, expr, inline_worker):
                            modified = True
                            break  # because block structure changed
        if modified:
            cfg = compute_cfg_from_blocks(state.func_ir.blocks)
            for dead in cfg.dead_nodes():
                del state.func_ir.blocks[dead]
            postproc.PostProcessor(state.func_ir).run()
            state.func_ir.blocks = simplify_CFG(state.func_ir.blocks)
        return True

    def _do_work(self, state, work_list, block, i, expr, inline_worker):
        # Numba's ``_do_work`` resolves a call of a getattr chain (``cuda.grid(1)``) with
        # ``resolve_func_from_module`` (a reference cycle holding the IR after each call: see
        # ``resolve_module_attribute``), then inlines it only if it names a dispatcher whose
        # ``targetoptions`` hold ``inline``.  The calls it would not inline are answered here
        # (False: nothing done) after the same look-ups; the others are Numba's.
        try:
            to_inline = state.func_ir.get_definition(expr.func)
        except Exception:  # noqa: BLE001 - Numba's answers it (False)
            to_inline = None
        if getattr(to_inline, "op", False) == "getattr":
            val = resolve_module_attribute(state.func_ir, to_inline)
            if not val:
                return False
            options = getattr(val, "targetoptions", False)
            if not options or options.get("inline", None) is None:
                return False
        return super()._do_work(state, work_list, block, i, expr, inline_worker)


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineOverloadsLazily(InlineOverloads):
    """Numba's ``InlineOverloads`` with the inlining worker made on first use."""

    _name = "cuda_inline_overloads"

    def run_pass(self, state):
        from numba.core.analysis import compute_cfg_from_blocks
        from numba.core.ir_utils import dead_code_elimination, guard, simplify_CFG

        from .deferred_impls import LazyInlineWorker

        if self._DEBUG:
            return super().run_pass(state)
        inline_worker = LazyInlineWorker(state, state.typingctx, state.targetctx, state.locals,
                                         state.pipeline, state.flags, validator=True,
                                         typemap=state.typemap, calltypes=state.calltypes)
        modified = False
        work_list = list(state.func_ir.blocks.items())
        while work_list:
            label, block = work_list.pop()
            for i, instr in enumerate(block.body):
                if isinstance(instr, ir.Assign):
                    expr = instr.value
                    if isinstance(expr, ir.Expr):
                        if guard(self._do_work_expr, state, work_list, block, i, expr,
                                 inline_worker):
                            modified = True
                            break  # because block structure changed
        if modified:
            cfg = compute_cfg_from_blocks(state.func_ir.blocks)
            for dead in cfg.dead_nodes():
                del state.func_ir.blocks[dead]
            dead_code_elimination(state.func_ir, typemap=state.typemap)
            state.func_ir.blocks = simplify_CFG(state.func_ir.blocks)
        return True


def _locate_pass_through_exports(func_ir, phi_targets):
    """Give each phi export at the head of its block that no statement of the block before it
    defines (its value comes from elsewhere) the location of the block's terminator."""
    for block in func_ir.blocks.values():
        terminator = block.body[-1] if block.body else None
        if terminator is None or not block.is_terminated:
            continue
        defined = set()
        for stmt in block.body[:-1]:
            if not isinstance(stmt, ir.Assign):
                break
            value = stmt.value
            if (stmt.target.name in phi_targets and isinstance(value, ir.Var)
                    and value.name not in defined):
                stmt.loc = terminator.loc
                defined.add(stmt.target.name)
                continue
            break


@register_pass(mutates_CFG=True, analysis_only=False)
class StripPhisBeforeLegalization(PreLowerStripPhis):
    """Numba's ``PreLowerStripPhis`` (phi nodes become assignments in the incoming blocks,
    definitions rebuilt), without its closing ``PostProcessor(func_ir).run()``.

    That sweep computes the canonical CFG, the variable lifetimes, the block entry variables and
    the generator information.  In the CUDA pipeline the passes after this one --
    ``InlineOverloads`` and the nopython rewrites, which run their own post-processing when they
    change anything -- read none of it, and ``IRLegalization`` repeats the whole sweep before
    lowering; the CFG is already canonical (SSA reconstruction's sweep made it so, and stripping
    phis adds no edges).  Generators and parallel compiles (neither exists for CUDA) take
    Numba's pass unchanged.  ``tests/compiler/test_pass_manager.py`` checks that the IR reaching
    lowering is the same as with Numba's pass."""

    _name = "cuda_strip_phis"

    def _strip_phi_nodes(self, func_ir):
        """Numba's, which for IR without phi nodes copies every block (a new ``Block``, its
        statements in a new list): done here without testing each statement against the
        empty set of phis.  With phis, an exporting assignment that Numba puts at the start of
        an incoming block (the block does not assign the exported value: a ``continue``, a
        branch passing a value through) is given the location of the block's terminator --
        Numba gives it the location where the value was defined, elsewhere, so that debug
        line information showed the loop's last assignment at the ``continue``."""
        phi_targets = {inst.target.name for block in func_ir.blocks.values()
                       for inst in block.body if isinstance(inst, ir.Assign)
                       and isinstance(inst.value, ir.Expr) and inst.value.op == "phi"}
        if phi_targets:
            func_ir = super()._strip_phi_nodes(func_ir)
            _locate_pass_through_exports(func_ir, phi_targets)
            return func_ir
        newblocks = {}
        for label, block in func_ir.blocks.items():
            newblk = _shallow_copy(block)
            newblk.body = list(block.body)
            newblocks[label] = newblk
        func_ir.blocks = newblocks
        return func_ir

    def run_pass(self, state):
        from numba.core.ir_utils import build_definitions

        if state.func_ir.is_generator or state.flags.auto_parallel.enabled:
            return super().run_pass(state)
        state.func_ir = self._strip_phi_nodes(state.func_ir)
        state.func_ir._definitions = build_definitions(state.func_ir.blocks)
        return True

"""Numba's untyped front-end passes without work whose result nobody reads in the CUDA pipeline.

Every class here is a Numba pass (same ``_name``, so error contexts, timings and
``NUMBA_DEBUG_PRINT_*`` dumps read as before) that hands the next pass the same IR as Numba's
pass; ``tests/compiler/test_front_end.py`` checks that the IR reaching lowering -- statements,
``del`` placement, block entry variables -- and the PTX are the same as with Numba's passes.

* **Post-processing sweeps.**  ``IRProcessing``, ``GenericRewrites`` and ``ReconstructSSA`` end
  with ``PostProcessor(func_ir).run()``: canonicalise the CFG (which can add blocks), then
  compute the variable lifetimes (use/def maps, live and dead maps) and the live variables at
  each block entry.  In the CUDA pipeline nothing reads those lifetimes before the next sweep
  recomputes them: the readers (with-lifting, loop lifting, the literal-unroll sub-pipeline,
  generator lowering, object mode) either run their own sweep first or do not exist for CUDA,
  and ``IRLegalization`` recomputes everything on the final IR before lowering.
  ``light_post_process`` keeps the CFG canonicalisation and leaves the lifetimes to be computed
  on demand (a lazy ``VariableLifetime``); a generator, a parallel compile or a function using
  ``literal_unroll`` (whose unroller reads the lifetimes later) takes Numba's full sweep.

* **Bytecode translation.**  Numba's interpreter ends with five peephole rewrites of bytecode
  idioms (``with`` exits, ``POP_BLOCK``, ``LIST_TO_TUPLE``, ``CALL_FUNCTION_EX``,
  ``DICT_UPDATE``); each walks the whole IR (two of them list every statement's variables) even
  when the idiom is absent.  ``CUDAInterpreter`` looks once for what each peephole acts on and
  runs a peephole only when its trigger is there -- and, once one has run (it may have made
  the trigger of a later one), every later one.  On Python 3.11 the flow analysis
  (``CUDAFlow``) and the interpreter skip the dispatch of ``CACHE`` entries (a no-op) and, for
  bytecode without exception-table entries, the per-instruction ``try``/``with`` checks.

* **The last sweep** (``IRLegalization``, emitting the dels) lists each statement's variables
  once, without ``list_vars``' intermediate lists (``var_names``), for the use/def maps and the
  del placement; SSA reconstruction finds its violators the same way.

* **Constant inference** (``func_ir.infer_constant``, which the rewrites, branch pruning and
  typing ask) infers a variable defined by an expression without first calling
  ``ir.Expr.infer_constant``, which always raises an error whose message (the expression and
  its source lines) Numba then drops (``ConstantInference``, given to the translated IR).

* **Passes with nothing to do.**  ``WithLifting`` without an ``ir.EnterWith``,
  ``InlineOverloads`` while no overload template that can inline has typed a use
  (``overloads_to_inline``), and ``FindLiterallyCalls`` without a call of ``numba.literally``
  change nothing: they are not run.  (``FindLiterallyCalls`` also left the function's IR in a
  reference cycle after every call of a module attribute: see
  ``pass_manager.resolve_module_attribute``.)
"""

import logging
from collections import defaultdict

from numba.core import (
    byteflow, config, consts, errors, interpreter, ir, postproc, rewrites, ssa, transforms,
)
from numba.core.interpreter import (
    Interpreter, peep_hole_call_function_ex_to_call_function_kw, peep_hole_delete_with_exit,
    peep_hole_fuse_dict_add_updates, peep_hole_list_to_tuple, peep_hole_split_at_pop_block,
)
from numba.core.typed_passes import InlineOverloads, IRLegalization
from numba.core.untyped_passes import (
    FindLiterallyCalls, GenericRewrites, IRProcessing, ReconstructSSA, TranslateByteCode,
    WithLifting,
)
from numba.core.utils import PYVERSION
from numba.misc.special import literal_unroll, literally

from .pass_manager import InlineOverloadsLazily, register_replacement, resolve_module_attribute


# ---- post-processing without the lifetimes ----------------------------------------------------
def _uses_literal_unroll(func_ir):
    for block in func_ir.blocks.values():
        for inst in block.body:
            if (type(inst) is ir.Assign and isinstance(inst.value, (ir.Global, ir.FreeVar))
                    and inst.value.value is literal_unroll):
                return True
    return False


def light_post_process_applies(func_ir, flags):
    return not (func_ir.is_generator or flags.auto_parallel.enabled
                or _uses_literal_unroll(func_ir))


def light_post_process(func_ir, flags, cfg=None):
    """``PostProcessor(func_ir).run()`` as far as the CUDA pipeline needs it: the CFG
    canonicalised (``func_ir.blocks`` replaced, as Numba does) and a lazy
    ``VariableLifetime``; the block entry variables are left to the next full sweep.
    ``cfg``: the CFG of ``func_ir.blocks`` when the caller has it."""
    if not light_post_process_applies(func_ir, flags):
        postproc.PostProcessor(func_ir).run()
        return
    func_ir.blocks, _cfg = _canonicalize_cfg(func_ir.blocks, cfg)
    func_ir.variable_lifetime = postproc.VariableLifetime(func_ir.blocks)
    func_ir.generator_info = None


def _numba_debugging():
    return bool(config.DEBUG or config.DUMP_IR or config.DUMP_SSA)


_register = register_replacement


@_register
class ProcessIR(IRProcessing):
    """Numba's ``IRProcessing`` (the first post-processing sweep) without the lifetimes."""

    _name = IRProcessing._name

    def run_pass(self, state):
        if _numba_debugging():
            return super().run_pass(state)
        light_post_process(state.func_ir, state.flags)
        return True


@_register
class GenericRewritesLight(GenericRewrites):
    """Numba's ``GenericRewrites``: the same rewrites, applied the same way
    (``RewriteRegistry.apply``), ending with the light post-processing sweep."""

    _name = GenericRewrites._name

    def run_pass(self, state):
        from numba.core.untyped_passes import fallback_context

        if _numba_debugging():
            return super().run_pass(state)
        msg = ("Internal error in pre-inference rewriting pass encountered during compilation "
               "of function \"%s\"" % (state.func_id.func_name,))
        with fallback_context(state, msg):
            _apply_rewrites("before-inference", state)
        return True


def _apply_rewrites(kind, state):
    """``rewrites.rewrite_registry.apply(kind, state)`` ending with ``light_post_process``."""
    registry = rewrites.rewrite_registry
    assert kind in registry._kinds
    blocks = state.func_ir.blocks
    old_blocks = blocks.copy()
    for rewrite_cls in registry.rewrites[kind]:
        rewrite = rewrite_cls(state)
        work_list = list(blocks.items())
        while work_list:
            key, block = work_list.pop()
            matches = rewrite.match(state.func_ir, block, state.typemap, state.calltypes)
            if matches:
                new_block = rewrite.apply()
                blocks[key] = new_block
                work_list.append((key, new_block))
    for key, block in blocks.items():
        if block != old_blocks[key]:
            block.verify()
    light_post_process(state.func_ir, state.flags)


@_register
class ReconstructSSALight(ReconstructSSA):
    """Numba's ``ReconstructSSA`` ending with the light post-processing sweep."""

    _name = ReconstructSSA._name

    def run_pass(self, state):
        from numba.core.ir_utils import build_definitions
        from numba.core.ssa import reconstruct_ssa

        if _numba_debugging():
            return super().run_pass(state)
        cfg = None
        if ssa._logger.isEnabledFor(logging.DEBUG):  # Numba's, with its debug log
            state.func_ir = reconstruct_ssa(state.func_ir)
        else:
            state.func_ir.blocks, cfg = _run_ssa(state.func_ir.blocks)
        self._patch_locals(state)
        state.func_ir._definitions = build_definitions(state.func_ir.blocks)
        light_post_process(state.func_ir, state.flags, cfg)
        return True


def _run_ssa(blocks):
    """``numba.core.ssa._run_ssa`` (the SSA reconstruction of ``reconstruct_ssa``) with
    ``_find_defs_violators`` listing the statements' variables without intermediate lists."""
    from numba.core.analysis import compute_cfg_from_blocks

    if not blocks:
        return {}, None
    cfg = compute_cfg_from_blocks(blocks)
    df_plus = ssa._iterated_domfronts(cfg)
    violators = _find_defs_violators(blocks, cfg)
    cache_list_vars = ssa._CacheListVars()
    for varname in violators:
        blocks, defmap = ssa._fresh_vars(blocks, varname)
        blocks = ssa._fix_ssa_vars(blocks, varname, defmap, cfg, df_plus, cache_list_vars)
    cfg_post = compute_cfg_from_blocks(blocks)
    if cfg_post != cfg:
        raise errors.CompilerError("CFG mutated in SSA pass")
    return blocks, cfg_post


def _find_defs_violators(blocks, cfg):
    """``numba.core.ssa._find_defs_violators``: the same variables, in the same order."""
    from numba.core.utils import OrderedSet

    defs = defaultdict(list)
    uses = defaultdict(set)
    for label, blk in blocks.items():
        for stmt in blk.body:
            if isinstance(stmt, ir.Assign):
                target = stmt.target.name
                defs[target].append((stmt, label))
                for name in var_names(stmt):
                    if name != target:
                        uses[name].add(label)
            else:
                for name in var_names(stmt):
                    uses[name].add(label)
    violators = OrderedSet([k for k, vs in defs.items() if len(vs) > 1])
    doms = cfg.dominators()
    for k, use_blocks in uses.items():
        if k not in violators:
            for label in use_blocks:
                dom = doms[label]
                def_labels = {label for _assign, label in defs[k]}
                if not def_labels.intersection(dom):
                    violators.add(k)
                    break
    return violators


# ---- the last sweep, before lowering ------------------------------------------------------------
_REC_LIST_VARS = ir.Inst._rec_list_vars
_STMT_LIST_VARS = ir.Stmt.list_vars
_EXPR_LIST_VARS = ir.Expr.list_vars
#: values ``Inst._rec_list_vars`` finds no variable in, by exact type (anything else is judged
#: the way ``_rec_list_vars`` judges it)
_NO_VARS = frozenset((ir.Loc, str, int, float, bool, type(None), ir.Const, ir.Global,
                      ir.FreeVar, ir.Arg))


def _collect_names(val, out):
    """Append to ``out`` the names of the variables ``Inst._rec_list_vars(val)`` lists, in its
    order, without building the intermediate lists."""
    cls = type(val)
    if cls is ir.Var:
        out.append(val.name)
    elif cls in _NO_VARS:
        pass
    elif (cls is ir.Expr and cls.list_vars is _EXPR_LIST_VARS
          and cls._rec_list_vars is _REC_LIST_VARS):
        for item in val._kws.values():
            _collect_names(item, out)
    elif cls is list or cls is tuple:
        for item in val:
            _collect_names(item, out)
    elif isinstance(val, ir.Var):
        out.append(val.name)
    elif isinstance(val, ir.Inst):
        if cls.list_vars is _STMT_LIST_VARS and cls._rec_list_vars is _REC_LIST_VARS:
            for item in val.__dict__.values():
                _collect_names(item, out)
        elif cls.list_vars is _EXPR_LIST_VARS and cls._rec_list_vars is _REC_LIST_VARS:
            for item in val._kws.values():
                _collect_names(item, out)
        else:
            out.extend(var.name for var in val.list_vars())
    elif isinstance(val, (list, tuple)):
        for item in val:
            _collect_names(item, out)
    elif isinstance(val, dict):
        for item in val.values():
            _collect_names(item, out)


def var_names(inst):
    """``[v.name for v in inst.list_vars()]``."""
    out = []
    cls = type(inst)
    if isinstance(inst, ir.Inst) and cls._rec_list_vars is _REC_LIST_VARS and (
            cls.list_vars is _STMT_LIST_VARS):
        for item in inst.__dict__.values():
            _collect_names(item, out)
    elif (cls is ir.Expr and cls.list_vars is _EXPR_LIST_VARS
          and cls._rec_list_vars is _REC_LIST_VARS):
        for item in inst._kws.values():
            _collect_names(item, out)
    else:
        out.extend(var.name for var in inst.list_vars())
    return out


def _use_defs(blocks, names):
    """``analysis.compute_use_defs(blocks)``, from each statement's variable names ``names``
    (``{label: [names of each statement]}``); the same sets, filled in the same order."""
    from numba.core.analysis import _use_defs_result, ir_extension_usedefs

    var_use_map = {}
    var_def_map = {}
    for offset, ir_block in blocks.items():
        var_use_map[offset] = use_set = set()
        var_def_map[offset] = def_set = set()
        for stmt, stmt_names in zip(ir_block.body, names[offset]):
            if type(stmt) in ir_extension_usedefs:
                ir_extension_usedefs[type(stmt)](stmt, use_set, def_set)
                continue
            if isinstance(stmt, ir.Assign):
                value = stmt.value
                if isinstance(value, ir.Inst):
                    rhs_set = set(var_names(value))
                elif isinstance(value, ir.Var):
                    rhs_set = {value.name}
                elif isinstance(value, (ir.Arg, ir.Const, ir.Global, ir.FreeVar)):
                    rhs_set = ()
                else:
                    raise AssertionError("unreachable", type(value))
                if stmt.target.name not in rhs_set:
                    def_set.add(stmt.target.name)
            for name in stmt_names:
                if name not in def_set:
                    use_set.add(name)
    return _use_defs_result(usemap=var_use_map, defmap=var_def_map)


def _patch_var_dels(func_ir, names, internal_dead_map, escaping_dead_map, extend_lifetimes):
    """``PostProcessor._patch_var_dels``, from each statement's variable names ``names``."""
    insert_dels = postproc.ir_extension_insert_dels
    for offset, ir_block in func_ir.blocks.items():
        internal_dead_set = internal_dead_map[offset].copy()
        delete_pts = []
        block_names = names[offset]
        body = ir_block.body
        for index in range(len(body) - 2, -1, -1):
            stmt = body[index]
            live_set = set(block_names[index])
            dead_set = live_set & internal_dead_set
            for T, def_func in insert_dels.items():
                if isinstance(stmt, T):
                    done_dels = def_func(stmt, dead_set)
                    dead_set -= done_dels
                    internal_dead_set -= done_dels
            delete_pts.append((stmt, dead_set))
            internal_dead_set -= dead_set

        new_body = []
        lastloc = ir_block.loc
        del_store = []
        for stmt, delete_set in reversed(delete_pts):
            if extend_lifetimes:
                lastloc = ir_block.body[-1].loc
            else:
                lastloc = stmt.loc
            if not isinstance(stmt, ir.Del):
                new_body.append(stmt)
            for var_name in sorted(delete_set, reverse=True):
                delnode = ir.Del(var_name, loc=lastloc)
                if extend_lifetimes:
                    del_store.append(delnode)
                else:
                    new_body.append(delnode)
        if extend_lifetimes:
            new_body.extend(del_store)
        new_body.append(ir_block.body[-1])
        ir_block.body = new_body

        escape_dead_set = escaping_dead_map[offset]
        for var_name in sorted(escape_dead_set):
            ir_block.prepend(ir.Del(var_name, loc=ir_block.body[0].loc))


def _canonicalize_cfg(blocks, cfg=None):
    """``(transforms.canonicalize_cfg(blocks), its CFG)``: when no loop has several back
    edges (Numba's function then returns a copy of ``blocks``), the CFG it computed on the way
    is the copy's; otherwise Numba's function and ``None``.  ``cfg``: the CFG of ``blocks``,
    when known."""
    from numba.core.analysis import compute_cfg_from_blocks

    if cfg is None:
        cfg = compute_cfg_from_blocks(blocks)
    for loop in cfg.loops().values():
        count = 0
        for label in loop.body:
            if loop.header in blocks[label].terminator.get_targets():
                count += 1
                if count > 1:
                    return transforms.canonicalize_cfg(blocks), None
    return blocks.copy(), cfg


def full_post_process_with_dels(func_ir, extend_lifetimes):
    """``PostProcessor(func_ir).run(emit_dels=True, extend_lifetimes=...)`` for a function that
    is not a generator, listing each statement's variables once (Numba lists them twice: for
    the use/def maps and again for the ``del`` placement)."""
    from numba.core import analysis

    func_ir.blocks, cfg = _canonicalize_cfg(func_ir.blocks)
    blocks = func_ir.blocks
    names = {offset: [var_names(stmt) for stmt in block.body]
             for offset, block in blocks.items()}
    vlt = postproc.VariableLifetime(blocks)
    if cfg is not None:
        vlt.__dict__["cfg"] = cfg  # (cached_properties, filled in)
    vlt.__dict__["usedefs"] = _use_defs(blocks, names)
    func_ir.variable_lifetime = vlt
    bev = analysis.compute_live_variables(vlt.cfg, blocks, vlt.usedefs.defmap,
                                          vlt.deadmaps.combined)
    for offset, ir_block in blocks.items():
        func_ir.block_entry_vars[ir_block] = bev[offset]
    func_ir.generator_info = None
    _patch_var_dels(func_ir, names, vlt.deadmaps.internal, vlt.deadmaps.escaping,
                    extend_lifetimes)


@_register
class LegalizeIR(IRLegalization):
    """Numba's ``IRLegalization`` (``check_and_legalize_ir``: no phis, no dels, then the full
    post-processing sweep emitting dels) with ``full_post_process_with_dels``."""

    _name = IRLegalization._name

    def run_pass(self, state):
        from numba.core.ir_utils import enforce_no_dels, enforce_no_phis

        func_ir = state.func_ir
        if func_ir.is_generator or state.flags.auto_parallel.enabled:
            return super().run_pass(state)
        enforce_no_phis(func_ir)
        enforce_no_dels(func_ir)
        full_post_process_with_dels(func_ir, state.flags.dbg_extend_lifetimes)
        return True


@_register
class WithLiftingWhenNeeded(WithLifting):
    """Numba's ``WithLifting``, which finds nothing to lift (and changes nothing) in IR without
    an ``ir.EnterWith``, run only when there is one."""

    _name = WithLifting._name

    def run_pass(self, state):
        for block in state.func_ir.blocks.values():
            for inst in block.body:
                if isinstance(inst, ir.EnterWith):
                    return super().run_pass(state)
        return True


def _templates_of(ty):
    templates = getattr(ty, "templates", None)
    if templates is None:
        template = getattr(ty, "template", None)
        templates = () if template is None else (template,)
    return templates if isinstance(templates, (list, tuple)) else ()


#: (subclass counts, the overload template classes that can inline) -- see _inlining_templates
_INLINING_TEMPLATES = [None, ()]


def _inlining_templates():
    """Numba's overload template classes (``make_overload_template`` makes direct subclasses
    of ``_OverloadFunctionTemplate``; ``make_overload_attribute_template``, of
    ``_OverloadAttributeTemplate`` or ``_OverloadMethodTemplate``) whose ``inline=`` is not
    ``"never"``: the only ones Numba's typing fills ``_inline_overloads`` for.  Recomputed when
    an overload is added."""
    from numba.core.typing import templates

    bases = (templates._OverloadFunctionTemplate, templates._OverloadAttributeTemplate,
             templates._OverloadMethodTemplate)
    subclasses = [base.__subclasses__() for base in bases]
    counts = tuple(len(subs) for subs in subclasses)
    if counts != _INLINING_TEMPLATES[0]:
        found = []
        for subs in subclasses:
            for sub in subs:
                inline = getattr(sub, "_inline", None)
                if inline is None or not getattr(inline, "is_never_inline", False):
                    found.append(sub)
        _INLINING_TEMPLATES[:] = [counts, tuple(found)]
    return _INLINING_TEMPLATES[1]


def overloads_to_inline(state):
    """Could ``InlineOverloads`` inline anything?  It inlines a call, operator or attribute
    only through a template whose ``_inline_overloads`` holds the argument types: a table
    Numba's overload templates (``@overload``/``@overload_method``/``@overload_attribute``
    with ``inline=`` other than ``"never"``) fill when typing such a use.  When no such
    template, nor any template the function's types name, has one, the pass finds nothing
    (after looking the templates up for every call, operator and attribute)."""
    for template in _inlining_templates():
        if getattr(template, "_inline_overloads", None):
            return True
    no_templates = _TYPES_WITHOUT_TEMPLATES
    for ty in state.typemap.values():
        cls = type(ty)
        if cls in no_templates:
            continue
        templates = _templates_of(ty)
        if not templates and not hasattr(ty, "templates") and not hasattr(ty, "template"):
            no_templates.add(cls)
        for template in templates:
            if getattr(template, "_inline_overloads", None):
                return True
    return False


#: type classes whose instances name no templates (``templates``/``template`` attributes)
_TYPES_WITHOUT_TEMPLATES = set()


@_register
class InlineOverloadsWhenNeeded(InlineOverloadsLazily):
    """Numba's ``InlineOverloads`` (with the inlining worker made on first use, see
    ``pass_manager.InlineOverloadsLazily``), run only when ``overloads_to_inline``."""

    _name = InlineOverloads._name

    def run_pass(self, state):
        if not overloads_to_inline(state):
            return True  # (what Numba's pass answers, changed or not)
        return super().run_pass(state)


def calls_literally(func_ir):
    """Does ``func_ir`` call ``numba.literally``, as Numba's ``find_literally_calls`` finds such
    calls (a global or free variable, or a getattr chain from a module global, naming it)?"""
    from numba.core.ir_utils import get_definition, guard

    for block in func_ir.blocks.values():
        for call in block.find_exprs(op="call"):
            callee = guard(get_definition, func_ir, call.func)
            if isinstance(callee, (ir.Global, ir.FreeVar)):
                fn = callee.value
            else:
                fn = guard(resolve_module_attribute, func_ir, callee)
            if fn is literally:
                return True
    return False


@_register
class FindLiterallyCallsWhenNeeded(FindLiterallyCalls):
    """Numba's ``FindLiterallyCalls``, which acts only on calls of ``numba.literally``, run only
    when there is one (``calls_literally``).  Numba's pass resolves every call of a getattr
    chain (``cuda.grid(1)``) with ``resolve_func_from_module``, leaving the function's IR in a
    reference cycle for the cyclic collector after each (see ``resolve_module_attribute``)."""

    _name = FindLiterallyCalls._name

    def run_pass(self, state):
        if calls_literally(state.func_ir):
            return super().run_pass(state)
        return False


# ---- bytecode translation ---------------------------------------------------------------------
_WITH_EXIT_PREFIX = "$setup_with_exitfn"


def _scopes(func_ir):
    seen = []
    for block in func_ir.blocks.values():
        scope = block.scope
        while scope is not None and all(scope is not s for s in seen):
            seen.append(scope)
            scope = scope.parent
    return seen


def peephole_triggers(func_ir):
    """The peepholes (Numba's functions) that have something to act on in ``func_ir``."""
    pop_block = list_to_tuple = call_ex = dict_update = False
    for block in func_ir.blocks.values():
        for inst in block.body:
            cls = type(inst)
            if cls is ir.Assign:
                value = inst.value
                if type(value) is ir.Expr:
                    op = value.op
                    if op == "call":
                        if value.vararg is not None or value.varkwarg is not None:
                            call_ex = True
                    elif op == "list_to_tuple":
                        list_to_tuple = True
                    elif op == "getattr" and value.attr == "_update_from_bytecode":
                        dict_update = True
            elif cls is ir.PopBlock or isinstance(inst, ir.PopBlock):
                pop_block = True
    with_exit = any(name.startswith(_WITH_EXIT_PREFIX)
                    for scope in _scopes(func_ir) for name in scope.localvars._con)
    return {peep_hole_split_at_pop_block: pop_block,
            peep_hole_list_to_tuple: list_to_tuple,
            peep_hole_delete_with_exit: with_exit,
            peep_hole_call_function_ex_to_call_function_kw: call_ex,
            peep_hole_fuse_dict_add_updates: dict_update}


class _TraceRunner(byteflow.TraceRunner):
    """Numba's ``TraceRunner``, appending a ``CACHE`` entry (all ``op_CACHE`` does) without the
    dispatch by name when no syntax block is open (the only other thing ``dispatch`` does)."""

    def dispatch(self, state):
        if not state._blockstack:
            inst = state.get_inst()
            opname = inst.opname
            if opname == "CACHE" and type(self).op_CACHE is byteflow.TraceRunner.op_CACHE:
                if type(state).append is byteflow._State.append:
                    # State.append(inst) with no operands: the entry, no registers used
                    state._insts.append((inst.offset, {}))
                else:
                    state.append(inst)
                return
            if not byteflow._logger.isEnabledFor(logging.DEBUG):
                # Numba's dispatch without its (disabled) debug logging
                fn = getattr(self, f"op_{opname}", None)
                if fn is not None:
                    fn(state, inst)
                    return
        return super().dispatch(state)


class CUDAFlow(byteflow.Flow):
    """Numba's ``Flow`` (the bytecode's control and data flow) with ``_TraceRunner``; for
    bytecode without exception table entries (no ``try``, no ``with``) and a state with no
    syntax block open, an instruction's exception handling is only advancing the pc."""

    def run(self):
        # Numba's Flow.run with _TraceRunner (its debug logging left out)
        firststate = byteflow.State(bytecode=self._bytecode, pc=0, nstack=0, blockstack=())
        runner = _TraceRunner(debug_filename=self._bytecode.func_id.filename)
        runner.pending.append(firststate)
        first_encounter = byteflow.UniqueDict()
        while runner.pending:
            state = runner.pending.popleft()
            if state not in runner.finished:
                first_encounter[state.pc_initial] = state
                while True:
                    runner.dispatch(state)
                    if state.has_terminated():
                        break
                    else:
                        if self._run_handle_exception(runner, state):
                            break
                        if self._is_implicit_new_block(state):
                            self._guard_with_as(state)
                            state.split_new_block()
                            break
                runner.finished.add(state)
                out_states = state.get_outgoing_states()
                runner.pending.extend(out_states)
        self._build_cfg(runner.finished)
        self._prune_phis(runner)
        for state in sorted(runner.finished, key=lambda x: x.pc_initial):
            self.block_infos[state.pc_initial] = byteflow.adapt_state_infos(state)

    def _is_implicit_new_block(self, state):
        # Numba's, looking the offset up in a set of the labels instead of their sorted list
        labels = self.__dict__.get("_label_set")
        if labels is None:
            labels = self._label_set = frozenset(self._bytecode.labels)
        inst = state.get_inst()
        return inst.offset in labels or inst.opname in byteflow.NEW_BLOCKERS

    def _run_handle_exception(self, runner, state):
        if (PYVERSION == (3, 11) and not state._blockstack
                and not getattr(self._bytecode, "exception_entries", True)):
            state.advance_pc()
            return False
        return super()._run_handle_exception(runner, state)


class CUDAInterpreter(Interpreter):
    """Numba's ``Interpreter``, running each closing peephole only when it has work, and not
    dispatching the ``CACHE`` entries of Python 3.11+ bytecode (Numba's ``op_CACHE`` does
    nothing; the location they would set is the one already current) outside ``with``
    blocks (where any instruction can close the block)."""

    def interpret(self, bytecode):
        # The handler cache (``_dispatch``) holds bound methods of the interpreter: a reference
        # cycle through it would keep the interpreter -- its blocks, scopes, flow analysis --
        # for the cyclic collector after the compile.  Dropped once the IR is made, reference
        # counting frees the interpreter when the pass lets go of it.
        try:
            return self._interpret(bytecode)
        finally:
            self.__dict__.pop("_handlers", None)

    def _interpret(self, bytecode):
        # Numba's Interpreter.interpret (Python 3.11) with CUDAFlow; any other Python: Numba's
        if (PYVERSION != (3, 11) or config.DUMP_CFG
                or byteflow._logger.isEnabledFor(logging.DEBUG)
                or interpreter._logger.isEnabledFor(logging.DEBUG)):
            return super().interpret(bytecode)
        self.bytecode = bytecode
        self.scopes = []
        global_scope = ir.Scope(parent=None, loc=self.loc)
        self.scopes.append(global_scope)
        flow = CUDAFlow(bytecode)
        flow.run()
        self.dfa = byteflow.AdaptDFA(flow)
        self.cfa = byteflow.AdaptCFA(flow)
        self.current_block = None
        self.current_block_offset = None
        last_active_offset = 0
        for _, inst_blocks in self.cfa.blocks.items():
            if inst_blocks.body:
                last_active_offset = max(last_active_offset, max(inst_blocks.body))
        self.last_active_offset = last_active_offset
        self.syntax_blocks = []
        self.dfainfo = None
        self.scopes.append(ir.Scope(parent=self.current_scope, loc=self.loc))
        for inst, kws in self._iter_inst():
            self._dispatch(inst, kws)
        self._end_try_blocks()
        self._legalize_exception_vars()
        func_ir = ir.FunctionIR(self.blocks, self.is_generator, self.func_id, self.first_loc,
                                self.definitions, self.arg_count, self.arg_names)
        peepholes = [peep_hole_split_at_pop_block, peep_hole_list_to_tuple,
                     peep_hole_delete_with_exit,
                     peep_hole_call_function_ex_to_call_function_kw,
                     peep_hole_fuse_dict_add_updates]
        return self.post_process(peepholes, func_ir)

    def _dispatch(self, inst, kws):
        # Numba's _dispatch (Python 3.11+) with the handler looked up once per opcode name
        # (while ``interpret`` runs: it drops the cache)
        if self.syntax_blocks or self._DEBUG_PRINT:
            return super()._dispatch(inst, kws)
        assert self.current_block is not None
        handlers = self.__dict__.get("_handlers")
        if handlers is None:
            handlers = self._handlers = {}
        fn = handlers.get(inst.opname)
        if fn is None:
            try:
                fn = handlers[inst.opname] = getattr(self, "op_%s" % inst.opname.replace("+", "_"))
            except AttributeError:
                return super()._dispatch(inst, kws)
        try:
            return fn(inst, **kws)
        except errors.NotDefinedError as e:
            loc = self.loc if e.loc is None else e.loc
            err = errors.NotDefinedError(e.name, loc=loc)
            if not config.FULL_TRACEBACKS:
                raise err from None
            err.add_context(f"handling op: {inst} | offset: {inst.offset}")
            err.add_context(self.bytecode.dump())
            raise err

    def _iter_inst(self):
        bytecode = self.bytecode
        for blkct, block in enumerate(self.cfa.iterliveblocks()):
            firstinst = bytecode[block.offset]
            if firstinst.opname == "END_FOR":
                firstinst = bytecode[firstinst.next]
            self.loc = self.loc.with_lineno(firstinst.lineno)
            self._start_new_block(block.offset)
            if blkct == 0:
                self.init_first_block()
            for offset, kws in self.dfainfo.insts:
                inst = bytecode[offset]
                if (inst.opname == "CACHE" and not kws and not self.syntax_blocks
                        and inst.lineno == self.loc.line and self.loc.col is None
                        and type(self).op_CACHE is Interpreter.op_CACHE):
                    continue
                self.loc = self.loc.with_lineno(inst.lineno)
                yield inst, kws
            self._end_current_block()

    def post_process(self, peepholes, func_ir):
        triggers = peephole_triggers(func_ir)
        changed = False
        for peep in peepholes:
            if changed or triggers.get(peep, True):
                func_ir = peep(func_ir)
                changed = True
        return func_ir


#: ``ir.Expr.infer_constant`` as Numba defines it: it raises ``ConstantInferenceError``,
#: whatever the expression (tests/compiler/test_front_end.py checks it)
_EXPR_INFER_CONSTANT = ir.Expr.infer_constant


class ConstantInference(consts.ConstantInference):
    """Numba's constant inference (``func_ir.infer_constant``), which for a variable defined by
    an expression first calls ``ir.Expr.infer_constant`` -- that always raises, formatting the
    expression and reading its source lines for the message -- and then, catching it, infers
    the expression (``_infer_expr``): here the expression is inferred straight away.  The same
    answers, the same cache."""

    def _do_infer(self, name):
        if isinstance(name, str):
            try:
                defn = self._func_ir.get_definition(name)
            except KeyError:
                defn = None
            if type(defn) is ir.Expr and ir.Expr.infer_constant is _EXPR_INFER_CONSTANT:
                return self._infer_expr(defn)
        return super()._do_infer(name)


def use_quick_constant_inference(func_ir):
    """Give ``func_ir`` ``ConstantInference`` (its cache kept) in place of Numba's."""
    if type(func_ir._consts) is consts.ConstantInference:
        func_ir._consts.__class__ = ConstantInference


@_register
class TranslateBytecodeQuickly(TranslateByteCode):
    """Numba's ``TranslateByteCode`` with ``CUDAInterpreter``; the IR gets
    ``ConstantInference``."""

    _name = TranslateByteCode._name

    def run_pass(self, state):
        interp = CUDAInterpreter(state["func_id"])
        state["func_ir"] = interp.interpret(state["bc"])
        use_quick_constant_inference(state["func_ir"])
        return True


#: Numba's pass -> the pass the CUDA pipeline runs in its place.
REPLACEMENTS = {
    TranslateByteCode: TranslateBytecodeQuickly,
    IRProcessing: ProcessIR,
    GenericRewrites: GenericRewritesLight,
    ReconstructSSA: ReconstructSSALight,
    IRLegalization: LegalizeIR,
    WithLifting: WithLiftingWhenNeeded,
    InlineOverloads: InlineOverloadsWhenNeeded,
    FindLiterallyCalls: FindLiterallyCallsWhenNeeded,
}

__all__ = ["REPLACEMENTS", "CUDAInterpreter", "light_post_process"]

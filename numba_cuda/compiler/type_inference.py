"""Numba's type inference, without re-running constraints that cannot change anything.

Numba's ``TypeInferer.propagate`` runs every constraint of the function (one per assignment,
call, attribute, ``setitem`` ...) in rounds until a round leaves every type variable as it was:
at least two rounds, the last of which only confirms the first.  Each run of a call constraint
folds its arguments, resolves the callee again and enters three error contexts and a
``warnings.catch_warnings``.

``CUDATypeInferer`` runs the same rounds, in the same order, but *settles* a constraint after a
run that provably has no further effect unless one of the type variables it read changes:

* the constraint is one of Numba's own kinds whose work is a function of the types it reads
  (``_SETTLING``) -- a third party's constraint, an argument, a ``print`` ... always runs;
* the run raised nothing, emitted no warning, and every resolution it asked of the typing
  context was answered from (or kept in) the context's tables of remembered answers
  (``CUDATypingContext.unremembered`` unchanged): another run would get the same answers
  without running a template.  A dispatcher, a module attribute, a recursive or first-class
  function call, a failed search ... leave the constraint unsettled;
* no type variable it read changed during the run (a constraint refining what it reads runs
  again).

A settled constraint is skipped as long as every type variable it read still holds the very
same type object and the context has not dropped its remembered answers (``generation``); its
run would add the types it added before, which unification absorbs, and record the same
signature.  The rounds therefore see the same type variables as Numba's, end at the same
round, and the last one reports the same errors (a failing constraint is never settled).
Writes (``add_type``, ``copy_type``'s destination, ``lock_type``) are not reads.

``CUDATypeInference`` is Numba's ``NopythonTypeInference`` pass driving this inferer;
``SETTLE = False`` makes it use Numba's ``TypeInferer`` (tests compare the two).
"""

import sys
import warnings

from numba.core import errors, typeinfer, types, utils
from numba.core.typed_passes import NopythonTypeInference, _TypingResults, fallback_context

from .pass_manager import register_replacement

#: Use ``CUDATypeInferer`` (False: Numba's ``TypeInferer``).
SETTLE = True

#: Numba's constraints whose run depends only on the type variables they read and on the typing
#: context's answers (exact classes; subclasses may do anything).
_SETTLING = frozenset((
    typeinfer.Propagate, typeinfer.ArgConstraint, typeinfer.CallConstraint, typeinfer.IntrinsicCallConstraint,
    typeinfer.GetAttrConstraint, typeinfer.SetItemConstraint, typeinfer.StaticSetItemConstraint,
    typeinfer.StaticGetItemConstraint, typeinfer.TypedGetItemConstraint,
    typeinfer.BuildTupleConstraint, typeinfer.ExhaustIterConstraint,
    typeinfer.PairFirstConstraint, typeinfer.PairSecondConstraint,
))

_get_typevar = typeinfer.TypeVarMap.__getitem__


class _TypeVars(typeinfer.TypeVarMap):
    """Numba's map of type variables, noting which ones (and their type at the first read) a
    constraint reads while ``reads`` is a dict."""

    reads = None

    def __getitem__(self, name):
        tv = self.get(name)
        if tv is None:
            tv = _get_typevar(self, name)
        reads = self.reads
        if reads is not None and name not in reads:
            reads[name] = (tv, tv.type)
        return tv


class _Warnings(errors.WarningsFixer):
    """Numba's warnings fixer; ``keep`` is what its ``catch_warnings`` does with the warnings
    it caught."""

    def keep(self, caught, filename, lineno):
        for w in caught:
            msg = str(w.message)
            if issubclass(w.category, self._category):
                # Store warnings of this category for deduplication
                filename = filename or w.filename
                lineno = lineno or w.lineno
                self._warnings[filename, lineno, w.category].add(msg)
            else:
                # Simply emit other warnings again
                warnings.warn_explicit(msg, w.category, w.filename, w.lineno)


class _Recording:
    """One ``warnings.catch_warnings(record=True)`` with Numba's ``always`` filter for the
    fixer's category, standing for the one Numba enters and leaves around every constraint
    (``WarningsFixer.catch_warnings``) for as long as no constraint changed what it set up:
    ``intact()`` after a constraint says so -- nothing recorded, the same filters (the list
    and its entries), the same ``showwarning`` and recorder -- and otherwise the recording is
    closed, what it caught handled as Numba handles it, and a fresh one opened for the next
    constraint.  The warnings module then does for each constraint what it does under Numba's
    per-constraint context: a warning is recorded (or filtered, or raised) under the same
    filters and handled when its constraint ends; a filter a constraint set lasts only for
    that constraint."""

    def __init__(self, category):
        self.category = category
        self.context = None

    def open(self):
        self.context = warnings.catch_warnings(record=True)
        self.log = self.context.__enter__()
        warnings.simplefilter("always", self.category)
        self.filters = warnings.filters
        self.entries = list(self.filters)
        self.show = warnings.showwarning
        # what records (``log.append``); without it (another Python), never intact
        self.impl = getattr(warnings, "_showwarnmsg_impl", None)

    def intact(self):
        return (not self.log and warnings.filters is self.filters
                and warnings.showwarning is self.show and self.impl is not None
                and getattr(warnings, "_showwarnmsg_impl", None) is self.impl
                and self.filters == self.entries)

    def close(self, *exc_info):
        context, self.context = self.context, None
        context.__exit__(*(exc_info or (None, None, None)))
        return self.log


class _SettlingNetwork(typeinfer.ConstraintNetwork):
    def __init__(self):
        super().__init__()
        # constraint index -> (context generation, ((type variable, type read), ...))
        self._settled = {}

    def propagate(self, typeinfer_):
        # Numba's ConstraintNetwork.propagate, skipping settled constraints (module docstring)
        # and entering one warnings recording for as long as the constraints leave it as it was
        # (``_Recording``).
        errors_ = []
        typevars = typeinfer_.typevars
        context = typeinfer_.context
        settled = self._settled
        fixer = typeinfer_.warnings
        recording = _Recording(fixer._category)
        recording.open()
        try:
            for index, constraint in enumerate(self.constraints):
                memo = settled.get(index)
                if memo is not None:
                    if memo[0] == context.generation:
                        for tv, ty in memo[1]:
                            if tv.type is not ty:
                                break
                        else:
                            continue
                    del settled[index]
                settling = type(constraint) in _SETTLING
                if settling:
                    reads = typevars.reads = {}
                    asked = context.unremembered, typeinfer_.unremembered
                    generation = context.generation
                failed = True
                try:
                    constraint(typeinfer_)
                    failed = False
                except errors.ForceLiteralArg as e:
                    errors_.append(e)
                except errors.TypingError as e:
                    typeinfer._logger.debug("captured error", exc_info=e)
                    new_exc = errors.TypingError(str(e), loc=constraint.loc,
                                                 highlighting=False)
                    errors_.append(utils.chain_exception(new_exc, e))
                finally:
                    typevars.reads = None
                caught = False
                if not recording.intact():
                    log = recording.close()
                    caught = bool(log)
                    loc = constraint.loc
                    fixer.keep(log, loc.filename, loc.line)
                    recording.open()
                if (settling and not failed and not caught
                        and asked == (context.unremembered, typeinfer_.unremembered)
                        and generation == context.generation):
                    read = tuple(reads.values())
                    for tv, ty in read:
                        if tv.type is not ty:
                            break
                    else:
                        settled[index] = (generation, read)
        finally:
            if recording.context is not None:
                recording.close(*sys.exc_info())
        return errors_


class CUDATypeInferer(typeinfer.TypeInferer):
    """Numba's ``TypeInferer`` with a constraint network that settles constraints (module
    docstring)."""

    def __init__(self, context, func_ir, warnings):
        super().__init__(context, func_ir, warnings)
        self.typevars = _TypeVars()
        self.typevars.set_context(context)
        self.constraints = _SettlingNetwork()
        #: resolutions this inferer made outside the typing context's tables
        self.unremembered = 0

    # -- writes: the variable written is not read -------------------------------------------
    def add_type(self, var, tp, loc, unless_locked=False):
        assert isinstance(var, str), type(var)
        tv = self.typevars.get(var)
        if tv is None:
            tv = _get_typevar(self.typevars, var)
        if unless_locked and tv.locked:
            return
        oldty = tv.type
        unified = tv.add_type(tp, loc=loc)
        if unified != oldty:
            self.propagate_refined_type(var, unified)

    def copy_type(self, src_var, dest_var, loc):
        _get_typevar(self.typevars, dest_var).union(self.typevars[src_var], loc=loc)

    def lock_type(self, var, tp, loc, literal_value=typeinfer.NOTSET):
        _get_typevar(self.typevars, var).lock(tp, loc=loc, literal_value=literal_value)

    def typeof_const(self, inst, target, const):
        # Numba's, with the literal type remembered by the context
        ty = self.resolve_value_type(inst, const)
        if inst.value.use_literal_type:
            lit = self.context.literal_type(const)
        else:
            lit = None
        self.add_type(target.name, lit or ty, loc=inst.loc)

    def resolve_call(self, fnty, pos_args, kw_args):
        if not isinstance(fnty, types.FunctionType) and (
                not isinstance(fnty, types.RecursiveCall) or self._skip_recursion):
            return super().resolve_call(fnty, pos_args, kw_args)
        # a first-class function's signature check, or a recursive call (which reads the
        # calling frame's partial inference): not the context's remembered answers
        self.unremembered += 1
        return super().resolve_call(fnty, pos_args, kw_args)


def type_inference_stage(typingctx, targetctx, interp, args, return_type, locals=None,
                         raise_errors=True):
    """Numba's ``typed_passes.type_inference_stage`` with ``CUDATypeInferer`` (when the context
    keeps the counters it reads, and ``SETTLE``)."""
    if not SETTLE or not hasattr(typingctx, "unremembered"):
        from numba.core.typed_passes import type_inference_stage as numbas

        return numbas(typingctx, targetctx, interp, args, return_type, locals=locals,
                      raise_errors=raise_errors)
    if locals is None:
        locals = {}
    if len(args) != interp.arg_count:
        raise TypeError("Mismatch number of argument types")
    fixer = _Warnings(errors.NumbaWarning)

    infer = CUDATypeInferer(typingctx, interp, fixer)
    callstack_ctx = typingctx.callstack.register(targetctx.target, infer, interp.func_id, args)
    with callstack_ctx, fixer:
        for index, (name, ty) in enumerate(zip(interp.arg_names, args)):
            infer.seed_argument(name, index, ty)
        if return_type is not None:
            infer.seed_return(return_type)
        for k, v in locals.items():
            infer.seed_type(k, v)
        infer.build_constraint()
        errs = infer.propagate(raise_errors=raise_errors)
        typemap, restype, calltypes = infer.unify(raise_errors=raise_errors)

    return _TypingResults(typemap, restype, calltypes, errs)


@register_replacement
class CUDATypeInference(NopythonTypeInference):
    """Numba's ``NopythonTypeInference`` with ``type_inference_stage`` above (the rest of its
    ``run_pass`` -- error contexts, the return-type check -- is Numba's, repeated)."""

    _name = NopythonTypeInference._name  # (error contexts name Numba's pass)

    def run_pass(self, state):
        with fallback_context(state, 'Function "%s" failed type inference'
                              % (state.func_id.func_name,)):
            typemap, return_type, calltypes, errs = type_inference_stage(
                state.typingctx, state.targetctx, state.func_ir, state.args,
                state.return_type, state.locals, raise_errors=self._raise_errors)
            state.typemap = typemap
            state.typing_errors = errs
            if self._raise_errors:
                state.return_type = return_type
            state.calltypes = calltypes

        with fallback_context(state, 'Function "%s" has invalid return type'
                              % (state.func_id.func_name,)):
            _legalize_return_type(state.return_type, state.func_ir, state.targetctx,
                                  self._raise_errors)
        return True


def _legalize_return_type(return_type, interp, targetctx, raise_errors):
    """Numba's check (``BaseTypeInference.run_pass``): an array may be returned only if it was
    passed in; no function objects."""
    from numba.core import ir

    if not targetctx.enable_nrt and isinstance(return_type, types.Array):
        retstmts = []
        caststmts = {}
        argvars = set()
        for bid, blk in interp.blocks.items():
            for inst in blk.body:
                if isinstance(inst, ir.Return):
                    retstmts.append(inst.value.name)
                elif isinstance(inst, ir.Assign):
                    if isinstance(inst.value, ir.Expr) and inst.value.op == 'cast':
                        caststmts[inst.target.name] = inst.value
                    elif isinstance(inst.value, ir.Arg):
                        argvars.add(inst.target.name)

        assert retstmts, "No return statements?"

        for var in retstmts:
            cast = caststmts.get(var)
            if cast is None or cast.value.name not in argvars:
                if raise_errors:
                    msg = "Only accept returning of array passed into the function as argument"
                    raise errors.NumbaTypeError(msg)

    elif isinstance(return_type, types.Function) or isinstance(return_type, types.Phantom):
        if raise_errors:
            msg = "Can't return function object ({}) in nopython mode"
            raise errors.NumbaTypeError(msg.format(return_type))



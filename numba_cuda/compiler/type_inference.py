"""Numba's type inference, without re-running constraints that cannot change anything.

Numba's ``TypeInferer.propagate`` runs every constraint of the function (one per assignment,
call, attribute, ``setitem`` ...) in rounds until a round leaves every type variable as it was:
at least two rounds, the last of which only confirms the first.  Each run of a call constraint
folds its arguments, resolves the callee again and enters three error contexts and a
``warnings.catch_warnings``.

``CUDATypeInferer`` runs the same rounds, in the same order, but *settles* a constraint after a
run that provably has no further effect unless one of the type variables it read changes:

* the constraint is one of Numba's own kinds whose work is a function of the types it reads
  (``_SETTLING``) -- a third party's constraint, a ``print``, a container build ... always
  runs;
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
Writes (``add_type``, ``copy_type``'s destination, ``lock_type``) are not reads.  What else a
skipped run would do is done instead: it enters its error context (``errors.loc_info`` notes
its location) and sets its entries of ``refine_map`` (the constraint to notify when a variable
is refined: the last one to set it wins).

Besides, with the same effects as Numba's code:

* one ``warnings.catch_warnings(record=True)`` (``_Recording``) stands for the one Numba enters
  around each constraint, for as long as no constraint records a warning or changes the
  warnings filters (then it is closed, the warnings handled as Numba handles them, and a fresh
  one opened);
* calls of plain function types, assignments and attribute constraints run by subclasses of
  Numba's constraints (``_IntrinsicCall``, ``_Call``, ``_Propagate``, ``_GetAttr``) that enter
  and leave Numba's error contexts without generators, and skip, for a ``types.Function``
  callee, the steps of ``CallConstraint.resolve`` that cannot apply to it;
* ``unify`` checks the variables without a call each (Numba's ``unify`` if one fails), the
  state token is built without sorting, constants and globals get their literal types from the
  context's remembered ones.

``CUDATypeInference`` is Numba's ``NopythonTypeInference`` pass driving this inferer;
``SETTLE = False`` makes it use Numba's ``TypeInferer`` (tests compare the two:
``tests/compiler/test_type_inference.py``).
"""

import abc
import operator
import sys
import warnings

from numba.core import errors, ir, typeinfer, types, utils
from numba.core.typed_passes import NopythonTypeInference, _TypingResults, fallback_context

from .pass_manager import register_replacement

#: Use ``CUDATypeInferer`` (False: Numba's ``TypeInferer``).
SETTLE = True

_get_typevar = typeinfer.TypeVarMap.__getitem__


# ---- calls of plain function types -----------------------------------------------------------
#: Types a plain function type (``types.Function``: operators, math functions, kernel-language
#: stubs, @overload-ed functions ...) is not an instance of -- unless someone registered it as a
#: virtual subclass of one: ``_plain_functions()`` asks again whenever ABC registrations change.
_NOT_A_FUNCTION = (types.TypeRef, types.BoundFunction, types.FunctionType, types.RecursiveCall)
_plain_memo = [None, False]


def _plain_functions():
    token = abc.get_cache_token()
    if _plain_memo[0] != token:
        _plain_memo[1] = not any(issubclass(types.Function, kind) for kind in _NOT_A_FUNCTION)
        _plain_memo[0] = token
    return _plain_memo[1]


def _error_context(exc, fmt, **kwargs):
    """What leaving Numba's ``errors.new_error_context(fmt, **kwargs)`` does to a NumbaError."""
    exc.add_context(errors._format_msg(fmt, (), kwargs))


def _enter_error_context(loc):
    """What entering Numba's ``errors.new_error_context(..., loc=loc)`` does."""
    if loc is not None and not loc.filename.startswith(errors._numba_path):
        errors.loc_info.update(loc=loc)


class _CallResolution:
    """``CallConstraint.resolve`` (Numba's) with a shorter path for a plain function type called
    with positional arguments only: the same steps without those that cannot apply to it (the
    keyword and ``*args`` folding, the ``TypeRef`` unwrapping, the bound-method refinement)."""

    def resolve(self, typeinfer_, typevars, fnty):
        if (type(fnty) is not types.Function or self.vararg is not None or self.kws
                or not _plain_functions()):
            return super().resolve(typeinfer_, typevars, fnty)
        assert fnty
        context = typeinfer_.context
        argvars = [typevars[a.name] for a in self.args]
        for tv in argvars:
            if tv.type is None:
                # Cannot resolve call type until all argument types are known
                return
        pos_args = tuple([tv.type for tv in argvars])
        for a in pos_args:
            # Forbids imprecise type except array of undefined dtype
            if not a.is_precise() and not isinstance(a, types.Array):
                return
        kw_args = {}
        try:
            sig = typeinfer_.resolve_call(fnty, pos_args, kw_args)
        except errors.ForceLiteralArg as e:
            folded = e.fold_arguments(self.args, self.kws)
            requested = set()
            unsatisfied = set()
            for idx in e.requested_args:
                maybe_arg = typeinfer_.func_ir.get_definition(folded[idx])
                if isinstance(maybe_arg, ir.Arg):
                    requested.add(maybe_arg.index)
                else:
                    unsatisfied.add(idx)
            if unsatisfied:
                raise errors.TypingError("Cannot request literal type.", loc=self.loc)
            elif requested:
                raise errors.ForceLiteralArg(requested, loc=self.loc)
        if sig is None:
            headtemp = "Invalid use of {0} with parameters ({1})"
            args = [str(a) for a in pos_args]
            head = headtemp.format(fnty, ', '.join(map(str, args)))
            desc = context.explain_function_type(fnty)
            msg = '\n'.join([head, desc])
            raise errors.TypingError(msg)

        typeinfer_.add_type(self.target, sig.return_type, loc=self.loc)

        if not sig.return_type.is_precise():
            target = typevars[self.target]
            if target.defined:
                targetty = target.getone()
                if context.unify_pairs(targetty, sig.return_type) == targetty:
                    sig = sig.replace(return_type=targetty)

        self.signature = sig
        self._add_refine_map(typeinfer_, typevars, sig)


class _IntrinsicCall(_CallResolution, typeinfer.IntrinsicCallConstraint):
    """Numba's ``IntrinsicCallConstraint`` (operators, ``getiter`` ...), its error context
    entered and left without a generator."""

    def __call__(self, typeinfer_):
        loc = self.loc
        _enter_error_context(loc)
        try:
            fnty = self.func
            if fnty in utils.OPERATORS_TO_BUILTINS:
                fnty = typeinfer_.resolve_value_type(None, fnty)
            self.resolve(typeinfer_, typeinfer_.typevars, fnty=fnty)
        except errors.NumbaError as e:
            _error_context(e, "typing of intrinsic-call at {loc}", loc=loc)
            raise


class _Call(_CallResolution, typeinfer.CallConstraint):
    """Numba's ``CallConstraint``, its three error contexts entered and left without
    generators."""

    def __call__(self, typeinfer_):
        loc = self.loc
        _enter_error_context(loc)
        try:
            typevars = typeinfer_.typevars
            try:
                fnty = typevars[self.func].getone()
            except errors.NumbaError as e:
                _error_context(e, "resolving caller type: {func}", func=self.func)
                raise
            try:
                self.resolve(typeinfer_, typevars, fnty)
            except errors.NumbaError as e:
                _error_context(e, "resolving callee type: {fnty}", fnty=fnty)
                raise
        except errors.NumbaError as e:
            _error_context(e, "typing of call at {loc}", loc=loc)
            raise


class _Propagate(typeinfer.Propagate):
    """Numba's ``Propagate`` (``a = b``, casts, phis), its error context entered and left
    without a generator."""

    def __call__(self, typeinfer_):
        loc = self.loc
        _enter_error_context(loc)
        try:
            typeinfer_.copy_type(self.src, self.dst, loc=loc)
            # If `dst` is refined, notify us
            typeinfer_.refine_map[self.dst] = self
        except errors.NumbaError as e:
            _error_context(e, "typing of assignment at {loc}", loc=loc)
            raise


class _GetAttr(typeinfer.GetAttrConstraint):
    """Numba's ``GetAttrConstraint``, its error context entered and left without a
    generator."""

    def __call__(self, typeinfer_):
        loc = self.loc
        _enter_error_context(loc)
        try:
            typevars = typeinfer_.typevars
            valtys = typevars[self.value.name].get()
            for ty in valtys:
                attrty = typeinfer_.context.resolve_getattr(ty, self.attr)
                if attrty is None:
                    raise errors.UntypedAttributeError(ty, self.attr, loc=self.inst.loc)
                else:
                    assert attrty.is_precise()
                    typeinfer_.add_type(self.target, attrty, loc=loc)
            typeinfer_.refine_map[self.target] = self
        except errors.NumbaError as e:
            _error_context(e, "typing of get attribute at {loc}", loc=loc)
            raise


#: Numba's constraints (exact classes) run by the classes above, which the network's
#: ``append`` gives them.
_FASTER = {typeinfer.Propagate: _Propagate, typeinfer.GetAttrConstraint: _GetAttr}

#: Numba's constraints whose run depends only on the type variables they read and on the typing
#: context's answers (exact classes; subclasses may do anything).
_SETTLING = frozenset((
    typeinfer.Propagate, typeinfer.ArgConstraint, typeinfer.CallConstraint,
    typeinfer.IntrinsicCallConstraint,
    typeinfer.GetAttrConstraint, typeinfer.SetItemConstraint, typeinfer.StaticSetItemConstraint,
    typeinfer.StaticGetItemConstraint, typeinfer.TypedGetItemConstraint,
    typeinfer.BuildTupleConstraint, typeinfer.ExhaustIterConstraint,
    typeinfer.PairFirstConstraint, typeinfer.PairSecondConstraint, _IntrinsicCall, _Call,
    _Propagate, _GetAttr,
))


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


class _RefineMap(dict):
    """Numba's ``refine_map`` (variable -> the constraint to notify when it is refined), noting
    the entries a constraint sets while ``writes`` is a list: a settled constraint's run would
    set them again (the last constraint to set one wins), so skipping it sets them."""

    writes = None

    def __setitem__(self, key, value):
        writes = self.writes
        if writes is not None:
            writes.append((key, value))
        dict.__setitem__(self, key, value)


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
    the network's check after each constraint says so -- nothing recorded, the same filters
    (the list and its entries), the same ``showwarning`` and recorder -- and otherwise it is
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

    def close(self, *exc_info):
        context, self.context = self.context, None
        context.__exit__(*(exc_info or (None, None, None)))
        return self.log


class _SettlingNetwork(typeinfer.ConstraintNetwork):
    def __init__(self):
        super().__init__()
        # by constraint index: None, or (context generation, ((type variable, type read), ...))
        self._settled = []

    def append(self, constraint):
        faster = _FASTER.get(type(constraint))
        if faster is not None:
            constraint.__class__ = faster  # the same constraint, run by the class above
        self.constraints.append(constraint)

    def propagate(self, typeinfer_):
        # Numba's ConstraintNetwork.propagate, skipping settled constraints (module docstring)
        # and entering one warnings recording for as long as the constraints leave it as it was
        # (``_Recording``: the check after each constraint below).
        errors_ = []
        typevars = typeinfer_.typevars
        context = typeinfer_.context
        constraints = self.constraints
        refine_map = typeinfer_.refine_map
        memos = self._settled
        if len(memos) < len(constraints):
            memos.extend([None] * (len(constraints) - len(memos)))
        fixer = typeinfer_.warnings
        recording = _Recording(fixer._category)
        opened = False  # the recording is opened for the first constraint that runs
        module = warnings
        try:
            for index, constraint in enumerate(constraints):
                memo = memos[index]
                if memo is not None:
                    if memo[0] == context.generation:
                        for tv, ty in memo[1]:
                            if tv.type is not ty:
                                break
                        else:
                            # what its run would do besides: enter its error context (which
                            # notes its location) and set its refine_map entries
                            _enter_error_context(constraint.loc)
                            for key, value in memo[2]:
                                dict.__setitem__(refine_map, key, value)
                            continue
                    memos[index] = None
                if not opened:
                    recording.open()
                    opened = True
                    log, filters, entries, show, impl = (
                        recording.log, recording.filters, recording.entries, recording.show,
                        recording.impl)
                settling = type(constraint) in _SETTLING
                if settling:
                    reads = typevars.reads = {}
                    refined = refine_map.writes = []
                    asked = context.unremembered
                    asked_here = typeinfer_.unremembered
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
                    refine_map.writes = None
                caught = False
                if (log or impl is None or module.filters is not filters
                        or module.showwarning is not show
                        or module._showwarnmsg_impl is not impl or filters != entries):
                    log = recording.close()
                    caught = bool(log)
                    loc = constraint.loc
                    fixer.keep(log, loc.filename, loc.line)
                    recording.open()
                    log, filters, entries, show, impl = (
                        recording.log, recording.filters, recording.entries, recording.show,
                        recording.impl)
                if (settling and not failed and not caught and asked == context.unremembered
                        and asked_here == typeinfer_.unremembered
                        and generation == context.generation):
                    read = tuple(reads.values())
                    for tv, ty in read:
                        if tv.type is not ty:
                            break
                    else:
                        # (an entry naming another constraint was set by someone else's
                        # refinement hook, which a further run would not call: not settled)
                        if all(value is constraint for _key, value in refined):
                            memos[index] = (generation, read, tuple(refined))
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
        self.refine_map = _RefineMap()
        #: resolutions this inferer made outside the typing context's tables
        self.unremembered = 0

    def unify(self, raise_errors=True):
        # Numba's unify checks every variable (defined, precise) in the order of the sorted
        # names, user-visible ones first, and builds the typemap from them; any variable that
        # fails the check makes it raise (or note ``unknown``).  Here the check runs without a
        # call per variable; if any variable would fail, Numba's unify runs (and reports it).
        if not raise_errors:
            return super().unify(raise_errors)
        typevars = self.typevars
        names = list(typevars)
        temps = sorted([k for k in names if not k[0].isalpha()])
        others = sorted([k for k in names if k[0].isalpha()])
        typdict = utils.UniqueDict()
        undefined_function = types.UndefinedFunctionType
        for var in others + temps:
            tp = typevars.get(var).type
            if tp is None:
                return super().unify(raise_errors)
            if isinstance(tp, undefined_function):
                tp = tp.get_precise()
            if not tp.is_precise():
                return super().unify(raise_errors)
            dict.__setitem__(typdict, var, tp)  # names are unique: UniqueDict's check holds
        return self._unify_rest(typdict)

    def _unify_rest(self, typdict):
        """The rest of Numba's ``unify`` (``raise_errors=True``), after the variables."""
        retty = self.get_return_type(typdict)
        typdict = utils.UniqueDict(typdict, **{v.name: retty for v in self._get_return_vars()})
        fntys = self.get_function_types(typdict)
        if self.generator_info:
            retty = self.get_generator_type(typdict, retty, raise_errors=True)
        for callnode, calltype in self.calltypes.items():
            if calltype is not None:
                for i, v in enumerate(calltype.args, start=1):
                    if v is types._undef_var:
                        m = f"undefined variable used in call argument #{i}"
                        raise errors.TypingError(m, loc=callnode.loc)
        self.debug.unify_finished(typdict, retty, fntys)
        return typdict, retty, fntys

    def get_state_token(self):
        # Numba's token lists the types in the order of the sorted variable names, to be
        # compared with the next round's.  Variables are only ever added, so two tokens with
        # as many entries are over the same variables and, in insertion order, pair the same
        # variables: equal exactly when Numba's are.
        return [tv.type for tv in self.typevars.values()]

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

    def constrain_statement(self, inst):
        # Numba's dispatch (``constrain_statement`` -> ``typeof_assign`` -> ``typeof_expr``) by
        # the exact classes and operator names of the commonest statements; the rest, and any
        # subclass, take Numba's chain of isinstance checks.
        if type(inst) is not ir.Assign or not _EXACT_DISPATCH:
            return super().constrain_statement(inst)
        value = inst.value
        kind = type(value)
        if kind is ir.Expr:
            build = _EXPRESSIONS.get(value.op)
            if build is None:
                return self.typeof_expr(inst, inst.target, value)
            return build(self, inst, inst.target, value, value._kws)
        if kind is ir.Const:
            return self.typeof_const(inst, inst.target, value.value)
        if kind is ir.Var:
            self.constraints.append(typeinfer.Propagate(dst=inst.target.name, src=value.name,
                                                        loc=inst.loc))
            return
        if kind is ir.Global or kind is ir.FreeVar:
            return self.typeof_global(inst, inst.target, value)
        if kind is ir.Arg:
            return self.typeof_arg(inst, inst.target, value)
        return self.typeof_assign(inst)

    def typeof_const(self, inst, target, const):
        # Numba's, with the literal type remembered by the context
        ty = self.resolve_value_type(inst, const)
        if inst.value.use_literal_type:
            lit = self.context.literal_type(const)
        else:
            lit = None
        self.add_type(target.name, lit or ty, loc=inst.loc)

    def typeof_call(self, inst, target, call):
        constraint = _Call(target.name, call.func.name, call.args, call.kws, call.vararg,
                           loc=inst.loc)
        self.constraints.append(constraint)
        self.calls.append((inst.value, constraint))

    def typeof_intrinsic_call(self, inst, target, func, *args):
        constraint = _IntrinsicCall(target.name, func, args, kws=(), vararg=None, loc=inst.loc)
        self.constraints.append(constraint)
        self.calls.append((inst.value, constraint))

    def typeof_global(self, inst, target, gvar):
        # Numba's, with the literal types asked of the context (``literal_type``)
        try:
            typ = self.resolve_value_type(inst, gvar.value)
        except errors.TypingError as e:
            if (gvar.name == self.func_id.func_name
                    and gvar.name in typeinfer._temporary_dispatcher_map):
                # Self-recursion case where the dispatcher is not (yet?) known
                # as a global variable
                typ = types.Dispatcher(typeinfer._temporary_dispatcher_map[gvar.name])
            else:
                from numba.misc import special

                nm = gvar.name
                # check if the problem is actually a name error
                func_glbls = self.func_id.func.__globals__
                if (nm not in func_glbls.keys() and
                        nm not in special.__all__ and
                        nm not in __builtins__.keys() and
                        nm not in self.func_id.code.co_freevars):
                    errstr = "NameError: name '%s' is not defined"
                    msg = typeinfer._termcolor.errmsg(errstr % nm)
                    e.patch_message(msg)
                    raise
                else:
                    msg = typeinfer._termcolor.errmsg("Untyped global name '%s':" % nm)
                msg += " %s"  # interps the actual error

                # if the untyped global is a numba internal function then add
                # to the error message asking if it's been imported.

                if nm in special.__all__:
                    tmp = ("\n'%s' looks like a Numba internal function, has "
                           "it been imported (i.e. 'from numba import %s')?\n" %
                           (nm, nm))
                    msg += typeinfer._termcolor.errmsg(tmp)
                e.patch_message(msg % e)
                raise

        if isinstance(typ, types.Dispatcher) and typ.dispatcher.is_compiling:
            # Recursive call
            callstack = self.context.callstack
            callframe = callstack.findfirst(typ.dispatcher.py_func)
            if callframe is not None:
                typ = types.RecursiveCall(typ)
            else:
                raise NotImplementedError(
                    "call to %s: unsupported recursion"
                    % typ.dispatcher)

        if isinstance(typ, types.Array):
            # Global array in nopython mode is constant
            typ = typ.copy(readonly=True)

        literal_type = self.context.literal_type
        if isinstance(typ, types.BaseAnonymousTuple):
            # if it's a tuple of literal types, swap the type for the more
            # specific literal version
            literaled = [literal_type(x) for x in gvar.value]
            if all(literaled):
                typ = types.Tuple(literaled)

            # if any of the items in the tuple are arrays, they need to be
            # typed as readonly, mutating an array in a global container
            # is not supported (should be compile time constant etc).
            def mark_array_ro(tup):
                newtup = []
                for item in tup.types:
                    if isinstance(item, types.Array):
                        item = item.copy(readonly=True)
                    elif isinstance(item, types.BaseAnonymousTuple):
                        item = mark_array_ro(item)
                    newtup.append(item)
                return types.BaseTuple.from_types(newtup)
            typ = mark_array_ro(typ)

        self.sentry_modified_builtin(inst, gvar)
        # Setting literal_value for globals because they are handled
        # like const value in numba
        lit = literal_type(gvar.value)
        # The user may have provided the type for this variable already.
        # In this case, call add_type() to make sure the value type is
        # consistent. See numba.tests.test_array_reductions
        # TestArrayReductions.test_array_cumsum for examples.
        # Variable type locked by using the locals dict.
        tv = self.typevars[target.name]
        if tv.locked:
            tv.add_type(lit or typ, loc=inst.loc)
        else:
            self.lock_type(target.name, lit or typ, loc=inst.loc)
        self.assumed_immutables.add(inst)

    def resolve_call(self, fnty, pos_args, kw_args):
        if type(fnty) is types.Function and _plain_functions():
            # Numba's last branch, the one a plain function type takes
            return self.context.resolve_function_type(fnty, pos_args, kw_args)
        if not isinstance(fnty, types.FunctionType) and (
                not isinstance(fnty, types.RecursiveCall) or self._skip_recursion):
            return super().resolve_call(fnty, pos_args, kw_args)
        # a first-class function's signature check, or a recursive call (which reads the
        # calling frame's partial inference): not the context's remembered answers
        self.unremembered += 1
        return super().resolve_call(fnty, pos_args, kw_args)


# ---- the commonest expressions, as Numba's typeof_expr constrains them ---------------------------
def _intrinsic_binop(infer, inst, target, expr, kws):  # binop, inplace_binop
    infer.typeof_intrinsic_call(inst, target, kws["fn"], kws["lhs"], kws["rhs"])


def _intrinsic_unary(infer, inst, target, expr, kws):
    infer.typeof_intrinsic_call(inst, target, kws["fn"], kws["value"])


def _intrinsic_iteration(infer, inst, target, expr, kws):  # getiter, iternext
    infer.typeof_intrinsic_call(inst, target, expr.op, kws["value"])


def _call(infer, inst, target, expr, kws):
    infer.typeof_call(inst, target, expr)


def _getitem(infer, inst, target, expr, kws):
    infer.typeof_intrinsic_call(inst, target, operator.getitem, kws["value"], kws["index"])


def _static_getitem(infer, inst, target, expr, kws):
    constraint = typeinfer.StaticGetItemConstraint(
        target.name, value=kws["value"], index=kws["index"], index_var=kws["index_var"],
        loc=expr.loc)
    infer.constraints.append(constraint)
    infer.calls.append((inst.value, constraint))


def _getattr(infer, inst, target, expr, kws):
    infer.constraints.append(typeinfer.GetAttrConstraint(
        target.name, attr=kws["attr"], value=kws["value"], loc=inst.loc, inst=inst))


def _cast(infer, inst, target, expr, kws):
    infer.constraints.append(typeinfer.Propagate(dst=target.name, src=kws["value"].name,
                                                 loc=inst.loc))


def _phi(infer, inst, target, expr, kws):
    for iv in kws["incoming_values"]:
        if iv is not ir.UNDEFINED:
            infer.constraints.append(typeinfer.Propagate(dst=target.name, src=iv.name,
                                                         loc=inst.loc))


def _pair(constraint_class):
    def pair(infer, inst, target, expr, kws):
        infer.constraints.append(constraint_class(target.name, pair=kws["value"],
                                                  loc=expr.loc))

    return pair


def _exhaust_iter(infer, inst, target, expr, kws):
    infer.constraints.append(typeinfer.ExhaustIterConstraint(
        target.name, count=kws["count"], iterator=kws["value"], loc=expr.loc))


def _build_tuple(infer, inst, target, expr, kws):
    infer.constraints.append(typeinfer.BuildTupleConstraint(target.name, items=kws["items"],
                                                            loc=inst.loc))


_EXPRESSIONS = {
    "call": _call, "getiter": _intrinsic_iteration, "iternext": _intrinsic_iteration,
    "exhaust_iter": _exhaust_iter, "pair_first": _pair(typeinfer.PairFirstConstraint),
    "pair_second": _pair(typeinfer.PairSecondConstraint), "binop": _intrinsic_binop,
    "inplace_binop": _intrinsic_binop, "unary": _intrinsic_unary,
    "static_getitem": _static_getitem, "getitem": _getitem, "getattr": _getattr,
    "build_tuple": _build_tuple, "cast": _cast, "phi": _phi,
}

#: Numba's typeof_assign tests the value's class with isinstance, in the order Const, Var,
#: Global/FreeVar, Arg, Expr: dispatching on the exact class is the same while none of them
#: derives from another (and Numba's handlers are still these).
_RHS = (ir.Const, ir.Var, ir.Global, ir.FreeVar, ir.Arg, ir.Expr, ir.Yield)
_EXACT_DISPATCH = not any(issubclass(a, b) for a in _RHS for b in _RHS if a is not b)


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



"""``CUDALower``: Numba's ``Lower`` for CUDA kernels and device functions.

It tells the call helper (``device_errors.CUDACallHelper``) which source location it lowers (for
exceptions raised without one, such as bounds checks) and the code library which line uses a
feature that needs a newer compute capability, and lowers assignments and operators without
the per-statement costs of Numba's paths (see the class docstring).
"""

import functools
import warnings

from llvmlite import ir as llvm_ir
from llvmlite.ir._utils import DuplicatedNameError, NameScope as _NameScope
from numba.core import cgutils, config, debuginfo, errors, types
from numba.core import ir as numba_ir
from numba.core.lowering import BaseLower, Lower

from . import local_variables, source_files

#: Numba's own sources: ``new_error_context`` keeps ``errors.loc_info`` for locations outside them
_NUMBA_PATH = errors._numba_path


class CUDALower(Lower):
    """Numba's ``Lower``, telling the call helper which source location it lowers (for
    exceptions raised without one, such as bounds checks), and the code library (for the
    source line of features that need a newer compute capability).

    Binary operators, ``getitem`` and ``setitem`` are lowered as Numba's ``lower_binop``/
    ``lower_getitem``/``lower_setitem`` do (the same loads, casts and implementation, in the
    same order), except that the operator's signature for the already-inferred argument types
    -- a template search Numba repeats for every operator it lowers -- is asked of the typing
    context's remembered answers (``CUDATypingContext.function_call_type``).  Binary operators with static operands (a
    rewrite sets them; none of Numba's front-end passes does) take Numba's path."""

    def _compute_def_location(self):
        # The ``def`` line for debug information (the function's DISubprogram, its prologue),
        # found by reading the source as Python does (Numba's finder opens the file in the
        # locale's encoding: UnicodeDecodeError for UTF-8 source under LC_ALL=C).  Numba takes
        # the line before the body's first statement: a comment line when comments come
        # first, a parameter line when the signature spans several lines.
        default = self.func_ir.loc.with_lineno(self.func_ir.loc.line + 1)
        if not self.context.enable_debuginfo:
            return default
        func = self.func_ir.func_id.func
        line = source_files.def_line(func)
        if line is None:
            warnings.warn(errors.NumbaDebugInfoWarning(
                f"Could not find the source of {func}: debug line information may be inaccurate."),
                stacklevel=2)
            return default
        return self.func_ir.loc.with_lineno(line)

    def pre_lower(self):
        # the function's return type, for its DISubroutineType (``CUDADIBuilder``)
        self.debuginfo.return_type = self.fndesc.restype
        super().pre_lower()

    def loadvar(self, name):
        # Numba's, except that a load of an argument in the body keeps the statement's debug
        # location: Numba drops it (so that nothing precedes the first source line), and
        # ptxas gives such an instruction line 0, which empties the location lists of the
        # variables live there (cuda-gdb then shows them as optimised out).  The prologue's
        # argument stores carry the ``def`` line.
        if name in self._blk_local_varmap and not self._disable_sroa_like_opt:
            return self._blk_local_varmap[name]
        return self.builder.load(self.getvar(name))

    def lower_block(self, block):
        # Numba's ``lower_block`` without a context manager (a generator, entered and left) per
        # instruction: a Numba error gets the same context, 'lowering "<inst>" at <loc>', and
        # ``errors.loc_info`` is kept as ``new_error_context`` keeps it.
        self.pre_block(block)
        for inst in block.body:
            self.loc = loc = inst.loc
            if not loc.filename.startswith(_NUMBA_PATH):
                errors.loc_info.update(inst=inst, loc=loc,
                                       errcls_=functools.partial(errors.LoweringError, loc=loc))
            try:
                self.lower_inst(inst)
            except errors.NumbaError as exc:
                exc.add_context(f'lowering "{inst}" at {loc}')
                raise
        self.post_block(block)

    def pre_block(self, block):
        # Numba's ``pre_block`` looks for calls of ``eh.exception_check`` (try blocks) in every
        # block, resolving every call's callee through the definitions: none can be found when
        # no definition of the function is that global (and CUDA refuses try blocks).
        if self._calls_exception_check or block == self.firstblk:
            return super().pre_block(block)
        BaseLower.pre_block(self, block)
        self._cur_ir_block = block

    @functools.cached_property
    def _calls_exception_check(self):
        from numba.core.unsafe import eh

        definitions = getattr(self.func_ir, "_definitions", None)
        if not isinstance(definitions, dict):
            return True
        check = eh.exception_check
        for values in definitions.values():
            for value in values:
                if isinstance(value, numba_ir.Global) and value.value is check:
                    return True
        return False

    def alloca_lltype(self, name, lltype, datamodel=None):
        # Numba's ``alloca_lltype``, with ``cgutils.alloca_once`` (an alloca and its zero-fill at
        # the end of the entry block, without debug locations) written without its three
        # context managers.
        if cgutils.alloca_once is not _NUMBAS_ALLOCA_ONCE:
            return super().alloca_lltype(name, lltype, datamodel)
        builder = self.builder
        metadata = builder.debug_metadata
        builder.debug_metadata = None
        try:
            current = builder.basic_block
            entry = builder.function.entry_basic_block
            if entry.terminator is not None:
                builder.position_before(entry.terminator)
            else:
                builder.position_at_end(entry)
            try:
                aptr = builder.alloca(lltype, size=None, name=name)
                builder.store(lltype(None), aptr)
            finally:
                builder.position_at_end(current)
        finally:
            builder.debug_metadata = metadata
        if not name.startswith('$') and name not in self.func_ir.arg_names:
            sizeof = self.context.get_abi_sizeof(lltype)
            self.debuginfo.mark_variable(builder, aptr, name=name, lltype=lltype, size=sizeof,
                                         line=self.loc.line, datamodel=datamodel)
        return aptr

    def _find_singly_assigned_variable(self):
        # Numba's analysis in one sweep (see ``local_variables``), or Numba's own where that
        # cannot answer.
        singly = None
        if not self.func_ir.func_id.is_generator:
            # without debug information, also the variables read in the blocks their
            # assignment dominates (debug information describes variables by their slots)
            across = local_variables.ACROSS_BLOCKS and not (self._disable_sroa_like_opt
                                                            or self._describes_variables)
            singly = local_variables.singly_assigned_variables(self.func_ir.blocks, across)
        if singly is None:
            return super()._find_singly_assigned_variable()
        self._singly_assigned_vars = singly
        self._blk_local_varmap = {}

    def setup_function(self, fndesc):
        super().setup_function(fndesc)
        # the function's value names (every instruction's, in all its blocks) from a scope
        # answering as llvmlite's does in one call per name
        scope = self.function.scope
        if type(scope) is _NameScope:
            scope.__class__ = FastNameScope

    @functools.cached_property
    def _disable_sroa_like_opt(self):
        # Numba's property (read for every variable access: the flags do not change while a
        # function is lowered), except with line information alone (``lineinfo=True``:
        # ``dbg_directives_only``), which describes no variable: its stack slots would only
        # make a different module for libNVVM to optimise, and lineinfo must not change the code.
        flags = self.flags
        if flags is not None and flags.debuginfo and flags.dbg_directives_only:
            return False
        return Lower._disable_sroa_like_opt.fget(self)

    @functools.cached_property
    def _describes_variables(self):
        """True when the debug information describes variables (``debug=True``), by their stack
        slots."""
        flags = self.flags
        return flags is not None and flags.debuginfo and not flags.dbg_directives_only

    def lower_inst(self, inst):
        loc = self.loc
        helper = getattr(self, "call_helper", None)
        if helper is not None:
            helper.loc = loc
        # where features needing a newer compute capability are used (CUDACodeLibrary.require_cc)
        self.library.lowering_loc = loc
        kind = type(inst)
        if kind is numba_ir.Assign and not config.DEBUG_JIT:
            return self._lower_assignment(inst)
        statement = _STATEMENTS.get(kind)
        if statement is None or config.DEBUG_JIT:
            return super().lower_inst(inst)
        statement = getattr(self, statement)
        # Numba's ``lower_inst`` for the other common statements, without formatting the
        # statement for ``debug_print`` (which prints nothing unless NUMBA_DEBUG_JIT is set) and
        # the chain of ``isinstance`` tests before the statement's branch
        if self._marks_locations:
            self.debuginfo.mark_location(self.builder, loc.line)
        if self._loc_notify_registry:
            self.notify_loc(loc)
        return statement(inst)

    def _lower_del(self, inst):
        self.delvar(inst.value)

    def _lower_jump(self, inst):
        self.builder.branch(self.blkmap[inst.target])

    def _lower_branch(self, inst):
        cond = self.loadvar(inst.cond.name)
        tr = self.blkmap[inst.truebr]
        fl = self.blkmap[inst.falsebr]
        condty = self.typeof(inst.cond.name)
        pred = self.context.cast(self.builder, cond, condty, types.boolean)
        assert pred.type == _I1, f"cond is not i1: {pred.type}"
        self.builder.cbranch(pred, tr, fl)

    def _lower_return(self, inst):
        if self.generator_info:
            self.genlower.return_from_generator(self)
            return
        val = self.loadvar(inst.value.name)
        oty = self.typeof(inst.value.name)
        ty = self.fndesc.restype
        if isinstance(ty, types.Optional):
            self.call_conv.return_optional_value(self.builder, ty, oty, val)
            return
        assert ty == oty, f"type '{oty}' does not match return type '{ty}'"
        retval = self.context.get_return_value(self.builder, ty, val)
        self.call_conv.return_value(self.builder, retval)

    def _lower_setitem_statement(self, inst):
        signature = self.fndesc.calltypes[inst]
        assert signature is not None
        return self.lower_setitem(inst.target, inst.index, inst.value, signature)

    def _lower_static_setitem(self, inst):
        signature = self.fndesc.calltypes[inst]
        assert signature is not None
        try:
            impl = self.context.get_function('static_setitem', signature)
        except NotImplementedError:
            return self.lower_setitem(inst.target, inst.index_var, inst.value, signature)
        target = self.loadvar(inst.target.name)
        value = self.loadvar(inst.value.name)
        valuety = self.typeof(inst.value.name)
        value = self.context.cast(self.builder, value, valuety, signature.args[2])
        return impl(self.builder, (target, inst.index, value))

    def delvar(self, name):
        # Numba's ``delvar`` (the same slot, load and zero-fill), asking for the reference
        # count only with the NRT, whose ``decref`` is the only thing Numba's call does.
        fetype = self.fndesc.typemap[name]
        local = self._blk_local_varmap
        in_registers = not self._disable_sroa_like_opt
        if in_registers and name not in local:
            self._singly_assigned_vars.discard(name)
        if name not in self.varmap:
            self._alloca_var(name, fetype)
        if in_registers and name in local:
            if self.context.enable_nrt:
                self.decref(fetype, local[name])
            return
        ptr = self.getvar(name)
        value = self.builder.load(ptr)
        if self.context.enable_nrt:
            self.decref(fetype, value)
        self.builder.store(llvm_ir.Constant(ptr.type.pointee, None), ptr)

    def lower_assign(self, ty, inst):
        # Numba's ``lower_assign``, testing the value's exact class first.
        value = inst.value
        kind = type(value)
        if kind is numba_ir.Expr:
            return self.lower_expr(ty, value)
        if kind is numba_ir.Const or kind is numba_ir.Global or kind is numba_ir.FreeVar:
            res = self.context.get_constant_generic(self.builder, ty, value.value)
            self.incref(ty, res)
            return res
        if kind is numba_ir.Var:
            val = self.loadvar(value.name)
            oty = self.typeof(value.name)
            res = self.context.cast(self.builder, val, oty, ty)
            self.incref(ty, res)
            return res
        return super().lower_assign(ty, inst)

    def lower_call(self, resty, expr):
        # Numba's ``lower_call`` and ``_lower_call_normal`` for plain callees, without
        # formatting the call for ``debug_print``.
        signature = self.fndesc.calltypes[expr]
        if config.DEBUG_JIT:
            return super().lower_call(resty, expr)
        if isinstance(signature.return_type, types.Phantom):
            return self.context.get_dummy_value()
        fnty = self.typeof(expr.func.name)
        if isinstance(fnty, _SPECIAL_CALLEES):
            return super().lower_call(resty, expr)
        res = self._lower_plain_call(fnty, expr, signature)
        if res is None:
            if signature.return_type == types.void:
                res = self.context.get_dummy_value()
            else:
                raise errors.LoweringError(
                    msg="non-void function returns None from implementation", loc=self.loc)
        return self.context.cast(self.builder, res, signature.return_type, resty)

    def _lower_plain_call(self, fnty, expr, signature):
        argvals = self.fold_call_args(fnty, signature, expr.args, expr.vararg, expr.kws)
        tname = expr.target
        if tname is not None:
            from numba.core.target_extension import resolve_dispatcher_from_str

            disp = resolve_dispatcher_from_str(tname)
            impl = disp.targetdescr.target_context.get_function(fnty, signature)
        else:
            impl = self.context.get_function(fnty, signature)
        if signature.recvr:
            argvals = [self.loadvar(expr.func.name)] + list(argvals)
        return impl(self.builder, argvals, self.loc)

    def _lower_assignment(self, inst):
        # Numba's ``lower_inst`` for an assignment, without printing the instruction for
        # ``debug_print`` (which prints nothing unless NUMBA_DEBUG_JIT is set): most of what a
        # kernel lowers is assignments.  Without debug information there is no location to
        # mark, without coverage no one to notify; a variable kept in a register (singly
        # assigned) is stored as ``storevar`` stores it.
        loc = self.loc
        if self._marks_locations:
            self.debuginfo.mark_location(self.builder, loc.line)
        if self._loc_notify_registry:
            self.notify_loc(loc)
        name = inst.target.name
        ty = self.fndesc.typemap[name]
        val = self.lower_assign(ty, inst)
        if isinstance(inst.value, numba_ir.Arg):
            # the debug location of an argument is the ``def`` line
            self.debuginfo.mark_location(self.builder, self.defn_loc.line)
            self.storevar(val, name, argidx=inst.value.index + 1)
        elif name in self._singly_assigned_vars and not self._disable_sroa_like_opt:
            # (``storevar``'s ``_alloca_var`` allocates nothing for such a variable)
            self._blk_local_varmap[name] = val
        else:
            self.storevar(val, name)

    @functools.cached_property
    def _marks_locations(self):
        # Numba's ``DummyDIBuilder`` (no debug information asked for) marks nothing
        return type(self.debuginfo) is not debuginfo.DummyDIBuilder

    def _call_type(self, fnop, args):
        typingctx = self.context.typing_context
        remembered = getattr(typingctx, "function_call_type", None)
        if remembered is None:
            return fnop.get_call_type(typingctx, args, {})
        return remembered(fnop, args)

    def lower_binop(self, resty, expr, op):
        from numba.core import ir

        if expr.static_lhs is not ir.UNDEFINED or expr.static_rhs is not ir.UNDEFINED:
            return super().lower_binop(resty, expr, op)
        context, builder = self.context, self.builder
        fnop = context.typing_context.resolve_value_type(op)
        lty = self.typeof(expr.lhs.name)
        rty = self.typeof(expr.rhs.name)
        lhs = self.loadvar(expr.lhs.name)
        rhs = self.loadvar(expr.rhs.name)
        signature = self.fndesc.calltypes[expr]
        lhs = context.cast(builder, lhs, lty, signature.args[0])
        rhs = context.cast(builder, rhs, rty, signature.args[1])
        impl = context.get_function(fnop, self._call_type(fnop, signature.args))
        res = impl(builder, (lhs, rhs))
        return context.cast(builder, res, signature.return_type, resty)

    def lower_getitem(self, resty, expr, value, index, signature):
        import operator

        context, builder = self.context, self.builder
        baseval = self.loadvar(value.name)
        indexval = self.loadvar(index.name)
        fnop = context.typing_context.resolve_value_type(operator.getitem)
        impl = context.get_function(fnop, self._call_type(fnop, signature.args))
        argtypes = (self.typeof(value.name), self.typeof(index.name))
        castvals = [context.cast(builder, val, have, want)
                    for val, have, want in zip((baseval, indexval), argtypes, signature.args)]
        res = impl(builder, castvals)
        return context.cast(builder, res, signature.return_type, resty)

    def lower_setitem(self, target_var, index_var, value_var, signature):
        import operator

        from numba.core import types

        context, builder = self.context, self.builder
        target = self.loadvar(target_var.name)
        value = self.loadvar(value_var.name)
        index = self.loadvar(index_var.name)
        targetty = self.typeof(target_var.name)
        valuety = self.typeof(value_var.name)
        indexty = self.typeof(index_var.name)
        fnop = context.typing_context.resolve_value_type(operator.setitem)
        impl = context.get_function(fnop, self._call_type(fnop, signature.args))
        if isinstance(targetty, types.Optional):
            target = context.cast(builder, target, targetty, targetty.type)
        elif types.unliteral(targetty) != types.unliteral(signature.args[0]):
            raise AssertionError(f"setitem on {targetty} typed as on {signature.args[0]}")
        index = context.cast(builder, index, indexty, signature.args[1])
        value = context.cast(builder, value, valuety, signature.args[2])
        return impl(builder, (target, index, value))


class FastNameScope(_NameScope):
    """llvmlite's ``NameScope`` (a function's value names), registering a name in one call:
    the same names (``name``, then ``name.1``, ``name.2`` ... for a taken one; ``.1``, ``.2``
    ... for unnamed values), the same ``DuplicatedNameError``."""

    def register(self, name, deduplicate=False):
        used = self._useset
        if name in used:
            if not deduplicate:
                raise DuplicatedNameError(name)
            basename = name
            counters = self._basenamemap
            while name in used:
                ident = counters[basename] + 1
                counters[basename] = ident
                name = f"{basename}.{ident}"  # (str.format's text: both are str/int)
        used.add(name)
        return name


_I1 = llvm_ir.IntType(1)
_NUMBAS_ALLOCA_ONCE = cgutils.alloca_once

#: callees Numba's ``lower_call`` lowers by a path of their own
_SPECIAL_CALLEES = (types.ObjModeDispatcher, types.ExternalFunction, types.ExternalFunctionPointer,
                    types.RecursiveCall, types.FunctionType)

#: statements ``CUDALower.lower_inst`` lowers with its own methods (exact classes: subclasses take Numba's
#: path), each as the branch of Numba's ``Lower.lower_inst`` for it
_STATEMENTS = {
    numba_ir.Del: "_lower_del",
    numba_ir.Jump: "_lower_jump",
    numba_ir.Branch: "_lower_branch",
    numba_ir.Return: "_lower_return",
    numba_ir.SetItem: "_lower_setitem_statement",
    numba_ir.StaticSetItem: "_lower_static_setitem",
}

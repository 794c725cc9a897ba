"""``CUDALower``: Numba's ``Lower`` for CUDA kernels and device functions.

It tells the call helper (``device_errors.CUDACallHelper``) which source location it lowers (for
exceptions raised without one, such as bounds checks) and the code library which line uses a
feature that needs a newer compute capability, and lowers assignments and operators without
the per-statement costs of Numba's paths (see the class docstring).
"""

import functools
import warnings

from numba.core import config, errors
from numba.core import ir as numba_ir
from numba.core.lowering import Lower

from . import source_files

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
        # The ``def`` line for debug information: the line before the body's first statement,
        # found by reading the source as Python does (Numba's finder opens the file in the
        # locale's encoding: UnicodeDecodeError for UTF-8 source under LC_ALL=C).
        default = self.func_ir.loc.with_lineno(self.func_ir.loc.line + 1)
        if not self.context.enable_debuginfo:
            return default
        func = self.func_ir.func_id.func
        first = source_files.first_body_line(func)
        if first is None:
            warnings.warn(errors.NumbaDebugInfoWarning(
                f"Could not find the source of {func}: debug line information may be inaccurate."),
                stacklevel=2)
            return default
        return self.func_ir.loc.with_lineno(first - 1)

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

    def lower_inst(self, inst):
        helper = getattr(self, "call_helper", None)
        if helper is not None:
            helper.loc = self.loc
        # where features needing a newer compute capability are used (CUDACodeLibrary.require_cc)
        self.library.lowering_loc = self.loc
        if type(inst) is numba_ir.Assign and not config.DEBUG_JIT:
            return self._lower_assignment(inst)
        return super().lower_inst(inst)

    def _lower_assignment(self, inst):
        # Numba's ``lower_inst`` for an assignment, without printing the instruction for
        # ``debug_print`` (which prints nothing unless NUMBA_DEBUG_JIT is set): most of what a
        # kernel lowers is assignments.
        self.debuginfo.mark_location(self.builder, self.loc.line)
        self.notify_loc(self.loc)
        ty = self.typeof(inst.target.name)
        val = self.lower_assign(ty, inst)
        argidx = None
        if isinstance(inst.value, numba_ir.Arg):
            # the debug location of an argument is the ``def`` line
            self.debuginfo.mark_location(self.builder, self.defn_loc.line)
            argidx = inst.value.index + 1
        self.storevar(val, inst.target.name, argidx=argidx)

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

"""Barriers and memory fences: ``cuda.syncthreads*``, ``cuda.syncwarp``, ``cuda.threadfence*``.

Each lowers to one NVVM intrinsic that both of libNVVM's IR readers know:

=========================  ===============================  ====================
Python                     NVVM intrinsic                   PTX
=========================  ===============================  ====================
``syncthreads()``          ``llvm.nvvm.barrier0``           ``bar.sync 0``
``syncthreads_count(p)``   ``llvm.nvvm.barrier0.popc``      ``bar.red.popc.u32``
``syncthreads_and(p)``     ``llvm.nvvm.barrier0.and``       ``bar.red.and.pred``
``syncthreads_or(p)``      ``llvm.nvvm.barrier0.or``        ``bar.red.or.pred``
``syncwarp(mask)``         ``llvm.nvvm.bar.warp.sync``      ``bar.warp.sync``
``threadfence()``          ``llvm.nvvm.membar.gl``          ``membar.gl``
``threadfence_block()``    ``llvm.nvvm.membar.cta``         ``membar.cta``
``threadfence_system()``   ``llvm.nvvm.membar.sys``         ``membar.sys``
=========================  ===============================  ====================

``syncthreads_count/and/or`` take any integer or boolean predicate (non-zero is true) and
return an ``int32``; ``syncwarp`` takes an optional integer mask (default: the full warp).
``nanosleep(ns)`` (PTX ``nanosleep.u32``, sm_70+; compiling it for an older GPU raises a
``TypingError`` naming the line) also lives here.
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, stubs

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.sync")
lower = lowering_registry.lower

_i32 = ir.IntType(32)
_void = ir.VoidType()
FULL_MASK = 0xFFFFFFFF


def _register(stub, template):
    template.key = stub
    typing_registry.register_global(stub, types.Function(template))


def _call_intrinsic(builder, name, ret, args):
    fnty = ir.FunctionType(ret, [a.type for a in args])
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    return builder.call(fn, args)


def _is_predicate(ty):
    return isinstance(ty, (types.Integer, types.Boolean))


# ---- typing ------------------------------------------------------------------------------


def _no_argument_template(stub):
    class NoArgument(AbstractTemplate):
        def generic(self, args, kws):
            if args or kws:
                raise errors.TypingError(f"{stub.qualname}() takes no arguments")
            return signature(types.none)

    _register(stub, NoArgument)


for _stub in (stubs.syncthreads, stubs.threadfence, stubs.threadfence_block, stubs.threadfence_system):
    _no_argument_template(_stub)


def _predicate_template(stub):
    class Predicate(AbstractTemplate):
        def generic(self, args, kws):
            if kws or len(args) != 1:
                raise errors.TypingError(f"{stub.qualname}(predicate) takes exactly one argument")
            (pred,) = args
            if not _is_predicate(pred):
                raise errors.TypingError(
                    f"{stub.qualname}(predicate): the predicate must be an integer or a boolean, "
                    f"not {pred}"
                )
            return signature(types.int32, pred)

    _register(stub, Predicate)


for _stub in (stubs.syncthreads_count, stubs.syncthreads_and, stubs.syncthreads_or):
    _predicate_template(_stub)


class _Syncwarp(AbstractTemplate):
    def generic(self, args, kws):
        if kws or len(args) > 1:
            raise errors.TypingError(
                "syncwarp(mask) takes one optional positional argument, the mask of the lanes "
                "to synchronise (default: the whole warp)"
            )
        if not args:
            return signature(types.none)
        (mask,) = args
        if not isinstance(mask, types.Integer):
            raise errors.TypingError(f"syncwarp(mask): the mask must be an integer, not {mask}")
        return signature(types.none, mask)


_register(stubs.syncwarp, _Syncwarp)


# ---- lowering ----------------------------------------------------------------------------


@lower(stubs.syncthreads)
def _lower_syncthreads(context, builder, sig, args):
    _call_intrinsic(builder, "llvm.nvvm.barrier0", _void, [])
    return context.get_dummy_value()


def _predicate_to_i32(context, builder, ty, value):
    """0 or 1 as an i32 from an integer or boolean predicate."""
    truth = context.is_true(builder, ty, value)
    return builder.zext(truth, _i32)


def _lower_barrier_reduction(name):
    def impl(context, builder, sig, args):
        pred = _predicate_to_i32(context, builder, sig.args[0], args[0])
        return _call_intrinsic(builder, name, _i32, [pred])

    return impl


for _stub, _name in (
    (stubs.syncthreads_count, "llvm.nvvm.barrier0.popc"),
    (stubs.syncthreads_and, "llvm.nvvm.barrier0.and"),
    (stubs.syncthreads_or, "llvm.nvvm.barrier0.or"),
):
    lower(_stub, types.Any)(_lower_barrier_reduction(_name))


@lower(stubs.syncwarp)
def _lower_syncwarp_full(context, builder, sig, args):
    _call_intrinsic(builder, "llvm.nvvm.bar.warp.sync", _void, [_i32(FULL_MASK)])
    return context.get_dummy_value()


@lower(stubs.syncwarp, types.Integer)
def _lower_syncwarp(context, builder, sig, args):
    mask = context.cast(builder, args[0], sig.args[0], types.uint32)
    _call_intrinsic(builder, "llvm.nvvm.bar.warp.sync", _void, [mask])
    return context.get_dummy_value()


def _lower_fence(name):
    def impl(context, builder, sig, args):
        _call_intrinsic(builder, name, _void, [])
        return context.get_dummy_value()

    return impl


for _stub, _name in (
    (stubs.threadfence, "llvm.nvvm.membar.gl"),
    (stubs.threadfence_block, "llvm.nvvm.membar.cta"),
    (stubs.threadfence_system, "llvm.nvvm.membar.sys"),
):
    lower(_stub)(_lower_fence(_name))


# ---- nanosleep -----------------------------------------------------------------------------
# ``cuda.nanosleep(ns)``: suspend the thread for about ``ns`` nanoseconds (at most 1 ms;
# PTX ``nanosleep.u32``, sm_70 and newer).  Older GPUs have no such instruction: compiling for
# one is a TypingError naming the feature and the line (ptxas refuses the instruction there,
# which is how Numba's built-in CUDA target and NVIDIA's fail).


class _Nanosleep(AbstractTemplate):
    def generic(self, args, kws):
        if kws or len(args) != 1:
            raise errors.TypingError("nanosleep(ns) takes exactly one positional argument")
        (ns,) = args
        if not isinstance(ns, types.Integer):
            raise errors.TypingError(f"nanosleep(ns): ns must be an integer, not {ns}")
        return signature(types.none, types.uint32)


_register(stubs.nanosleep, _Nanosleep)


#: PTX nanosleep exists from sm_70.
NANOSLEEP_CC = (7, 0)


@lower(stubs.nanosleep, types.uint32)
def _lower_nanosleep(context, builder, sig, args):
    archselect.require_cc(context, "cuda.nanosleep", NANOSLEEP_CC)
    builder.asm(ir.FunctionType(_void, [_i32]), "nanosleep.u32 $0;", "r", [args[0]],
                side_effect=True)
    return context.get_dummy_value()

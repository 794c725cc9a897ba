"""Warp-level primitives: shuffles, votes, matches, ``activemask``, ``lanemask_lt``.

==========================================  ==========================================
Python                                      lowering
==========================================  ==========================================
``shfl_sync(mask, value, src_lane)``        ``llvm.nvvm.shfl.sync.idx.{i32,f32}``
``shfl_up_sync(mask, value, delta)``        ``llvm.nvvm.shfl.sync.up.*``
``shfl_down_sync(mask, value, delta)``      ``llvm.nvvm.shfl.sync.down.*``
``shfl_xor_sync(mask, value, lane_mask)``   ``llvm.nvvm.shfl.sync.bfly.*``
``all_sync/any_sync/eq_sync(mask, pred)``   ``llvm.nvvm.vote.{all,any,uni}.sync`` -> bool
``ballot_sync(mask, pred)``                 ``llvm.nvvm.vote.ballot.sync`` -> uint32
``match_any_sync(mask, value)``             ``llvm.nvvm.match.any.sync.{i32,i64}`` -> uint32
``match_all_sync(mask, value)``             ``llvm.nvvm.match.all.sync.*p`` -> (uint32, bool)
``activemask()``                            ``activemask.b32`` -> uint32
``lanemask_lt()``                           ``%lanemask_lt`` -> uint32
==========================================  ==========================================

Shuffled and matched values may be int32/uint32/int64/uint64/float32/float64 (and booleans
for shuffles); 64-bit values are shuffled as two 32-bit halves.  Shuffles return the value's
type.  Masks and lane numbers are integers (converted to 32 bits).  The ``*_sync`` primitives
need every lane named in ``mask`` to execute them; ``match_*`` needs sm_70 or newer.
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, stubs

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.warp")
lower = lowering_registry.lower

_i1 = ir.IntType(1)
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)

VALUE_TYPES = (types.int32, types.uint32, types.int64, types.uint64, types.float32, types.float64)
SHUFFLE_TYPES = VALUE_TYPES + (types.boolean,)

#: Python name -> (NVVM shuffle mode, the "c" operand: lane clamp / segment mask for width 32)
SHUFFLES = {
    "shfl_sync": ("idx", 0x1F),
    "shfl_up_sync": ("up", 0x0),
    "shfl_down_sync": ("down", 0x1F),
    "shfl_xor_sync": ("bfly", 0x1F),
}
VOTES = {"all_sync": "all", "any_sync": "any", "eq_sync": "uni", "ballot_sync": "ballot"}


def _register(stub, generic):
    class Template(AbstractTemplate):
        key = stub

    Template.generic = generic
    typing_registry.register_global(stub, types.Function(Template))


def _check_arity(name, args, kws, count, spelling):
    if kws or len(args) != count:
        raise errors.TypingError(f"cuda.{name}{spelling} takes exactly {count} positional argument(s)")


def _check_integer(name, what, ty):
    if not isinstance(ty, types.Integer):
        raise errors.TypingError(f"cuda.{name}: {what} must be an integer, not {ty}")


# ---- typing ------------------------------------------------------------------------------


def _shuffle_generic(name, third):
    def generic(self, args, kws):
        _check_arity(name, args, kws, 3, f"(mask, value, {third})")
        mask, value, lane = args
        _check_integer(name, "mask", mask)
        _check_integer(name, third, lane)
        if value not in SHUFFLE_TYPES:
            raise errors.TypingError(
                f"cuda.{name}: value must be one of {', '.join(map(str, SHUFFLE_TYPES))}, not {value}"
            )
        return signature(value, types.uint32, value, types.uint32)

    return generic


for _name, (_mode, _clamp) in SHUFFLES.items():
    _third = {"shfl_sync": "src_lane", "shfl_xor_sync": "lane_mask"}.get(_name, "delta")
    _register(getattr(stubs, _name), _shuffle_generic(_name, _third))


def _vote_generic(name):
    result = types.uint32 if name == "ballot_sync" else types.boolean

    def generic(self, args, kws):
        _check_arity(name, args, kws, 2, "(mask, predicate)")
        mask, pred = args
        _check_integer(name, "mask", mask)
        if not isinstance(pred, (types.Boolean, types.Integer)):
            raise errors.TypingError(f"cuda.{name}: predicate must be a boolean or an integer, not {pred}")
        return signature(result, types.uint32, pred)

    return generic


for _name in VOTES:
    _register(getattr(stubs, _name), _vote_generic(_name))


def _match_generic(name, result):
    def generic(self, args, kws):
        _check_arity(name, args, kws, 2, "(mask, value)")
        mask, value = args
        _check_integer(name, "mask", mask)
        if value not in VALUE_TYPES:
            raise errors.TypingError(
                f"cuda.{name}: value must be one of {', '.join(map(str, VALUE_TYPES))}, not {value}"
            )
        return signature(result, types.uint32, value)

    return generic


_register(stubs.match_any_sync, _match_generic("match_any_sync", types.uint32))
_register(stubs.match_all_sync, _match_generic("match_all_sync", types.Tuple((types.uint32, types.boolean))))


def _no_argument_generic(name):
    def generic(self, args, kws):
        _check_arity(name, args, kws, 0, "()")
        return signature(types.uint32)

    return generic


_register(stubs.activemask, _no_argument_generic("activemask"))
_register(stubs.lanemask_lt, _no_argument_generic("lanemask_lt"))


# ---- lowering ----------------------------------------------------------------------------


def _intrinsic(builder, name, ret, args):
    fnty = ir.FunctionType(ret, [a.type for a in args])
    return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)


def _shuffle32(builder, mode, mask, value, lane, clamp):
    kind = "f32" if isinstance(value.type, ir.FloatType) else "i32"
    return _intrinsic(builder, f"llvm.nvvm.shfl.sync.{mode}.{kind}", value.type,
                      [mask, value, lane, ir.Constant(_i32, clamp)])


def _lower_shuffle(mode, clamp):
    def impl(context, builder, sig, args):
        mask, value, lane = args
        lltype = value.type
        if isinstance(lltype, ir.IntType) and lltype.width < 32:   # booleans
            widened = builder.zext(value, _i32)
            return builder.trunc(_shuffle32(builder, mode, mask, widened, lane, clamp), lltype)
        if lltype in (_i32, ir.FloatType()):
            return _shuffle32(builder, mode, mask, value, lane, clamp)
        # 64-bit: shuffle both halves with the same lane
        bits = builder.bitcast(value, _i64) if isinstance(lltype, ir.DoubleType) else value
        low = builder.trunc(bits, _i32)
        high = builder.trunc(builder.lshr(bits, ir.Constant(_i64, 32)), _i32)
        low = _shuffle32(builder, mode, mask, low, lane, clamp)
        high = _shuffle32(builder, mode, mask, high, lane, clamp)
        joined = builder.or_(builder.shl(builder.zext(high, _i64), ir.Constant(_i64, 32)),
                             builder.zext(low, _i64))
        return builder.bitcast(joined, lltype) if isinstance(lltype, ir.DoubleType) else joined

    return impl


for _name, (_mode, _clamp) in SHUFFLES.items():
    lower(getattr(stubs, _name), types.uint32, types.Any, types.uint32)(_lower_shuffle(_mode, _clamp))


def _lower_vote(mode):
    def impl(context, builder, sig, args):
        mask, pred = args
        truth = context.is_true(builder, sig.args[1], pred)
        if mode == "ballot":
            return _intrinsic(builder, "llvm.nvvm.vote.ballot.sync", _i32, [mask, truth])
        return _intrinsic(builder, f"llvm.nvvm.vote.{mode}.sync", _i1, [mask, truth])

    return impl


for _name, _mode in VOTES.items():
    lower(getattr(stubs, _name), types.uint32, types.Any)(_lower_vote(_mode))


#: match.{any,all}.sync exist from sm_70 (no fallback: a TypingError below, see archselect.require_cc).
MATCH_CC = (7, 0)


def _as_match_operand(builder, value):
    if isinstance(value.type, ir.FloatType):
        return builder.bitcast(value, _i32)
    if isinstance(value.type, ir.DoubleType):
        return builder.bitcast(value, _i64)
    return value


@lower(stubs.match_any_sync, types.uint32, types.Any)
def _lower_match_any(context, builder, sig, args):
    mask, value = args
    archselect.require_cc(context, "cuda.match_any_sync", MATCH_CC)
    value = _as_match_operand(builder, value)
    kind = f"i{value.type.width}"
    return _intrinsic(builder, f"llvm.nvvm.match.any.sync.{kind}", _i32, [mask, value])


@lower(stubs.match_all_sync, types.uint32, types.Any)
def _lower_match_all(context, builder, sig, args):
    mask, value = args
    archselect.require_cc(context, "cuda.match_all_sync", MATCH_CC)
    value = _as_match_operand(builder, value)
    kind = f"i{value.type.width}p"
    pair = _intrinsic(builder, f"llvm.nvvm.match.all.sync.{kind}", ir.LiteralStructType([_i32, _i1]),
                      [mask, value])
    lanes = builder.extract_value(pair, 0)
    pred = builder.extract_value(pair, 1)
    return context.make_tuple(builder, sig.return_type, [lanes, pred])


@lower(stubs.activemask)
def _lower_activemask(context, builder, sig, args):
    # side effect: the value depends on which lanes execute this point, so it must not be hoisted
    return builder.asm(ir.FunctionType(_i32, []), "activemask.b32 $0;", "=r", [], side_effect=True)


@lower(stubs.lanemask_lt)
def _lower_lanemask_lt(context, builder, sig, args):
    return builder.asm(ir.FunctionType(_i32, []), "mov.u32 $0, %lanemask_lt;", "=r", [], side_effect=False)

"""Bit and arithmetic intrinsics: ``cuda.popc``, ``clz``, ``ffs``, ``brev``, ``fma``, ``cbrt``, ``selp``.

=================  ===========================================  ======================================
function           types                                        lowering
=================  ===========================================  ======================================
``popc(x)``        any integer -> same type                     ``__nv_popc``/``__nv_popcll``
``clz(x)``         any integer -> same type (at x's width)      ``__nv_clz``/``__nv_clzll``
``ffs(x)``         any integer -> uint32 (1-based; 0 if x==0)   ``__nv_ffs``/``__nv_ffsll``
``brev(x)``        integers -> uint32 (<=32 bits) / uint64      ``__nv_brev``/``__nv_brevll``
``fma(a, b, c)``   float32 (all three) or float64               ``__nv_fmaf``/``__nv_fma``
``cbrt(x)``        float32, float64 (integers -> float64)       ``__nv_cbrtf``/``__nv_cbrt``
``selp(p, a, b)``  p: bool/int; a, b: the same numeric type     ``select``
=================  ===========================================  ======================================

Narrow integers (8/16 bits) are zero-extended to 32 bits first; ``clz`` then discounts the
added leading zeros so the result counts within ``x``'s own width.
"""

from llvmlite import ir
from numba.core import errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import libdevice_functions as libdevice
from . import stubs

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.bits")
lower = lowering_registry.lower

_i32 = ir.IntType(32)
_i64 = ir.IntType(64)

SELP_TYPES = (
    types.float64, types.float32, types.int16, types.uint16,
    types.int32, types.uint32, types.int64, types.uint64,
)


def _register(stub, generic):
    class Template(AbstractTemplate):
        key = stub

    Template.generic = generic
    typing_registry.register_global(stub, types.Function(Template))


def _one_arg(name, args, kws):
    if kws or len(args) != 1:
        raise errors.TypingError(f"cuda.{name}(x) takes exactly one positional argument")
    return args[0]


def _integer_only(name, ty):
    if not isinstance(ty, types.Integer):
        raise errors.TypingError(f"cuda.{name}(x): x must be an integer, not {ty}")


# ---- typing ------------------------------------------------------------------------------


def _popc_clz_generic(name):
    def generic(self, args, kws):
        x = _one_arg(name, args, kws)
        _integer_only(name, x)
        return signature(x, x)

    return generic


_register(stubs.popc, _popc_clz_generic("popc"))
_register(stubs.clz, _popc_clz_generic("clz"))


def _ffs_generic(self, args, kws):
    x = _one_arg("ffs", args, kws)
    _integer_only("ffs", x)
    return signature(types.uint32, x)


_register(stubs.ffs, _ffs_generic)


def _brev_generic(self, args, kws):
    x = _one_arg("brev", args, kws)
    _integer_only("brev", x)
    result = types.uint64 if x.bitwidth == 64 else types.uint32
    return signature(result, result)


_register(stubs.brev, _brev_generic)


def _cbrt_generic(self, args, kws):
    x = _one_arg("cbrt", args, kws)
    if x in (types.float32, types.float64):
        return signature(x, x)
    if isinstance(x, types.Integer):
        return signature(types.float64, types.float64)
    raise errors.TypingError(f"cuda.cbrt(x): x must be a float or an integer, not {x}")


_register(stubs.cbrt, _cbrt_generic)


def _fma_generic(self, args, kws):
    if kws or len(args) != 3:
        raise errors.TypingError("cuda.fma(a, b, c) takes exactly three positional arguments")
    if not all(isinstance(a, (types.Float, types.Integer)) for a in args):
        raise errors.TypingError(f"cuda.fma(a, b, c): the arguments must be numbers, not {args}")
    result = types.float32 if all(a == types.float32 for a in args) else types.float64
    return signature(result, result, result, result)


_register(stubs.fma, _fma_generic)


def _selp_generic(self, args, kws):
    if kws or len(args) != 3:
        raise errors.TypingError("cuda.selp(pred, a, b) takes exactly three positional arguments")
    pred, a, b = args
    if not isinstance(pred, (types.Boolean, types.Integer)):
        raise errors.TypingError(f"cuda.selp: the predicate must be a boolean or an integer, not {pred}")
    if a != b or a not in SELP_TYPES:
        raise errors.TypingError(
            f"cuda.selp(pred, a, b): a and b must have the same type, one of "
            f"{', '.join(map(str, SELP_TYPES))}; got {a} and {b}"
        )
    return signature(a, pred, a, b)


_register(stubs.selp, _selp_generic)


# ---- lowering ----------------------------------------------------------------------------


def _widen(builder, value):
    """Zero-extend an integer narrower than 32 bits to i32; return (value, is_64bit)."""
    width = value.type.width
    if width < 32:
        return builder.zext(value, _i32), False
    return value, width == 64


def _fit(builder, value, lltype):
    """An i32 result resized (zext/trunc) to the integer type ``lltype``."""
    if lltype.width > value.type.width:
        return builder.zext(value, lltype)
    if lltype.width < value.type.width:
        return builder.trunc(value, lltype)
    return value


@lower(stubs.popc, types.Integer)
def _lower_popc(context, builder, sig, args):
    value, wide = _widen(builder, args[0])
    count = libdevice.call(builder, "popcll" if wide else "popc", [value])
    return _fit(builder, count, context.get_value_type(sig.return_type))


@lower(stubs.clz, types.Integer)
def _lower_clz(context, builder, sig, args):
    original = args[0].type.width
    value, wide = _widen(builder, args[0])
    count = libdevice.call(builder, "clzll" if wide else "clz", [value])
    if original < 32:
        count = builder.sub(count, ir.Constant(_i32, 32 - original))
    return _fit(builder, count, context.get_value_type(sig.return_type))


@lower(stubs.ffs, types.Integer)
def _lower_ffs(context, builder, sig, args):
    value, wide = _widen(builder, args[0])
    return libdevice.call(builder, "ffsll" if wide else "ffs", [value])


@lower(stubs.brev, types.uint32)
@lower(stubs.brev, types.uint64)
def _lower_brev(context, builder, sig, args):
    wide = sig.args[0] == types.uint64
    return libdevice.call(builder, "brevll" if wide else "brev", list(args))


@lower(stubs.cbrt, types.float32)
@lower(stubs.cbrt, types.float64)
def _lower_cbrt(context, builder, sig, args):
    return libdevice.call(builder, "cbrtf" if sig.args[0] == types.float32 else "cbrt", list(args))


@lower(stubs.fma, types.float32, types.float32, types.float32)
@lower(stubs.fma, types.float64, types.float64, types.float64)
def _lower_fma(context, builder, sig, args):
    return libdevice.call(builder, "fmaf" if sig.args[0] == types.float32 else "fma", list(args))


@lower(stubs.selp, types.Any, types.Any, types.Any)
def _lower_selp(context, builder, sig, args):
    pred, a, b = args
    truth = context.is_true(builder, sig.args[0], pred)
    return builder.select(truth, a, b)

"""FP8 in kernels: the types ``fp8_e4m3``, ``fp8_e5m2`` and ``fp8_e8m0`` (``numba.cuda.fp8``).

Each is an 8-bit storage type, as CUDA's ``__nv_fp8_e4m3``/``__nv_fp8_e5m2``/``__nv_fp8_e8m0``:
construct one from any number (``fp8_e4m3(x)``), convert it back with ``float32(v)``,
``float16(v)``, ``int32(v)``, ``cuda.bf16.bfloat16(v)`` ...; there is no FP8 arithmetic (CUDA
has none either: compute in float32).  The constructors round as CUDA's do: e4m3 and e5m2 to
nearest-even, overflow and infinities saturating to the largest finite value of their sign
(``__NV_SATFINITE``), NaN to NaN; e8m0 (an unsigned power of two) rounds the magnitude up,
saturated to 2**127.  A float64 or integer converts with one rounding (to float32 rounding to odd
first).  The encoding is integer arithmetic (``numba_cuda.lang.fp8_codec``, the simulator runs
the same functions), so every compute capability compiles it; no cc is refused.
"""

from llvmlite import ir
from numba.core import types
from numba.core.datamodel import models
from numba.core.extending import register_model
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import Registry as TypingRegistry

from . import fp8_codec

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.fp8")

_i8, _i32, _i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
_f32, _f64 = ir.FloatType(), ir.DoubleType()


class FP8Type(types.Number):
    """The Numba type of one FP8 format (``fmt``: e4m3, e5m2 or e8m0)."""

    bitwidth = 8

    def __init__(self, fmt):
        self.fmt = fmt
        super().__init__(name=f"fp8_{fmt}")

    def unify(self, typingctx, other):
        return self if other == self else None


@register_model(FP8Type)
class FP8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _i8)


fp8_e4m3 = FP8Type("e4m3")
fp8_e5m2 = FP8Type("e5m2")
fp8_e8m0 = FP8Type("e8m0")
FORMATS = {"e4m3": fp8_codec.E4M3, "e5m2": fp8_codec.E5M2}


def is_fp8_supported():
    """True: the FP8 types and their conversions compile for every compute capability (the
    encoding is integer arithmetic; there is no FP8 arithmetic to need sm_89+)."""
    return True


def _odd_float32(builder, value):
    """float64 -> float32 rounding to odd (toward zero, last bit set if inexact): a second
    rounding to a narrower format is then correct."""
    fnty = ir.FunctionType(_f32, [_f64])
    truncated = builder.call(ir.InlineAsm(fnty, "cvt.rz.f32.f64 $0, $1;", "=f,d"), [value])
    exact = builder.fcmp_ordered("==", builder.fpext(truncated, _f64), value)
    bits = builder.bitcast(truncated, _i32)
    is_nan = builder.fcmp_unordered("uno", value, value)
    odd = builder.select(builder.or_(exact, is_nan), bits, builder.or_(bits, ir.Constant(_i32, 1)))
    return builder.bitcast(odd, _f32)


def _encode(context, builder, fmt, value32):
    bits = builder.zext(builder.bitcast(value32, _i32), _i64)
    i64 = types.int64
    if fmt == "e8m0":
        code = context.compile_internal(builder, fp8_codec.encode_e8m0, i64(i64), [bits])
    else:
        ebits, mbits, has_inf = FORMATS[fmt]
        consts = [ir.Constant(_i64, c) for c in (ebits, mbits, has_inf, 1)]
        code = context.compile_internal(builder, fp8_codec.encode_fp8, i64(i64, i64, i64, i64, i64),
                                        [bits] + consts)
    return builder.trunc(code, _i8)


def _decode(context, builder, fmt, code):
    byte = builder.zext(code, _i64)
    i64 = types.int64
    if fmt == "e8m0":
        bits = context.compile_internal(builder, fp8_codec.decode_e8m0, i64(i64), [byte])
    else:
        ebits, mbits, has_inf = FORMATS[fmt]
        consts = [ir.Constant(_i64, c) for c in (ebits, mbits, has_inf)]
        bits = context.compile_internal(builder, fp8_codec.decode_fp8, i64(i64, i64, i64, i64),
                                        [byte] + consts)
    return builder.bitcast(builder.trunc(bits, _i32), _f32)


@lowering_registry.lower_cast(types.Number, FP8Type)
def _number_to_fp8(context, builder, fromty, toty, value):
    if fromty == types.float32:
        value32 = value
    else:
        # exact in float64 for every float16, bfloat16, float32 and integer up to 2**53 (larger
        # ones saturate anyway)
        value32 = _odd_float32(builder, context.cast(builder, value, fromty, types.float64))
    return _encode(context, builder, toty.fmt, value32)


@lowering_registry.lower_cast(types.Boolean, FP8Type)
def _bool_to_fp8(context, builder, fromty, toty, value):
    return _encode(context, builder, toty.fmt, builder.uitofp(value, _f32))


@lowering_registry.lower_cast(FP8Type, types.Number)
def _fp8_to_number(context, builder, fromty, toty, value):
    return context.cast(builder, _decode(context, builder, fromty.fmt, value), types.float32, toty)


@lowering_registry.lower_cast(FP8Type, FP8Type)
def _fp8_to_fp8(context, builder, fromty, toty, value):
    if fromty == toty:
        return value
    return _encode(context, builder, toty.fmt, _decode(context, builder, fromty.fmt, value))


@lowering_registry.lower_cast(FP8Type, types.Boolean)
def _fp8_to_bool(context, builder, fromty, toty, value):
    wide = _decode(context, builder, fromty.fmt, value)
    return builder.fcmp_unordered("!=", wide, ir.Constant(_f32, 0.0))

"""bfloat16 conversions with a rounding mode and bit reinterpretations (``cuda.bf16``).

Each conversion has its CUDA name (``float2bfloat16_rz``, ``bfloat162int_rd`` ...) and its
NumPy-style alias (``float32_to_bfloat16_rz``, ``bfloat16_to_int32_rd`` ...; the same object,
see ``numba_cuda.lang.stubs.BF16_CONVERSIONS``).  Rounding modes: ``rn`` nearest-even, ``rz``
toward zero, ``rd`` down, ``ru`` up.

* float32 -> bfloat16: ``rn`` as ``bfloat16(x)``; ``rz/rd/ru`` on the bits (drop the low 16 bits,
  step the magnitude up when something was lost and the direction asks for it; NaN stays a quiet
  NaN), every compute capability.
* integer -> bfloat16: ``cvt.{rz,rm,rp}.f32.{s64,u64}`` then the same directed rounding (rounding
  twice in one direction is rounding once); ``rn``: toward zero to float32 with the last bit set
  when something was lost (round to odd), then nearest-even, so there is no double rounding.
* bfloat16 -> integer: exact to float32, then ``cvt.{rni,rzi,rmi,rpi}.<int>.f32``, which saturates
  to the integer's range and gives 0 for NaN (CUDA's ``__bfloat162int_rn`` ...); 8-bit results
  through 16 bits, clamped.
* ``bfloat16_as_short/ushort`` and ``short/ushort_as_bfloat16``: the 16 bits unchanged.
"""

from llvmlite import ir
from numba.core import errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import stubs
from .bf16 import Bfloat16Type, bfloat16, from_float32, from_float64, to_float32

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.bf16_conversions")
lower = lowering_registry.lower

_i16, _i32, _i64, _f32 = ir.IntType(16), ir.IntType(32), ir.IntType(64), ir.FloatType()
_CUDA_TARGET = {"target": "cuda"}
#: CUDA integer name -> (Numba type, PTX type, inline-asm constraint)
_INTEGERS = {
    "short": (types.int16, "s16", "h"), "ushort": (types.uint16, "u16", "h"),
    "int": (types.int32, "s32", "r"), "uint": (types.uint32, "u32", "r"),
    "ll": (types.int64, "s64", "l"), "ull": (types.uint64, "u64", "l"),
}
_TO_FLOAT_MODE = {"rz": "rz", "rd": "rm", "ru": "rp"}
_TO_INT_MODE = {"rn": "rni", "rz": "rzi", "rd": "rmi", "ru": "rpi"}


def _asm(builder, text, constraints, rettype, args):
    fnty = ir.FunctionType(rettype, [a.type for a in args])
    return builder.call(ir.InlineAsm(fnty, text, constraints), args)


def float32_to_bf16(builder, value, mode):
    """float32 -> bfloat16 bits rounding by ``mode`` (rn, rz, rd, ru)."""
    if mode == "rn":
        return from_float32(builder, value)
    bits = builder.bitcast(value, _i32)
    upper = builder.lshr(bits, ir.Constant(_i32, 16))
    lost = builder.icmp_unsigned("!=", builder.and_(bits, ir.Constant(_i32, 0xFFFF)), ir.Constant(_i32, 0))
    negative = builder.icmp_signed("<", bits, ir.Constant(_i32, 0))
    if mode == "rz":
        step = ir.Constant(ir.IntType(1), 0)
    elif mode == "ru":
        step = builder.and_(lost, builder.not_(negative))
    else:
        step = builder.and_(lost, negative)
    rounded = builder.add(upper, builder.zext(step, _i32))
    is_nan = builder.fcmp_unordered("uno", value, value)
    quiet = builder.or_(upper, ir.Constant(_i32, 0x40))
    return builder.trunc(builder.select(is_nan, quiet, rounded), _i16)


def integer_to_bf16(builder, value, signed, mode):
    """An integer (any width) -> bfloat16 bits rounding by ``mode``."""
    wide = (builder.sext if signed else builder.zext)(value, _i64) if value.type.width < 64 else value
    suffix = "s64" if signed else "u64"
    if mode != "rn":
        f = _asm(builder, f"cvt.{_TO_FLOAT_MODE[mode]}.f32.{suffix} $0, $1;", "=f,l", _f32, [wide])
        return float32_to_bf16(builder, f, mode)
    truncated = _asm(builder, f"cvt.rz.f32.{suffix} $0, $1;", "=f,l", _f32, [wide])
    back = _asm(builder, f"cvt.rzi.{suffix}.f32 $0, $1;", "=l,f", _i64, [truncated])
    inexact = builder.zext(builder.icmp_unsigned("!=", back, wide), _i32)
    odd = builder.or_(builder.bitcast(truncated, _i32), inexact)
    return from_float32(builder, builder.bitcast(odd, _f32))


def bf16_to_integer(builder, bits, ptx_type, constraint, lltype, mode):
    text = f"cvt.{_TO_INT_MODE[mode]}.{ptx_type}.f32 $0, $1;"
    return _asm(builder, text, f"={constraint},f", lltype, [to_float32(builder, bits)])


# ---- typing ------------------------------------------------------------------------------


def _template(name, param, result, accepts):
    stub = getattr(stubs.bf16, name)
    qualname = f"cuda.bf16.{name}"
    alias = stubs.BF16_CONVERSIONS[name]

    class Conversion(AbstractTemplate):
        key = stub
        metadata = _CUDA_TARGET

        def generic(self, args, kws):
            if kws or len(args) != 1:
                raise errors.TypingError(f"{qualname} ({alias}) takes exactly 1 positional argument")
            if not accepts(args[0]):
                raise errors.TypingError(f"{qualname} ({alias}) takes {param}, got {args[0]}")
            return signature(result, param)

    typing_registry.register_global(stub, types.Function(Conversion))
    return stub


def _is_bf16(t):
    return t == bfloat16 or isinstance(t, types.IntegerLiteral)


def _is_integer(t):
    return isinstance(t, (types.Integer, types.Boolean))


def _is_real(t):
    return isinstance(t, (types.Float, types.Integer, types.Boolean))


def _lower_simple(compute):
    def impl(context, builder, sig, args):
        return compute(builder, args[0])

    return impl


lower(_template("bfloat162float", bfloat16, types.float32, _is_bf16), Bfloat16Type)(
    _lower_simple(to_float32))
lower(_template("float2bfloat16", types.float32, bfloat16, _is_real), types.float32)(
    _lower_simple(from_float32))
lower(_template("double2bfloat16", types.float64, bfloat16, _is_real), types.float64)(
    _lower_simple(from_float64))

for _mode in stubs.BF16_ROUNDINGS:
    lower(_template(f"float2bfloat16_{_mode}", types.float32, bfloat16, _is_real), types.float32)(
        (lambda m: _lower_simple(lambda b, v: float32_to_bf16(b, v, m)))(_mode))
    for _cname, (_ity, _ptx, _con) in _INTEGERS.items():
        lower(_template(f"{_cname}2bfloat16_{_mode}", _ity, bfloat16, _is_integer), _ity)(
            (lambda m, s: _lower_simple(lambda b, v: integer_to_bf16(b, v, s, m)))(_mode, _ity.signed))
        lower(_template(f"bfloat162{_cname}_{_mode}", bfloat16, _ity, _is_bf16), Bfloat16Type)(
            (lambda m, p, c, w: _lower_simple(lambda b, v: bf16_to_integer(b, v, p, c, ir.IntType(w), m)))(
                _mode, _ptx, _con, _ity.bitwidth))


def _lower_to_8_bits(signed):
    low, high = (-128, 127) if signed else (0, 255)

    def impl(context, builder, sig, args):
        wide = bf16_to_integer(builder, args[0], "s16", "h", _i16, "rz")
        lt = builder.icmp_signed
        clamped = builder.select(lt("<", wide, ir.Constant(_i16, low)), ir.Constant(_i16, low), wide)
        clamped = builder.select(lt(">", clamped, ir.Constant(_i16, high)), ir.Constant(_i16, high), clamped)
        return builder.trunc(clamped, ir.IntType(8))

    return impl


lower(_template("bfloat162char_rz", bfloat16, types.int8, _is_bf16), Bfloat16Type)(_lower_to_8_bits(True))
lower(_template("bfloat162uchar_rz", bfloat16, types.uint8, _is_bf16), Bfloat16Type)(_lower_to_8_bits(False))

# bit reinterpretations: the i16 is the bfloat16's representation, so these move no bits
for _name, _param, _result in (("bfloat16_as_short", bfloat16, types.int16),
                               ("bfloat16_as_ushort", bfloat16, types.uint16),
                               ("short_as_bfloat16", types.int16, bfloat16),
                               ("ushort_as_bfloat16", types.uint16, bfloat16)):
    lower(_template(_name, _param, _result, _is_bf16 if _param == bfloat16 else _is_integer),
          _param.__class__ if _param == bfloat16 else _param)(_lower_simple(lambda b, v: v))

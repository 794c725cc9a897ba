"""bfloat16 in kernels: ``cuda.bf16.bfloat16(x)``, conversions, operators and ``cuda.bf16.*``.

A bfloat16 value is 16 bits (sign, 8 exponent bits, 7 mantissa bits: float32 with the low half
dropped), held as an ``i16`` because the LLVM dialect libNVVM reads for sm_75..90 has no
``bfloat`` type.  What each operation becomes depends on the compute capability being compiled for
(chosen by libNVVM, see ``numba_cuda.lang.archselect``):

==============================  ======================  =========================  ====================
operation                       sm_90 and newer         sm_80, sm_86, sm_89        older
==============================  ======================  =========================  ====================
``+ - *``, ``hadd hsub hmul``   ``add/sub/mul.rn.bf16``  ``fma.rn.bf16`` with 1/-0  float32, rounded
``hfma``                        ``fma.rn.bf16``         ``fma.rn.bf16``            float64, rounded
``-x``/``abs``, ``hneg habs``   ``neg/abs.bf16``        ``neg/abs.bf16``           sign-bit arithmetic
``float32 -> bfloat16``         ``cvt.rn.bf16.f32``     ``cvt.rn.bf16.f32``        integer rounding
==============================  ======================  =========================  ====================

Everything else computes in float32 (exact for bfloat16 inputs) and rounds once to nearest-even:
``/``, ``hdiv``, ``hrcp``, comparisons, the ``_sat`` variants (clamped to [0, 1], NaN -> +0) and
the math functions (``hsqrt hrsqrt hexp hexp2 hexp10 hlog hlog2 hlog10 hsin hcos htanh htrunc
hceil hfloor hrint``); ``htanh_approx`` is ``tanh.approx.bf16`` on sm_90.  ``_rn`` variants are
the plain operations (which are never contracted).  ``hfma_relu`` clamps negative results to 0.
What is computed alike for float16 (the math functions and ``math.*`` bindings, ordered and
unordered comparisons, ``hmax``/``hmin`` and ``_nan``, ``hisnan``/``hisinf``) and the operator
and function templates come from ``numba_cuda.lang.half_family``; the rounding-mode conversions
and bit reinterpretations are ``numba_cuda.lang.bf16_conversions``.

Conversions: ``bfloat16(x)`` from any number rounds to nearest-even once (float64 and integers go
through float32 with round-to-odd, so there is no double rounding up to 2**53); ``float32(b)``,
``float64(b)``, ``int(b)`` ... convert back (float32 exactly).  In operators, bfloat16 with
bfloat16 or an integer literal stays bfloat16; with a float32/float16 it computes in float32,
with a float64 or an integer variable in float64.  Host arrays of bfloat16 are not supported
(NumPy has no bfloat16 dtype): load float32 and convert in the kernel.
"""

import operator
import types as _pytypes

from llvmlite import ir
from numba.core import errors, types
from numba.core.datamodel import models
from numba.core.extending import register_model
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, half_family, stubs
from . import libdevice_functions as libdevice
from .half_family import HalfFamily

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.bf16")
lower = lowering_registry.lower

_i1 = ir.IntType(1)
_i16 = ir.IntType(16)
_i32 = ir.IntType(32)
_f32 = ir.FloatType()
_f64 = ir.DoubleType()
#: add/sub/mul.rn.bf16, tanh.approx.bf16
BF16_ARITHMETIC_CC = (9, 0)
#: fma.rn.bf16, neg/abs.bf16, cvt.rn.bf16.f32
BF16_FMA_CC = (8, 0)
_ONE, _MINUS_ONE, _MINUS_ZERO, _CANONICAL_NAN = 0x3F80, 0xBF80, 0x8000, 0x7FFF


class Bfloat16Type(types.Number):
    """The Numba type of bfloat16 values."""

    bitwidth = 16

    def __init__(self):
        super().__init__(name="bfloat16")

    def unify(self, typingctx, other):
        return self if other == self else None


bfloat16 = Bfloat16Type()


@register_model(Bfloat16Type)
class Bfloat16Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _i16)


def is_bfloat16_supported():
    """True: bfloat16 compiles for every compute capability (native instructions from sm_80,
    float32 arithmetic with bfloat16 rounding below)."""
    return True


# ---- bit-level helpers -------------------------------------------------------------------


def _const16(value):
    return ir.Constant(_i16, value)


def _asm(builder, text, constraints, rettype, args):
    fnty = ir.FunctionType(rettype, [a.type for a in args])
    return builder.call(ir.InlineAsm(fnty, text, constraints), args)


def to_float32(builder, bits):
    """bfloat16 bits -> float32 (exact: the bits are the float32's upper half)."""
    wide = builder.shl(builder.zext(bits, _i32), ir.Constant(_i32, 16))
    return builder.bitcast(wide, _f32)


def _round_float32_software(builder, value):
    """float32 -> bfloat16 bits, round to nearest-even, NaN kept quiet."""
    bits = builder.bitcast(value, _i32)
    upper = builder.lshr(bits, ir.Constant(_i32, 16))
    lsb = builder.and_(upper, ir.Constant(_i32, 1))
    bias = builder.add(ir.Constant(_i32, 0x7FFF), lsb)
    rounded = builder.lshr(builder.add(bits, bias), ir.Constant(_i32, 16))
    quiet_nan = builder.or_(upper, ir.Constant(_i32, 0x40))
    is_nan = builder.fcmp_unordered("uno", value, value)
    return builder.trunc(builder.select(is_nan, quiet_nan, rounded), _i16)


def from_float32(builder, value):
    """float32 -> bfloat16 bits, round to nearest-even."""
    return archselect.select_by_arch(
        builder, _i16,
        [(BF16_FMA_CC, lambda b: _asm(b, "cvt.rn.bf16.f32 $0, $1;", "=h,f", _i16, [value]))],
        lambda b: _round_float32_software(b, value))


def from_float64(builder, value):
    """float64 -> bfloat16 bits with a single rounding: to float32 rounding to odd (toward zero,
    then the last bit set if anything was lost), then to nearest-even."""
    truncated = _asm(builder, "cvt.rz.f32.f64 $0, $1;", "=f,d", _f32, [value])
    exact = builder.fcmp_ordered("==", builder.fpext(truncated, _f64), value)
    bits = builder.bitcast(truncated, _i32)
    odd = builder.select(exact, bits, builder.or_(bits, ir.Constant(_i32, 1)))
    return from_float32(builder, builder.bitcast(odd, _f32))


def _bits_op(builder, bits, kind):
    if kind == "abs":
        return builder.and_(bits, _const16(0x7FFF))
    return builder.xor(bits, _const16(0x8000))


def _native_unary(builder, bits, kind):
    return archselect.select_by_arch(
        builder, _i16,
        [(BF16_FMA_CC, lambda b: _asm(b, f"{kind}.bf16 $0, $1;", "=h,h", _i16, [bits]))],
        lambda b: _bits_op(b, bits, kind))


def _fma_with_constant(builder, a, constant, c):
    """``fma.rn.bf16 d, a, <constant>, c`` (how sm_80 adds and subtracts)."""
    text = ("{ .reg .b16 k; mov.b16 k, " + f"0x{constant:04X}" + "; fma.rn.bf16 $0, $1, k, $2; }")
    return _asm(builder, text, "=h,h,h", _i16, [a, c])


def _via_float32(builder, args, compute):
    return from_float32(builder, compute(builder, *[to_float32(builder, a) for a in args]))


_FLOAT32_OPS = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}


def arithmetic(builder, kind, a, b):
    """bfloat16 bits of ``a <kind> b`` (kind: add, sub, mul, div)."""

    def float32(bld):
        return _via_float32(bld, (a, b), lambda x, p, q: getattr(x, _FLOAT32_OPS[kind])(p, q))

    if kind == "div":
        return float32(builder)
    choices = [(BF16_ARITHMETIC_CC, lambda x: _asm(x, f"{kind}.rn.bf16 $0, $1, $2;", "=h,h,h", _i16, [a, b]))]
    if kind == "add":
        choices.append((BF16_FMA_CC, lambda x: _fma_with_constant(x, a, _ONE, b)))
    elif kind == "sub":
        choices.append((BF16_FMA_CC, lambda x: _fma_with_constant(x, b, _MINUS_ONE, a)))
    else:
        choices.append((BF16_FMA_CC, lambda x: _asm(x, "fma.rn.bf16 $0, $1, $2, $3;", "=h,h,h,h", _i16,
                                                      [a, b, _const16(_MINUS_ZERO)])))
    return archselect.select_by_arch(builder, _i16, choices, float32)


def fused_multiply_add(builder, a, b, c, relu=False):
    """bfloat16 bits of ``a * b + c`` with one rounding (``relu``: negative results become 0)."""
    modifier = ".relu" if relu else ""

    def float64(bld):
        wide = [bld.fpext(to_float32(bld, v), _f64) for v in (a, b, c)]
        # the product of two bfloat16 values is exact in float64; the sum is rounded once to
        # float64, then once to bfloat16
        result = from_float64(bld, bld.fadd(bld.fmul(wide[0], wide[1]), wide[2]))
        return family.relu(bld, result) if relu else result

    native = (BF16_FMA_CC, lambda bld: _asm(bld, f"fma.rn{modifier}.bf16 $0, $1, $2, $3;", "=h,h,h,h",
                                            _i16, [a, b, c]))
    return archselect.select_by_arch(builder, _i16, [native], float64)


# ---- casts -------------------------------------------------------------------------------


@lowering_registry.lower_cast(types.Float, Bfloat16Type)
def _float_to_bf16(context, builder, fromty, toty, value):
    if fromty == types.float64:
        return from_float64(builder, value)
    if fromty != types.float32:
        value = builder.fpext(value, _f32)  # float16: exact
    return from_float32(builder, value)


@lowering_registry.lower_cast(types.Integer, Bfloat16Type)
def _int_to_bf16(context, builder, fromty, toty, value):
    convert = builder.sitofp if fromty.signed else builder.uitofp
    return from_float64(builder, convert(value, _f64))


@lowering_registry.lower_cast(types.Boolean, Bfloat16Type)
def _bool_to_bf16(context, builder, fromty, toty, value):
    return builder.select(value, _const16(_ONE), _const16(0))


@lowering_registry.lower_cast(types.IntegerLiteral, Bfloat16Type)
def _literal_to_bf16(context, builder, fromty, toty, value):
    literal = context.get_constant_generic(builder, fromty.literal_type, fromty.literal_value)
    return _int_to_bf16(context, builder, fromty.literal_type, toty, literal)


@lowering_registry.lower_cast(Bfloat16Type, types.Float)
def _bf16_to_float(context, builder, fromty, toty, value):
    wide = to_float32(builder, value)
    return context.cast(builder, wide, types.float32, toty)


@lowering_registry.lower_cast(Bfloat16Type, types.Integer)
def _bf16_to_int(context, builder, fromty, toty, value):
    return context.cast(builder, to_float32(builder, value), types.float32, toty)


@lowering_registry.lower_cast(Bfloat16Type, types.Boolean)
def _bf16_to_bool(context, builder, fromty, toty, value):
    return builder.fcmp_unordered("!=", to_float32(builder, value), ir.Constant(_f32, 0.0))


@lower(bool, Bfloat16Type)
def _lower_bool(context, builder, sig, args):
    return _bf16_to_bool(context, builder, sig.args[0], types.boolean, args[0])


# ---- typing: constructor, operators and the functions shared with float16 -----------------


class _Constructor(AbstractTemplate):
    key = stubs.bf16.bfloat16

    def generic(self, args, kws):
        if kws or len(args) != 1:
            raise errors.TypingError("cuda.bf16.bfloat16(x) takes exactly one positional argument")
        (arg,) = args
        if not isinstance(arg, (types.Number, types.Boolean)):
            raise errors.TypingError(f"cuda.bf16.bfloat16(x): x must be a number, not {arg}")
        return signature(bfloat16, arg)


typing_registry.register_global(stubs.bf16.bfloat16, types.Function(_Constructor))


@lower(stubs.bf16.bfloat16, types.Any)
def _lower_constructor(context, builder, sig, args):
    return context.cast(builder, args[0], sig.args[0], bfloat16)


def _operand_types(a, b):
    """(computation type) for a binary operation involving a bfloat16, or None."""
    if a != bfloat16 and b != bfloat16:
        return None
    other = b if a == bfloat16 else a
    if other == bfloat16 or isinstance(other, types.IntegerLiteral):
        return bfloat16
    if other in (types.float16, types.float32):
        return types.float32
    if isinstance(other, (types.Float, types.Integer, types.Boolean)):
        return types.float64
    return None


family = HalfFamily(
    numba_type=bfloat16, namespace=stubs.bf16, typing_registry=typing_registry,
    lowering_registry=lowering_registry, stays=_operand_types,
    accepts=lambda t: t == bfloat16 or isinstance(t, types.IntegerLiteral),
    hint="; convert with cuda.bf16.bfloat16(x)",
    to_float32=lambda b, v: to_float32(b, v), from_float32=lambda b, v: from_float32(b, v),
    to_bits=lambda b, v: v, from_bits=lambda b, v: v, one_bits=_ONE)
family.operators()
family.common_functions()


def _lower_arithmetic(kind):
    def impl(context, builder, sig, args):
        return arithmetic(builder, kind, *args)

    return impl


for _op, _kind in half_family.ARITHMETIC_OPERATORS.items():
    lower(_op, Bfloat16Type, Bfloat16Type)(_lower_arithmetic(_kind))
for _op, _pred in half_family.COMPARISON_OPERATORS.items():
    lower(_op, Bfloat16Type, Bfloat16Type)(family.lower_comparison(_op is not operator.ne, _pred))


@lower(operator.neg, Bfloat16Type)
def _lower_neg(context, builder, sig, args):
    return _native_unary(builder, args[0], "neg")


@lower(abs, Bfloat16Type)
def _lower_abs(context, builder, sig, args):
    return _native_unary(builder, args[0], "abs")


@lower(operator.pos, Bfloat16Type)
def _lower_pos(context, builder, sig, args):
    return args[0]


# ---- cuda.bf16: what bfloat16 computes its own way ----------------------------------------

_BINARY = half_family.BINARY_FUNCTIONS
_TERNARY = half_family.TERNARY_FUNCTIONS
_UNARY_BITS = ("habs", "hneg")
_VIA_FLOAT32 = half_family.VIA_FLOAT32

#: Every ``cuda.bf16`` function besides the ``bfloat16`` constructor and the conversions
#: (``numba_cuda.lang.bf16_conversions``).
BF16_FUNCTIONS = (half_family.ARITHMETIC_FUNCTIONS + _UNARY_BITS + ("htanh_approx",)
                  + half_family.COMMON_FUNCTIONS)

family.arithmetic_functions(
    arithmetic, fused_multiply_add,
    fma_relu=lambda builder, a, b, c: fused_multiply_add(builder, a, b, c, relu=True))

for _name in _UNARY_BITS:
    lower(family.function(_name, 1), Bfloat16Type)(
        (lambda kind: lambda context, builder, sig, args: _native_unary(builder, args[0], kind))(_name[1:]))


@lower(family.function("htanh_approx", 1), Bfloat16Type)
def _lower_htanh_approx(context, builder, sig, args):
    (bits,) = args
    return archselect.select_by_arch(
        builder, _i16,
        [(BF16_ARITHMETIC_CC, lambda b: _asm(b, "tanh.approx.bf16 $0, $1;", "=h,h", _i16, [bits]))],
        lambda b: _via_float32(b, args, lambda bb, x: libdevice.call(bb, "tanhf", [x])))


_PEER_INTERNAL = []


def peer_internal_module():
    """``numba.cuda._internal.cuda_bf16`` (NVIDIA's private module of its bf16 bindings): the
    ``cuda.bf16`` functions, with ``nv_bfloat16`` the bfloat16 type."""
    if not _PEER_INTERNAL:
        module = _pytypes.ModuleType("numba.cuda._internal.cuda_bf16", peer_internal_module.__doc__)
        for name, value in vars(stubs.bf16).items():
            if not name.startswith("_"):
                setattr(module, name, value)
        module.nv_bfloat16 = bfloat16
        _PEER_INTERNAL.append(module)
    return _PEER_INTERNAL[0]

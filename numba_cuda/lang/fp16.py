"""Half precision: ``float16`` scalars and arrays in kernels, and ``cuda.fp16.*``.

``float16`` is LLVM's ``half``.  libNVVM selects the PTX half instructions for it on sm_53 and newer
(``add.f16``, ``sub.f16``, ``mul.f16``, ``fma.rn.f16``, ``setp.<op>.f16``) and computes in float32
with a rounding ``cvt.rn.f16.f32`` on older GPUs (CUDA 12 only), so every compute capability works.

Operators
    ``+ - * /`` (and ``+= -= *= /=``), unary ``-``/``+``, ``abs`` and the comparisons on two float16
    values give float16 (comparisons: bool).  An integer *literal* operand stays float16 too
    (``h * 2``), as NumPy 2 does with Python ints, and so do int8 and bool operands, which
    float16 holds exactly (as both peers type them).  Mixed with float32/float64 or other
    integers the usual promotion applies (``float16 + float32 -> float32``,
    ``float16 + uint8 -> float32``).  Unary ``-`` is ``neg.f16`` on sm_53+.  Division is
    computed in float32 and rounded once (exact for half).  ``float16(x)``, ``np.float16(x)``
    convert from any number; ``float32(h)``, ``int(h)`` ... convert back.

``cuda.fp16``
    =======================================  ====================================================
    ``hadd hsub hmul hdiv``                   ``add.f16`` ``sub.f16`` ``mul.f16``; ``hdiv`` as ``/``
    ``hfma(a, b, c)``                         ``fma.rn.f16`` (one rounding)
    ``hneg habs``                             ``neg.f16`` ``abs.f16`` (sign-bit ops below sm_53)
    ``hsqrt hrsqrt hrcp hexp hexp2 hexp10``   float32 libdevice function, rounded to half
    ``hlog hlog2 hlog10 hsin hcos htanh``     (``cvt.rn.f16.f32``)
    ``hceil hfloor htrunc hrint``             the same (exact)
    ``htanh_approx``                          ``tanh.approx.f16`` on sm_75+, else as ``htanh``
    ``hmax hmin``                             the larger/smaller; a NaN operand loses to a number
    ``hmax_nan hmin_nan``                     the same, but a NaN operand gives NaN
    ``heq hne hgt hge hlt hle``               bool; false when an operand is NaN (CUDA's ``__heq``)
    ``hequ hneu hgtu hgeu hltu hleu``         bool; true when an operand is NaN
    ``hisnan``, ``hisinf``                    bool; int32 1 (+inf), -1 (-inf) or 0
    =======================================  ====================================================

    Arguments of other numeric types are converted to float16 first.  ``math.tanh`` and
    ``math.exp2`` of a float16 are float16 (``htanh``, ``hexp2``), as ``math.sin`` ... are.
    Everything computed through float32 is shared with bfloat16 (``numba_cuda.lang.half_family``).

Atomics
    ``cuda.fp16.atomicAdd(address, val)`` (CUDA's ``atomicAdd(__half *, __half)``): ``address`` a
    ``CPointer(float16)`` or a float16 array (its first element); returns the old value.
    ``cuda.atomic.add`` / ``cuda.atomic.sub`` on float16 arrays: ``atom.add.noftz.f16`` on sm_70 and
    newer, a compare-and-swap loop on the enclosing 32-bit word below (CUDA 12's sm_5x/6x).  The other
    atomic operations do not take float16 arrays (their TypingError lists what they take).
"""

import math
import operator

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.datamodel import models
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, element_access, half_family, stubs
from . import libdevice_functions as libdevice
from .half_family import HalfFamily

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.fp16")
lower = lowering_registry.lower

f16, f32 = types.float16, types.float32
_half = ir.HalfType()
_i16 = ir.IntType(16)
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_SIGN = 0x8000
_MAGNITUDE = 0x7FFF
#: Native half arithmetic (PTX add.f16 & co., neg.f16, abs.f16) exists from sm_53.
HALF_ARITHMETIC_CC = (5, 3)
#: atom.add.noftz.f16 exists from sm_70.
HALF_ATOMIC_ADD_CC = (7, 0)
_CUDA_TARGET = {"target": "cuda"}


def is_float16_supported():
    """True: float16 compiles for every compute capability the installed libNVVM accepts (native
    half instructions from sm_53, float32 arithmetic with half rounding below)."""
    return True


# ---- data model --------------------------------------------------------------------------


class HalfModel(models.PrimitiveModel):
    """float16 is LLVM ``half`` (2 bytes, 2-byte aligned)."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _half)


def _float_model(dmm, fe_type):
    if fe_type == f16:
        return HalfModel(dmm, fe_type)
    return models.FloatModel(dmm, fe_type)


def register_data_models(manager):
    """Compiler hook: give ``types.Float`` a model that also knows float16, in the CUDA target's
    own data-model manager (Numba's default manager is left alone)."""
    manager.register(types.Float, _float_model)


# ---- typing and the functions shared with bfloat16 (numba_cuda.lang.half_family) --------


#: Operand types exact in float16 that both peers compute with in float16 (``h * i8`` is a
#: float16 in Numba's built-in target and NVIDIA's numba-cuda; uint8 and wider promote).
_EXACT_IN_HALF = (types.int8, types.boolean)


def _exact_in_half(ty):
    return ty in _EXACT_IN_HALF or isinstance(ty, (types.IntegerLiteral, types.BooleanLiteral))


def _stays_half(a, b):
    """A binary operation on ``a`` and ``b`` computes in float16: both float16, or one float16
    and the other an int8, a bool or an integer literal (a weak Python int)."""
    if a == f16 and b == f16:
        return f16
    if (a == f16 and _exact_in_half(b)) or (b == f16 and _exact_in_half(a)):
        return f16
    return None


def _widen(builder, value):
    return builder.fpext(value, ir.FloatType())


def _narrow(builder, value):
    return builder.fptrunc(value, _half)


family = HalfFamily(
    numba_type=f16, namespace=stubs.fp16, typing_registry=typing_registry,
    lowering_registry=lowering_registry, stays=_stays_half,
    accepts=lambda t: isinstance(t, (types.Number, types.Boolean)), hint="",
    to_float32=_widen, from_float32=_narrow,
    to_bits=lambda b, v: b.bitcast(v, _i16), from_bits=lambda b, v: b.bitcast(v, _half),
    one_bits=0x3C00, fastmath=True)
family.operators()
# math.sin ... on float16 are numba_cuda.lang.mathfuncs'; these two are not there
family.common_functions(math_functions=(math.tanh, math.exp2))

# Numba's generic lowering covers + - * (fadd ... on half), comparisons (fcmp), unary -/+ and
# casts (fpext/fptrunc/fptosi/sitofp).  Its division tests for zero with a helper that does not
# know ``half``, and its ``abs`` goes through math.fabs: those two are ours.


# float(h) of a float16 is the float16 (as float(x) of a float32 is a float32 in Numba), as in
# both peers; Numba's own template refuses it (float16 is in none of its domains).  Numba's
# lowering of float(x) (a cast to the result type) does the rest.
@typing_registry.register_global(float)
class _FloatOfHalf(AbstractTemplate):
    def generic(self, args, kws):
        if not kws and len(args) == 1 and args[0] == f16:
            return signature(f16, f16)


@lower(operator.truediv, types.float16, types.float16)
@lower(operator.itruediv, types.float16, types.float16)
def _lower_truediv(context, builder, sig, args):
    numerator, denominator = args
    is_zero = builder.fcmp_ordered("==", denominator, ir.Constant(_half, 0.0))
    with builder.if_then(is_zero, likely=False):
        # a no-op under the default (numpy) error model; ZeroDivisionError with debug=True
        context.error_model.fp_zero_division(builder, ("division by zero",))
    return builder.fdiv(numerator, denominator)


def _sign_bit_op(builder, value, kind):
    bits = builder.bitcast(value, _i16)
    if kind == "abs":
        bits = builder.and_(bits, ir.Constant(_i16, _MAGNITUDE))
    else:
        bits = builder.xor(bits, ir.Constant(_i16, _SIGN))
    return builder.bitcast(bits, _half)


def _half_asm(builder, text, args):
    fnty = ir.FunctionType(_i16, [_i16] * len(args))
    asm = ir.InlineAsm(fnty, text, "=h" + ",h" * len(args))
    return builder.bitcast(builder.call(asm, [builder.bitcast(a, _i16) for a in args]), _half)


def _native_or_bits(builder, value, kind):
    """``neg.f16``/``abs.f16`` on sm_53+, the same by sign-bit arithmetic below."""
    return archselect.select_by_arch(
        builder, _half, [(HALF_ARITHMETIC_CC, lambda b: _half_asm(b, f"{kind}.f16 $0, $1;", [value]))],
        lambda b: _sign_bit_op(b, value, kind))


@lower(abs, types.float16)
def _lower_abs(context, builder, sig, args):
    return _native_or_bits(builder, args[0], "abs")


@lower(operator.neg, types.float16)
def _lower_neg(context, builder, sig, args):
    return _native_or_bits(builder, args[0], "neg")


# ---- cuda.fp16: what float16 computes its own way -------------------------------------------

#: operation -> LLVM binary instruction (IRBuilder method)
_INSTRUCTIONS = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}
_FP16_BINARY = half_family.BINARY_FUNCTIONS
_FP16_UNARY_NATIVE = ("hneg", "habs")
_FP16_VIA_FLOAT32 = half_family.VIA_FLOAT32
_FP16_COMPARISONS = half_family.COMPARISONS
#: tanh.approx.f16 exists from sm_75.
HALF_TANH_APPROX_CC = (7, 5)

#: Every ``cuda.fp16`` function, for the stub namespace and the tests.
FP16_FUNCTIONS = (
    half_family.ARITHMETIC_FUNCTIONS + _FP16_UNARY_NATIVE + ("htanh_approx",)
    + half_family.COMMON_FUNCTIONS
)
#: ``cuda.fp16.atomicAdd(address, val)``: not a value function (it stores), listed apart.
FP16_ATOMICS = ("atomicAdd",)


def _fma(builder, a, b, c):
    fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_half, [_half] * 3),
                                         "llvm.fma.f16")
    return builder.call(fma, [a, b, c])


family.arithmetic_functions(lambda builder, kind, a, b: getattr(builder, _INSTRUCTIONS[kind])(a, b), _fma)


def _lower_native_unary(kind):
    def impl(context, builder, sig, args):
        return _native_or_bits(builder, args[0], kind)

    return impl


for _name in _FP16_UNARY_NATIVE:
    lower(family.function(_name, 1), f16)(_lower_native_unary(_name[1:]))


@lower(family.function("htanh_approx", 1), f16)
def _lower_htanh_approx(context, builder, sig, args):
    (value,) = args
    return archselect.select_by_arch(
        builder, _half,
        [(HALF_TANH_APPROX_CC, lambda b: _half_asm(b, "tanh.approx.f16 $0, $1;", [value]))],
        lambda b: _narrow(b, libdevice.call(b, "tanhf", [_widen(b, value)])))


# ---- atomics on float16 arrays ------------------------------------------------------------


def _atomic_template(opname):
    stub = getattr(stubs.atomic, opname)
    qualname = f"cuda.atomic.{opname}"

    class HalfAtomic(AbstractTemplate):
        key = stub
        metadata = _CUDA_TARGET  # before the atomics family's template, which rejects float16

        def generic(self, args, kws):
            if kws or len(args) != 3:
                return None
            ary, idx, val = args
            if not (isinstance(ary, types.Array) and ary.dtype == f16):
                return None
            if not ary.mutable:
                raise errors.TypingError(f"{qualname}: the array is read-only")
            idxty = element_access.index_type(qualname, ary, idx)
            element_access.check_operand(qualname, "val", val, f16)
            return signature(f16, ary, idxty, f16)

    typing_registry.register_global(stub, types.Function(HalfAtomic))
    return stub


def _atom_add_native(builder, ptr, val):
    asm = ir.InlineAsm(ir.FunctionType(_i16, [ptr.type, _i16]),
                       "atom.add.noftz.f16 $0, [$1], $2;", "=h,l,h,~{memory}", side_effect=True)
    return builder.bitcast(builder.call(asm, [ptr, builder.bitcast(val, _i16)]), _half)


def _atom_add_cas(builder, ptr, val):
    """Half atomic add as a compare-and-swap loop on the aligned 32-bit word holding ``*ptr``."""
    address = builder.ptrtoint(ptr, _i64)
    word = builder.inttoptr(builder.and_(address, ir.Constant(_i64, ~3)), _i32.as_pointer())
    # bit offset of the half inside the word: 0 or 16 (little-endian)
    shift = builder.trunc(builder.shl(builder.and_(address, ir.Constant(_i64, 2)),
                                      ir.Constant(_i64, 3)), _i32)
    keep = builder.not_(builder.shl(ir.Constant(_i32, 0xFFFF), shift))

    def extract(b, bits32):
        return b.bitcast(b.trunc(b.lshr(bits32, shift), _i16), _half)

    def compute(b, old):
        new = b.fadd(extract(b, old), val)
        new_bits = b.shl(b.zext(b.bitcast(new, _i16), _i32), shift)
        return b.or_(b.and_(old, keep), new_bits)

    old_word = element_access.cas_loop(builder, word, compute, skip_unchanged=False)
    return extract(builder, old_word)


def _atomic_add_half(builder, ptr, val):
    return archselect.select_by_arch(
        builder, _half, [(HALF_ATOMIC_ADD_CC, lambda b: _atom_add_native(b, ptr, val))],
        lambda b: _atom_add_cas(b, ptr, val))


def _lower_atomic(negate):
    def impl(context, builder, sig, args):
        aryty, idxty, _ = sig.args
        ary, idx, val = args
        ptr = element_access.element_pointer(context, builder, aryty, ary, idxty, idx)
        if negate:
            val = builder.fsub(ir.Constant(_half, -0.0), val)
        return _atomic_add_half(builder, ptr, val)

    return impl


for _opname, _negate in (("add", False), ("sub", True)):
    _stub = _atomic_template(_opname)
    lower(_stub, types.Array, types.intp, types.float16)(_lower_atomic(_negate))
    lower(_stub, types.Array, types.UniTuple, types.float16)(_lower_atomic(_negate))


# ---- cuda.fp16.atomicAdd (CUDA's atomicAdd(__half *address, __half val)) ------------------


class _AtomicAddTemplate(AbstractTemplate):
    key = stubs.fp16.atomicAdd
    metadata = _CUDA_TARGET

    def generic(self, args, kws):
        if kws or len(args) != 2:
            raise errors.TypingError("cuda.fp16.atomicAdd(address, val) takes 2 positional arguments")
        address, val = args
        pointer = isinstance(address, types.CPointer) and address.dtype == f16
        array = isinstance(address, types.Array) and address.dtype == f16 and address.mutable
        if not (pointer or array):
            raise errors.TypingError(
                f"cuda.fp16.atomicAdd: address must be a CPointer(float16) or a writable float16 "
                f"array (its first element), got {address}")
        element_access.check_operand("cuda.fp16.atomicAdd", "val", val, f16)
        return signature(f16, address, f16)


typing_registry.register_global(stubs.fp16.atomicAdd, types.Function(_AtomicAddTemplate))


@lower(stubs.fp16.atomicAdd, types.CPointer, types.float16)
def _lower_atomic_add_pointer(context, builder, sig, args):
    return _atomic_add_half(builder, args[0], args[1])


@lower(stubs.fp16.atomicAdd, types.Array, types.float16)
def _lower_atomic_add_array(context, builder, sig, args):
    ptr = element_access.element_pointer(context, builder, sig.args[0], args[0], types.intp,
                                  ir.Constant(_i64, 0))
    return _atomic_add_half(builder, ptr, args[1])

"""One factory for the two 16-bit float families, ``float16`` (``cuda.fp16``) and bfloat16
(``cuda.bf16``).

A :class:`HalfFamily` is parametrized by the Numba type, its ``cuda.<namespace>`` stubs, the
rule that says which operand types stay in the family, and how a value widens to float32 and
rounds back.  From these it registers, in the family module's own registries:

* the operator templates (``+ - * /`` and their in-place forms, the comparisons, unary
  ``- + abs``), preferred to Numba's generic ones on the CUDA target;
* the ``cuda.<namespace>.*`` function templates (the arguments are checked, then converted to
  the family type by the call's lowering);
* what both families compute the same way through float32 (exact for 16-bit inputs, one
  rounding back): the math functions (also as ``math.sqrt(x)`` ...), ``hrcp``, the ordered and
  unordered comparisons, ``hmax``/``hmin`` and their NaN-propagating ``_nan`` variants,
  ``hisnan`` and ``hisinf``.

What differs (the data model, arithmetic instructions per compute capability, conversions,
atomics) stays in ``numba_cuda.lang.fp16`` and ``numba_cuda.lang.bf16``.
"""

import math
import operator

from llvmlite import ir
from numba.core import errors, types
from numba.core.typing.templates import AbstractTemplate, signature

from . import libdevice_functions as libdevice

_CUDA_TARGET = {"target": "cuda"}
_f32 = ir.FloatType()
_i16 = ir.IntType(16)
_i32 = ir.IntType(32)

ARITHMETIC_OPERATORS = {
    operator.add: "add", operator.iadd: "add", operator.sub: "sub", operator.isub: "sub",
    operator.mul: "mul", operator.imul: "mul", operator.truediv: "div", operator.itruediv: "div",
}
COMPARISON_OPERATORS = {
    operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
    operator.gt: ">", operator.ge: ">=",
}

#: name -> libdevice float32 function (rounded back to the family type)
VIA_FLOAT32 = {
    "htrunc": "truncf", "hceil": "ceilf", "hfloor": "floorf", "hrint": "rintf",
    "hsqrt": "sqrtf", "hrsqrt": "rsqrtf", "hlog": "logf", "hlog2": "log2f", "hlog10": "log10f",
    "hcos": "cosf", "hsin": "sinf", "htanh": "tanhf", "hexp": "expf", "hexp2": "exp2f",
    "hexp10": "exp10f",
}
#: libdevice float32 functions with a fast approximate variant (used under fastmath=True)
FAST = {"sinf": "fast_sinf", "cosf": "fast_cosf", "expf": "fast_expf", "logf": "fast_logf",
        "log2f": "fast_log2f", "log10f": "fast_log10f"}
#: name -> (ordered?, LLVM predicate).  The plain ones are false when an operand is NaN (CUDA's
#: __heq ...), the ``u`` ones true (CUDA's __hequ ...).
COMPARISONS = {
    "heq": (True, "=="), "hne": (True, "!="), "hgt": (True, ">"), "hge": (True, ">="),
    "hlt": (True, "<"), "hle": (True, "<="),
    "hequ": (False, "=="), "hneu": (False, "!="), "hgtu": (False, ">"), "hgeu": (False, ">="),
    "hltu": (False, "<"), "hleu": (False, "<="),
}
#: name -> (larger?, NaN propagates?)
EXTREMA = {"hmax": (True, False), "hmin": (False, False),
           "hmax_nan": (True, True), "hmin_nan": (False, True)}
#: ``math`` functions on a family value -> the ``cuda.<namespace>`` function computing them
MATH = {
    math.trunc: "htrunc", math.ceil: "hceil", math.floor: "hfloor", math.sqrt: "hsqrt",
    math.log: "hlog", math.log2: "hlog2", math.log10: "hlog10", math.cos: "hcos",
    math.sin: "hsin", math.tanh: "htanh", math.exp: "hexp", math.exp2: "hexp2",
}
#: Every function :meth:`HalfFamily.common_functions` registers for a family.
COMMON_FUNCTIONS = tuple(VIA_FLOAT32) + ("hrcp",) + tuple(COMPARISONS) + tuple(EXTREMA) + (
    "hisnan", "hisinf")
#: name -> (operation, post-processing) of :meth:`HalfFamily.arithmetic_functions`: ``_rn`` is the
#: plain operation (never contracted), ``_sat`` clamps to [0, 1] (NaN -> +0).
BINARY_FUNCTIONS = {
    "hadd": ("add", None), "hadd_rn": ("add", None), "hadd_sat": ("add", "sat"),
    "hsub": ("sub", None), "hsub_rn": ("sub", None), "hsub_sat": ("sub", "sat"),
    "hmul": ("mul", None), "hmul_rn": ("mul", None), "hmul_sat": ("mul", "sat"),
    "hdiv": ("div", None),
}
#: ``hfma_relu``: negative results become +0, NaN the canonical NaN
TERNARY_FUNCTIONS = ("hfma", "hfma_sat", "hfma_relu")
ARITHMETIC_FUNCTIONS = tuple(BINARY_FUNCTIONS) + TERNARY_FUNCTIONS


def _check_libdevice():
    for fn in list(VIA_FLOAT32.values()) + list(FAST.values()):
        if fn not in libdevice.FUNCTIONS:
            raise AssertionError(f"__nv_{fn} is not a libdevice function")


_check_libdevice()


class HalfFamily:
    """The typing and the shared lowering of one 16-bit float type.

    ``stays(a, b)``: the type a binary operation on ``a`` and ``b`` computes in (the family
    type, another type, or None when the family has nothing to say).  ``accepts(t)``: whether a
    ``cuda.<namespace>`` function takes an argument of type ``t`` (converted to the family
    type); ``hint`` ends the error otherwise.  ``to_float32``/``from_float32`` widen exactly and
    round to nearest-even; ``to_bits``/``from_bits`` reinterpret as/from ``i16``.
    """

    def __init__(self, *, numba_type, namespace, typing_registry, lowering_registry, stays,
                 accepts, hint, to_float32, from_float32, to_bits, from_bits, one_bits,
                 fastmath=False):
        self.type = numba_type
        self.namespace = namespace
        self.prefix = f"cuda.{namespace.__name__.rsplit('.', 1)[-1]}"
        self.typing_registry = typing_registry
        self.lower = lowering_registry.lower
        self.stays = stays
        self.accepts = accepts
        self.hint = hint
        self.to_float32 = to_float32
        self.from_float32 = from_float32
        self.to_bits = to_bits
        self.from_bits = from_bits
        self.one_bits = one_bits
        self.fastmath = fastmath

    # ---- typing ---------------------------------------------------------------------------

    def operators(self, arithmetic=ARITHMETIC_OPERATORS, comparisons=COMPARISON_OPERATORS):
        """Register the binary and unary operator templates."""
        for op in arithmetic:
            self._binary_operator(op, comparison=False)
        for op in comparisons:
            self._binary_operator(op, comparison=True)
        for op in (operator.neg, operator.pos, abs):
            self._unary_operator(op)

    def _binary_operator(self, op, comparison):
        stays = self.stays

        class Binary(AbstractTemplate):
            key = op
            metadata = _CUDA_TARGET  # before Numba's generic templates, which promote
            prefer_literal = True

            def generic(self, args, kws):
                if kws or len(args) != 2:
                    return None
                common = stays(*args)
                if common is None:
                    return None
                return signature(types.boolean if comparison else common, common, common)

        self.typing_registry.register_global(op, types.Function(Binary))

    def _unary_operator(self, op):
        ty = self.type

        class Unary(AbstractTemplate):
            key = op
            metadata = _CUDA_TARGET

            def generic(self, args, kws):
                if kws or len(args) != 1 or args[0] != ty:
                    return None
                return signature(ty, ty)

        self.typing_registry.register_global(op, types.Function(Unary))

    def function(self, name, arity, result=None):
        """Register the template of ``cuda.<namespace>.<name>`` taking ``arity`` arguments of
        the family type and returning ``result`` (default: the family type); the stub, for
        ``lower``."""
        stub = getattr(self.namespace, name)
        qualname = f"{self.prefix}.{name}"
        ty, accepts, hint = self.type, self.accepts, self.hint
        result = result or ty

        class Function(AbstractTemplate):
            key = stub
            metadata = _CUDA_TARGET

            def generic(self, args, kws):
                if kws or len(args) != arity:
                    raise errors.TypingError(
                        f"{qualname} takes exactly {arity} positional argument(s)")
                for arg in args:
                    if not accepts(arg):
                        raise errors.TypingError(f"{qualname} takes {ty} values, got {arg}{hint}")
                return signature(result, *([ty] * arity))

        self.typing_registry.register_global(stub, types.Function(Function))
        return stub

    # ---- what both families compute alike --------------------------------------------------

    def _constant(self, builder, bits):
        return self.from_bits(builder, ir.Constant(_i16, bits))

    def saturate(self, builder, value):
        """Clamp to [0, 1]; NaN becomes +0 (CUDA's ``_sat`` variants)."""
        wide = self.to_float32(builder, value)
        above_zero = builder.fcmp_ordered(">", wide, ir.Constant(_f32, 0.0))
        below_one = builder.fcmp_ordered("<", wide, ir.Constant(_f32, 1.0))
        clipped = builder.select(below_one, value, self._constant(builder, self.one_bits))
        return builder.select(above_zero, clipped, self._constant(builder, 0))

    def relu(self, builder, value):
        """Negative values become +0, NaN the canonical NaN (CUDA's ``hfma_relu``)."""
        wide = self.to_float32(builder, value)
        negative = builder.fcmp_ordered("<", wide, ir.Constant(_f32, 0.0))
        out = builder.select(negative, self._constant(builder, 0), value)
        return builder.select(builder.fcmp_unordered("uno", wide, wide), self.canonical_nan(builder), out)

    def arithmetic_functions(self, arithmetic, fma, fma_relu=None):
        """Register :data:`ARITHMETIC_FUNCTIONS`: ``arithmetic(builder, kind, a, b)`` (kind: add,
        sub, mul, div) and ``fma(builder, a, b, c)`` (one rounding) compute them;
        ``fma_relu(builder, a, b, c)`` when the family has its own, else ``relu(fma(...))``."""
        ty, lower = self.type, self.lower

        def binary(kind, post):
            def impl(context, builder, sig, args):
                result = arithmetic(builder, kind, *args)
                return self.saturate(builder, result) if post == "sat" else result

            return impl

        for name, (kind, post) in BINARY_FUNCTIONS.items():
            lower(self.function(name, 2), ty, ty)(binary(kind, post))
        relu = fma_relu or (lambda b, *abc: self.relu(b, fma(b, *abc)))
        for name, compute in (("hfma", fma), ("hfma_sat", lambda b, *abc: self.saturate(b, fma(b, *abc))),
                              ("hfma_relu", relu)):
            lower(self.function(name, 3), ty, ty, ty)(
                (lambda c: lambda context, builder, sig, args: c(builder, *args))(compute))

    def common_functions(self, math_functions=tuple(MATH)):
        """Register the functions of :data:`COMMON_FUNCTIONS` and the ``math`` bindings of
        ``math_functions`` (keys of :data:`MATH`)."""
        ty, lower = self.type, self.lower
        for name, function in VIA_FLOAT32.items():
            lower(self.function(name, 1), ty)(self._lower_via_float32(function))
        lower(self.function("hrcp", 1), ty)(self._lower_float32(
            lambda b, x: b.fdiv(ir.Constant(_f32, 1.0), x)))
        for name, (ordered, predicate) in COMPARISONS.items():
            lower(self.function(name, 2, types.boolean), ty, ty)(
                self.lower_comparison(ordered, predicate))
        for name, (larger, propagate) in EXTREMA.items():
            lower(self.function(name, 2), ty, ty)(self._lower_extremum(larger, propagate))
        lower(self.function("hisnan", 1, types.boolean), ty)(self._lower_isnan)
        lower(self.function("hisinf", 1, types.int32), ty)(self._lower_isinf)
        for fn in math_functions:
            self._math(fn, VIA_FLOAT32[MATH[fn]])

    def _lower_float32(self, compute):
        def impl(context, builder, sig, args):
            wide = [self.to_float32(builder, a) for a in args]
            return self.from_float32(builder, compute(builder, *wide))

        return impl

    def _lower_via_float32(self, function):
        fast = FAST.get(function, function) if self.fastmath else function

        def impl(context, builder, sig, args):
            name = fast if getattr(context, "fastmath", False) else function
            wide = self.to_float32(builder, args[0])
            return self.from_float32(builder, libdevice.call(builder, name, [wide]))

        return impl

    def lower_comparison(self, ordered, predicate):
        """Lowering of a comparison through float32 (``ordered``: false when a NaN is involved)."""
        def impl(context, builder, sig, args):
            a, b = (self.to_float32(builder, v) for v in args)
            compare = builder.fcmp_ordered if ordered else builder.fcmp_unordered
            return compare(predicate, a, b)

        return impl

    def canonical_nan(self, builder):
        return self.from_bits(builder, ir.Constant(_i16, 0x7FFF))

    def _lower_extremum(self, larger, propagate):
        """CUDA's __hmax/__hmin (a NaN operand loses to a number; two NaNs give the canonical
        NaN) and __hmax_nan/__hmin_nan (any NaN gives the canonical NaN); +0 is larger than -0."""

        def impl(context, builder, sig, args):
            a, b = args
            fa, fb = (self.to_float32(builder, v) for v in args)
            a_nan = builder.fcmp_unordered("uno", fa, fa)
            b_nan = builder.fcmp_unordered("uno", fb, fb)
            wins = builder.fcmp_ordered(">" if larger else "<", fa, fb)
            # equal (both zeros of either sign, or the same number): the +0 wins for max,
            # the -0 for min
            a_negative = builder.icmp_signed("<", self.to_bits(builder, a), ir.Constant(_i16, 0))
            tie = builder.and_(builder.fcmp_ordered("==", fa, fb),
                               a_negative if not larger else builder.not_(a_negative))
            pick_a = builder.or_(wins, tie)
            if not propagate:
                pick_a = builder.or_(pick_a, builder.and_(b_nan, builder.not_(a_nan)))
            chosen = builder.select(pick_a, a, b)
            either = builder.or_(a_nan, b_nan) if propagate else builder.and_(a_nan, b_nan)
            return builder.select(either, self.canonical_nan(builder), chosen)

        return impl

    def _lower_isnan(self, context, builder, sig, args):
        value = self.to_float32(builder, args[0])
        return builder.fcmp_unordered("uno", value, value)

    def _lower_isinf(self, context, builder, sig, args):
        """CUDA's __hisinf: 1 for +inf, -1 for -inf, 0 otherwise."""
        value = self.to_float32(builder, args[0])
        inf = ir.Constant(_f32, math.inf)
        plus = builder.fcmp_ordered("==", value, inf)
        minus = builder.fcmp_ordered("==", value, ir.Constant(_f32, -math.inf))
        return builder.select(plus, ir.Constant(_i32, 1),
                              builder.select(minus, ir.Constant(_i32, -1), ir.Constant(_i32, 0)))

    def _math(self, fn, function):
        """``math.<fn>(x)`` on a family value: the family's function, returning the family type
        (``math.trunc/ceil/floor`` too, as CUDA's htrunc ...)."""
        ty = self.type

        class MathOnHalf(AbstractTemplate):
            key = fn
            metadata = _CUDA_TARGET  # before the float32/float64 templates

            def generic(self, args, kws):
                if kws or len(args) != 1 or args[0] != ty:
                    return None
                return signature(ty, ty)

        self.typing_registry.register_global(fn, types.Function(MathOnHalf))
        self.lower(fn, ty)(self._lower_via_float32(function))

"""Arithmetic of simulated kernels in the types the compiled kernel gives.

The compiled kernel types every operation with Numba's typing (``int32 * int64`` is int64,
``uint64 // int64`` float64, ``float32 * 1.5`` float64, ``-int32`` int64 ...), not NumPy's.
The rewritten kernel (:mod:`.transform`) calls the functions here for each binary and unary
operator, comparison, number constructor and ``math`` function.  Each asks Numba's typing
(:mod:`.typing_ctx`: Numba's builtin declarations plus the kernel language's registries, as the
compiler installs them) for the signature chosen for the operand types, converts the operands
to the signature's argument types, computes as the code the compiler emits computes (integers
wrap at the result's width, float32 stays float32, shifts clamp their count as PTX does,
``x ** n`` multiplies as Numba's loop does, division by zero follows the kernel's error
model) and gives a value of the signature's return type.  Answers are cached per (operator,
operand types); the type of a value is its class, except that Python scalars stand for what
Numba types them as: ``int`` is int64 (uint64 above its range), ``float`` float64, ``complex``
complex128, ``bool`` boolean.  Results keep that representation (an int64 result is a Python
``int``, float64 a ``float``; other types are NumPy scalars), so the common paths stay fast.

Operands that are not numbers (arrays, tuples, records, strings ...) get Python's operator.
"""

import math
import operator

import numpy as np

from .fixedwidth import float_to_int

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_U64_MAX = (1 << 64) - 1

#: numpy scalar class -> Numba type name (filled lazily with the Numba types)
_NUMPY_NAMES = {
    np.bool_: "boolean", np.int8: "int8", np.int16: "int16", np.int32: "int32",
    np.int64: "int64", np.uint8: "uint8", np.uint16: "uint16", np.uint32: "uint32",
    np.uint64: "uint64", np.float32: "float32", np.float64: "float64",
    np.complex64: "complex64", np.complex128: "complex128",
}
_PYTHON_NAMES = {bool: "boolean", int: "int64", float: "float64", complex: "complex128"}

_types = None      # numba.core.types, once needed
_by_class = None   # value class -> Numba type
_numpy_of = None   # Numba type -> numpy scalar class


def _init_types():
    global _types, _by_class, _numpy_of
    if _types is None:
        from numba.core import types

        by_class = {cls: getattr(types, name) for cls, name in _NUMPY_NAMES.items()}
        by_class.update({cls: getattr(types, name) for cls, name in _PYTHON_NAMES.items()})
        _numpy_of = {getattr(types, name): cls for cls, name in _NUMPY_NAMES.items()}
        _by_class = by_class
        _types = types
    return _types


def numba_type(value):
    """The Numba type the compiled kernel gives ``value`` (None: not a number)."""
    _init_types()
    return _by_class.get(value.__class__)


# ---- converting to a type ---------------------------------------------------------------------
def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def converter(ty):
    """``f(value)``: ``value`` (any number) as the compiled kernel converts it to ``ty``, in the
    simulator's representation of ``ty``."""
    types = _init_types()
    if isinstance(ty, types.Boolean):
        return bool
    if isinstance(ty, types.Integer):
        bits, signed = ty.bitwidth, ty.signed
        is_int64 = bits == 64 and signed
        cls = _numpy_of[ty]
        dtype = np.dtype(cls)

        def to_integer(v):
            c = v.__class__
            if c is int or c is bool or isinstance(v, (np.integer, np.bool_)):
                r = _wrap(int(v), bits, signed)
            elif isinstance(v, (float, np.floating)):
                r = int(float_to_int(v, dtype))  # cvt.rzi: toward zero, saturated, NaN -> 0
            elif isinstance(v, (complex, np.complexfloating)):
                r = int(float_to_int(v.real, dtype))
            else:
                r = _wrap(int(v), bits, signed)
            return r if is_int64 else cls(r)

        return to_integer
    if isinstance(ty, types.Float):
        if ty.bitwidth == 64:
            return lambda v: float(v.real) if isinstance(v, (complex, np.complexfloating)) else float(v)
        cls = _numpy_of.get(ty, np.float16)

        def to_float(v):
            if isinstance(v, (complex, np.complexfloating)):
                v = v.real
            if isinstance(v, (int, np.integer)) and not isinstance(v, np.uint64):
                return cls(int(v))
            return cls(v)

        return to_float
    if isinstance(ty, types.Complex):
        if ty.bitwidth == 128:
            return complex
        return np.complex64
    return None


# ---- computing --------------------------------------------------------------------------------
def _error_model_raises():
    """Whether the running kernel uses Python's error model (``debug=True``; see
    :mod:`.arith_errors`: NumPy's divide error raises then)."""
    return np.geterr()["divide"] == "raise"


def _zero_division(what="division by zero"):
    from .arith_errors import KernelZeroDivisionError

    raise KernelZeroDivisionError(what)


def _int_binop(op, bits, signed):
    """``op`` on two Python ints of a ``bits``-wide integer type, as the GPU computes it."""
    if op is operator.add or op is operator.sub or op is operator.mul \
            or op is operator.and_ or op is operator.or_ or op is operator.xor:
        if bits == 64 and signed:
            def int64_op(a, b):
                r = op(a, b)
                return r if _I64_MIN <= r <= _I64_MAX else _wrap(r, 64, True)
            return int64_op
        return lambda a, b: _wrap(op(a, b), bits, signed)
    if op is operator.floordiv or op is operator.mod:
        minimum = -(1 << (bits - 1)) if signed else None

        def divide(a, b):
            if b == 0:
                if _error_model_raises():
                    _zero_division("integer division by zero")
                return 0
            if b == -1 and a == minimum:
                return 0  # Numba's lowering: the overflowing MIN // -1 and MIN % -1 give 0
            return op(a, b)
        return divide
    if op is operator.lshift or op is operator.rshift:
        left = op is operator.lshift

        def shift(a, b):
            # PTX shl/shr take the count as a .u32 and clamp it to the width
            n = b & 0xFFFFFFFF
            if n >= bits:
                return 0 if left or a >= 0 else -1
            return _wrap(a << n, bits, signed) if left else a >> n
        return shift
    return None


def _float_binop(op, cls):
    """``op`` on two floats of class ``cls`` (``float`` for float64), IEEE, no exceptions."""
    np_op = {operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
             operator.mod: np.remainder}.get(op)
    wide = np.float64 if cls is float else cls
    if np_op is None:
        if cls is float:
            return op  # + - * on Python floats: IEEE double, inf on overflow
        return op

    if cls is float:
        def divide(a, b):
            if b:  # Python's float / // % are IEEE and Python's rules, as Numba's lowering
                return op(a, b)
            if _error_model_raises():
                _zero_division()
            return float(np_op(np.float64(a), np.float64(b)))
        return divide

    def divide(a, b):
        if b == 0 and _error_model_raises():
            _zero_division()
        return np_op(wide(a), wide(b))

    return divide


def _c_prod(cls):
    def prod(a, b):  # CPython's _Py_c_prod, in the parts' precision
        ar, ai, br, bi = cls(a.real), cls(a.imag), cls(b.real), cls(b.imag)
        return np.complex64(complex(float(ar * br - ai * bi), float(ar * bi + ai * br)))
    return prod


def _c_quot(cls):
    def quot(a, b):  # CPython's _Py_c_quot, in the parts' precision
        ar, ai, br, bi = cls(a.real), cls(a.imag), cls(b.real), cls(b.imag)
        abr, abi = abs(br), abs(bi)
        if abr >= abi:
            if abr == 0:
                raise ZeroDivisionError("complex division by zero")
            ratio = bi / br
            denom = br + bi * ratio
            re, im = (ar + ai * ratio) / denom, (ai - ar * ratio) / denom
        elif abi >= abr:
            ratio = br / bi
            denom = br * ratio + bi
            re, im = (ar * ratio + ai) / denom, (ai * ratio - ar) / denom
        else:
            re = im = math.nan
        return np.complex64(complex(float(re), float(im)))
    return quot


def _complex_binop(op, is64):
    if not is64:  # complex128: Python's complex is CPython's algorithm, as the compiler's
        if op is operator.truediv:
            def divide(a, b):
                if b == 0 and _error_model_raises():
                    _zero_division("complex division by zero")
                return a / b
            return divide
        return op
    if op is operator.mul:
        return _c_prod(np.float32)
    if op is operator.truediv:
        return _c_quot(np.float32)
    if op is operator.add or op is operator.sub:
        return lambda a, b: np.complex64(op(a, b))
    return None


def _int_power(base_conv, tp_is_int, bits, signed, exp_bits, loop_mul, to_result):
    """``a ** b`` with an integer exponent, Numba's square-and-multiply step for step
    (``numba_cuda.compiler.arithmetic.lower_int_power``)."""

    def power(a, b):
        base = base_conv(a)
        b = int(b)
        invert = False
        if b < 0:
            invert = True
            exp = -b
            if exp >> (exp_bits - 1):  # -b wraps in b's width (its minimum), as compiled
                raise OverflowError("integer power: the exponent's negation overflows")
            if tp_is_int:
                if base == 0:
                    if _error_model_raises():
                        raise ZeroDivisionError("0 cannot be raised to a negative power")
                    return to_result(-(1 << (bits - 1)))
                if base != 1 and base != -1:
                    return to_result(0)
        else:
            exp = b
        if exp > 0x10000:
            with np.errstate(all="ignore"):
                value = np.power(np.float64(base), np.float64(b))
            return to_result(value)
        r = base_conv(1)
        while exp:
            if exp & 1:
                r = loop_mul(r, base)
            exp >>= 1
            base = loop_mul(base, base)
        if invert:
            r64 = float(r)
            if r64 == 0 and _error_model_raises():
                _zero_division()
            with np.errstate(all="ignore"):
                return to_result(np.float64(1.0) / np.float64(r64))
        return to_result(r)

    return power


def _float_power(cls):
    wide = np.float64 if cls is float else cls

    def power(a, b):
        try:
            r = math.pow(float(a), float(b))
        except (OverflowError, ValueError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                r = float(np.power(np.float64(a), np.float64(b)))
        return float(r) if cls is float else wide(r)

    return power


_COMPARISONS = frozenset({operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                          operator.ne})


def _compute(op, sig):
    """``f(a, b)`` computing ``op`` for already-converted operands of ``sig.args``, giving a
    value of ``sig.return_type``."""
    types = _types
    ta, tb = sig.args
    tr = sig.return_type
    if op in _COMPARISONS:
        return op
    to_result = converter(tr)
    if op is operator.pow:
        if isinstance(tb, types.Integer) and isinstance(ta, (types.Integer, types.Float)):
            tp = tr
            if isinstance(tp, types.Integer):
                bits, signed = tp.bitwidth, tp.signed
                mul = _int_binop(operator.mul, bits, signed)

                def base_conv(v, bits=bits, signed=signed):
                    return _wrap(int(v), bits, signed)
                return _int_power(base_conv, True, bits, signed, tb.bitwidth, mul,
                                  lambda v: to_result(v))
            cls = float if tp.bitwidth == 64 else _numpy_of[tp]
            return _int_power(cls, False, 64, True, tb.bitwidth, operator.mul, to_result)
        if isinstance(tr, types.Float):
            cls = float if tr.bitwidth == 64 else _numpy_of[tr]
            return _float_power(cls)
        return lambda a, b: to_result(a ** b)
    if isinstance(tr, types.Boolean) and isinstance(ta, types.Boolean):
        return lambda a, b: bool(op(a, b))
    if isinstance(ta, types.Integer) and isinstance(tb, types.Integer):
        if isinstance(tr, types.Integer):
            f = _int_binop(op, tr.bitwidth, tr.signed)
            if f is not None:
                # Numba's lowering casts both operands to the result type first
                bits, signed = tr.bitwidth, tr.signed
                if ta == tr and tb == tr and tr == types.int64:
                    return f  # Python ints already
                if tr == types.int64:
                    return lambda a, b: f(_wrap(int(a), 64, True), _wrap(int(b), 64, True))
                return lambda a, b: to_result(f(_wrap(int(a), bits, signed),
                                                _wrap(int(b), bits, signed)))
        if op is operator.truediv:  # int / int: both to float64
            fdiv = _float_binop(op, float)
            return lambda a, b: to_result(fdiv(float(a), float(b)))
    if isinstance(ta, types.Float) and isinstance(tr, types.Float):
        cls = float if ta.bitwidth == 64 else _numpy_of[ta]
        f = _float_binop(op, cls)
        if tr == ta:
            return f  # the operator of the class gives the type
        return lambda a, b: to_result(f(a, b))
    if isinstance(ta, types.Complex):
        f = _complex_binop(op, ta.bitwidth == 64)
        if f is not None:
            return lambda a, b: to_result(f(a, b))
    return None


class _Table(dict):
    """(operand classes) -> the function computing one operator for them."""

    __slots__ = ("op", "name", "fallback")

    def __init__(self, op, name, fallback=None):
        super().__init__()
        self.op = op
        self.name = name
        #: what runs for operands that are not all numbers (Python's operator)
        self.fallback = fallback or op


def _resolve(op, args):
    """Numba's signature of ``op`` for the types of ``args`` (None: not all numbers, or no
    signature: Python's operator then, which raises what Python raises)."""
    from .typing_ctx import resolve

    tys = []
    for a in args:
        t = numba_type(a)
        if t is None:
            return None
        tys.append(t)
    return resolve(op, tuple(tys))


def _representation(ty):
    """The class of the simulator's values of Numba type ``ty``."""
    types = _types
    if ty == types.int64:
        return int
    if ty == types.float64:
        return float
    if ty == types.complex128:
        return complex
    if ty == types.boolean:
        return bool
    return _numpy_of.get(ty)


_REAL_CLASSES = frozenset({int, bool, float, np.float32, np.float64, np.float16, np.bool_,
                           np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                           np.uint64})
_SMALL_INTS = frozenset({int, bool, np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                         np.uint16, np.uint32})


def _conversion(ty, cls):
    """The converter of values of class ``cls`` to ``ty``; None when they need none."""
    rep = _representation(ty)
    if rep is cls:
        return None
    if rep is float and cls in _REAL_CLASSES:
        return float  # exact for every real class but the widest integers, rounded as cvt.rn
    if rep is int and cls in _SMALL_INTS:
        return int  # every value fits in int64
    return converter(ty)


def _binary_impl(table, a, b):
    op = table.op
    sig = _resolve(op, (a, b))
    if sig is None:
        return table.fallback
    compute = _compute(op, sig)
    if compute is None:
        raise TypeError(f"the simulator cannot compute {table.name} for {sig}")
    ca, cb = _conversion(sig.args[0], a.__class__), _conversion(sig.args[1], b.__class__)
    if ca is None and cb is None:
        return compute
    ca = ca or _identity
    cb = cb or _identity
    return lambda x, y: compute(ca(x), cb(y))


def _identity(x):
    return x


#: Operand classes whose same-class +, -, * and comparisons Python already computes in the
#: type Numba gives (float64, float32: IEEE in the type; comparisons of equal types are exact).
_SAME_CLASS_ARITH = frozenset({float, np.float64, np.float32})
_SAME_CLASS_COMPARE = frozenset({int, float, bool, np.float64, np.float32, np.int64, np.int32,
                                 np.uint64, np.uint32, np.int8, np.uint8, np.int16, np.uint16,
                                 np.bool_})

# The fast paths are spelled out (not ``op(a, b)``) so the common cases cost one call: the
# kernel runs one of these per operator it evaluates.
_FAST_ARITH = """
def {fname}(a, b):
    c = a.__class__
    d = b.__class__
    if c is d:
        if c in _SAME_CLASS_ARITH:
            return a {sym} b
        if c is int:
            r = a {sym} b
            if -9223372036854775808 <= r <= 9223372036854775807:
                return r
    elif c in _FLOAT64 and d in _FLOAT64:
        return a {sym} b
    elif c in _INT64 and d in _INT64:
        return a {sym} b  # a NumPy int64 operand: NumPy wraps at 64 bits
    impl = get((c, d))
    if impl is None:
        impl = table[(c, b.__class__)] = _binary_impl(table, a, b)
    return impl(a, b)
"""
_FAST_COMPARE = """
def {fname}(a, b):
    c = a.__class__
    d = b.__class__
    if c is d:
        if c in _SAME_CLASS_COMPARE:
            return a {sym} b
    elif (c in _FLOAT64 and d in _FLOAT64) or (c in _SIGNED and d in _SIGNED):
        return a {sym} b  # exact either way
    impl = get((c, d))
    if impl is None:
        impl = table[(c, b.__class__)] = _binary_impl(table, a, b)
    return impl(a, b)
"""
_FAST_DIVIDE = """
def {fname}(a, b):
    c = a.__class__
    if c is b.__class__:
        if c is float:
            if b != 0.0:
                return a / b
        elif c is _f64 or c is _f32:
            return a / b  # NumPy: inf/NaN, or raises under a debug kernel's error state
    impl = get((c, b.__class__))
    if impl is None:
        impl = table[(c, b.__class__)] = _binary_impl(table, a, b)
    return impl(a, b)
"""
_GENERAL = """
def {fname}(a, b):
    impl = get((a.__class__, b.__class__))
    if impl is None:
        impl = table[(a.__class__, b.__class__)] = _binary_impl(table, a, b)
    return impl(a, b)
"""
_ARITH_SYMBOLS = {"+", "-", "*"}
_FLOAT64 = frozenset({float, np.float64})
_INT64 = frozenset({int, np.int64})
_SIGNED = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint32, np.uint16, np.uint8,
                     bool, np.bool_})
_COMPARE_SYMBOLS = {"<", "<=", ">", ">=", "==", "!="}


def _binary(op, name, fallback=None):
    table = _Table(op, name, fallback)
    sym = name.rstrip("=") if name not in _COMPARE_SYMBOLS else name
    if sym in _ARITH_SYMBOLS:  # (same-class arrays are not in the fast sets: the fallback)
        template = _FAST_ARITH
    elif name in _COMPARE_SYMBOLS:
        template = _FAST_COMPARE
    elif fallback is None and sym == "/":
        template = _FAST_DIVIDE
    else:
        template = _GENERAL
    namespace = {"table": table, "get": table.get, "_binary_impl": _binary_impl,
                 "_SAME_CLASS_ARITH": _SAME_CLASS_ARITH,
                 "_SAME_CLASS_COMPARE": _SAME_CLASS_COMPARE, "_FLOAT64": _FLOAT64,
                 "_INT64": _INT64, "_SIGNED": _SIGNED, "_f64": np.float64, "_f32": np.float32}
    fname = "typed_" + op.__name__.strip("_")
    exec(template.format(fname=fname, sym=sym), namespace)  # noqa: S102 - fixed templates
    binary = namespace[fname]
    binary.__qualname__ = binary.__name__ = fname
    return binary


add = _binary(operator.add, "+")
sub = _binary(operator.sub, "-")
mul = _binary(operator.mul, "*")
truediv = _binary(operator.truediv, "/")
floordiv = _binary(operator.floordiv, "//")
mod = _binary(operator.mod, "%")
pow_ = _binary(operator.pow, "**")
lshift = _binary(operator.lshift, "<<")
rshift = _binary(operator.rshift, ">>")
and_ = _binary(operator.and_, "&")
or_ = _binary(operator.or_, "|")
xor = _binary(operator.xor, "^")
lt = _binary(operator.lt, "<")
le = _binary(operator.le, "<=")
gt = _binary(operator.gt, ">")
ge = _binary(operator.ge, ">=")
eq = _binary(operator.eq, "==")
ne = _binary(operator.ne, "!=")

#: ast operator class name -> the typed operator
BINARY = {
    "Add": add, "Sub": sub, "Mult": mul, "Div": truediv, "FloorDiv": floordiv, "Mod": mod,
    "Pow": pow_, "LShift": lshift, "RShift": rshift, "BitAnd": and_, "BitOr": or_,
    "BitXor": xor,
}
#: ast operator class name -> the typed operator of an augmented assignment (``x += y``): the
#: same computation for numbers, the in-place operator for anything else
AUGMENTED = {
    name: _binary(op, sym + "=", iop) for name, (op, sym, iop) in {
        "Add": (operator.add, "+", operator.iadd), "Sub": (operator.sub, "-", operator.isub),
        "Mult": (operator.mul, "*", operator.imul), "Div": (operator.truediv, "/", operator.itruediv),
        "FloorDiv": (operator.floordiv, "//", operator.ifloordiv),
        "Mod": (operator.mod, "%", operator.imod), "Pow": (operator.pow, "**", operator.ipow),
        "LShift": (operator.lshift, "<<", operator.ilshift),
        "RShift": (operator.rshift, ">>", operator.irshift),
        "BitAnd": (operator.and_, "&", operator.iand), "BitOr": (operator.or_, "|", operator.ior),
        "BitXor": (operator.xor, "^", operator.ixor),
    }.items()
}
COMPARE = {"Lt": lt, "LtE": le, "Gt": gt, "GtE": ge, "Eq": eq, "NotEq": ne}


def _unary_impl(op, a):
    sig = _resolve(op, (a,))
    if sig is None:
        return op
    types = _types
    ta, tr = sig.args[0], sig.return_type
    ca, to_result = converter(ta), converter(tr)
    if ca is None or to_result is None:
        return op
    if isinstance(tr, types.Integer) and isinstance(ta, types.Integer):
        # Numba negates and inverts in the operand's width, then widens to the result
        bits, signed = ta.bitwidth, ta.signed
        if op is operator.neg:
            return lambda x: to_result(_wrap(-int(ca(x)), bits, signed))
        if op is operator.invert:
            return lambda x: to_result(_wrap(~int(ca(x)), bits, signed))
        return lambda x: to_result(int(ca(x)))
    if isinstance(tr, types.Boolean) and op is operator.invert:
        return lambda x: not ca(x)  # ~bool is logical not in Numba
    return lambda x: to_result(op(ca(x)))


_FLOATS = frozenset({float, np.float32, np.float64})


def _unary(op, name):
    table = {}
    get = table.get

    def unary(a):
        c = a.__class__
        if c in _FLOATS:
            return op(a)  # -x, +x of a float keep its type
        if c is int and op is not operator.invert and a != _I64_MIN:
            return op(a)  # -x, +x of an int64 (its minimum wraps: the general path)
        impl = get(c)
        if impl is None:
            impl = table[c] = _unary_impl(op, a)
        return impl(a)

    unary.__name__ = name
    return unary


neg = _unary(operator.neg, "-")
pos = _unary(operator.pos, "+")
invert = _unary(operator.invert, "~")
UNARY = {"USub": neg, "UAdd": pos, "Invert": invert}


# ---- calls: number constructors and math functions -------------------------------------------
def typed_call(func, compute, name=None):
    """``func(*args)`` (a number constructor, a ``math`` function, ``abs``, ``round`` ...) as the
    compiled kernel types it: the arguments converted to the chosen signature's, ``compute``
    run on them, the result converted to the signature's return type."""
    table = {}

    def call(*args, **kwargs):
        if kwargs:
            return compute(*args, **kwargs)
        key = args[0].__class__ if len(args) == 1 else tuple([a.__class__ for a in args])
        impl = table.get(key)
        if impl is None:
            sig = _resolve(func, args)
            if sig is None:
                impl = compute
            else:
                convs = [converter(t) for t in sig.args]
                to_result = converter(sig.return_type)
                if None in convs or to_result is None:
                    impl = compute
                else:
                    impl = _typed(compute, convs, to_result)
            table[key] = impl
        return impl(*args)

    call.__name__ = name or getattr(func, "__name__", "call")
    call.__doc__ = getattr(func, "__doc__", None)
    return call


def _typed(compute, convs, to_result):
    if len(convs) == 1:
        c0 = convs[0]
        return lambda a: to_result(compute(c0(a)))
    if len(convs) == 2:
        c0, c1 = convs
        return lambda a, b: to_result(compute(c0(a), c1(b)))
    return lambda *args: to_result(compute(*[c(a) for c, a in zip(convs, args)]))

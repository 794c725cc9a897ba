"""Conditional expressions (``a if c else b``) typed as the compiled kernel types them.

Numba gives a conditional expression one type, the unification of both branches' types
(``i if c else 1.5`` is a float64 whichever branch runs).  The simulator evaluates only the
branch that runs, so the rewritten kernel passes its value to :func:`unified`, with a typer
of the *other* branch: a function of the current values of the names that branch reads,
which types the branch's expression from their types without evaluating it (constants,
names, operators, comparisons, number constructors, ``math`` functions and array elements
are typed with Numba's typing, :mod:`.typing_ctx`).  The value is then converted to the
unified type.  A branch the typer cannot type (a call of a device function, an attribute
...) leaves the value as it is.

Typers depending on no name (``... else 0.0``, the common case) are typed once, when the
kernel is rewritten; the others cache their answer per classes of the names' values.
"""

import ast
import math
import operator

import numpy as np

from . import constfold, typedarith
from .typing_ctx import context, resolve

_UNTYPED = object()

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


def names_read(node):
    """The names ``node`` loads (in order, without duplicates)."""
    seen = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in seen:
            seen.append(sub.id)
    return seen


def _value_type(value):
    ty = typedarith.numba_type(value)
    if ty is not None:
        return ty
    if isinstance(value, np.ndarray) and value.dtype.fields is None:
        from numba.np.numpy_support import from_dtype

        try:
            return ("array", from_dtype(value.dtype), value.ndim)
        except Exception:  # noqa: BLE001 - a dtype Numba has no type for
            return None
    return None


def _constant_type(value):
    from numba.core import types

    if isinstance(value, bool):
        return types.boolean
    if isinstance(value, int):
        return types.int64 if -(1 << 63) <= value < (1 << 63) else types.uint64
    return typedarith.numba_type(value)


class Typer:
    """The Numba type of expression ``node`` given the values of the names it reads."""

    def __init__(self, node, lookup):
        #: ``lookup(name)``: the value of a name that is not a local variable (a global, a
        #: closure cell, a builtin), or ``_UNTYPED``
        self.node = node
        self.lookup = lookup
        self.names = names_read(node)
        self._cache = {}

    def type_for(self, env):
        values = []
        for name in self.names:
            if name in env:
                values.append(env[name])
            else:
                values.append(self.lookup(name))
        key = tuple(_key(v) for v in values)
        hit = self._cache.get(key, _UNTYPED)
        if hit is _UNTYPED:
            types_ = {name: (v if callable(v) or isinstance(v, (type, type(math))) else _value_type(v))
                      for name, v in zip(self.names, values)}
            try:
                hit = self._type(self.node, types_)
            except Exception:  # noqa: BLE001 - what cannot be typed keeps its value's type
                hit = None
            self._cache[key] = hit
        return hit

    def _type(self, node, env):
        from numba.core import types

        if isinstance(node, ast.Constant):
            return _constant_type(node.value)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            is_constant, value = constfold.folded(node)
            if is_constant:
                return _constant_type(value)
        if isinstance(node, ast.Name):
            ty = env.get(node.id)
            return ty if isinstance(ty, types.Type) else None
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            left, right = self._type(node.left, env), self._type(node.right, env)
            return _returns(op, left, right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return types.boolean
            return _returns(_UNARY.get(type(node.op)), self._type(node.operand, env))
        if isinstance(node, ast.Compare):
            return types.boolean
        if isinstance(node, ast.IfExp):
            body, orelse = self._type(node.body, env), self._type(node.orelse, env)
            if body is None or orelse is None:
                return None
            return context().unify_types(body, orelse)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            array = env.get(node.value.id)
            if isinstance(array, tuple) and array[0] == "array":
                index = node.slice
                n = len(index.elts) if isinstance(index, ast.Tuple) else 1
                if isinstance(index, ast.Slice) or (isinstance(index, ast.Tuple) and any(
                        isinstance(e, ast.Slice) for e in index.elts)):
                    return None
                return array[1] if n == array[2] else None
            return None
        if isinstance(node, ast.Call) and not node.keywords:
            func = self._callee(node.func, env)
            if func is None:
                return None
            args = [self._type(a, env) for a in node.args]
            return _returns(func, *args)
        return None

    def _callee(self, node, env):
        if isinstance(node, ast.Name):
            func = env.get(node.id)
            return func if callable(func) and not isinstance(func, type(math)) else None
        if isinstance(node, ast.Attribute):
            base = self._callee_base(node.value, env)
            if base is None:
                return None
            func = getattr(base, node.attr, None)
            return func if callable(func) else None
        return None

    def _callee_base(self, node, env):
        if isinstance(node, ast.Name):
            base = env.get(node.id)
            return base if isinstance(base, type(math)) else None
        if isinstance(node, ast.Attribute):
            base = self._callee_base(node.value, env)
            return getattr(base, node.attr, None) if base is not None else None
        return None


def _key(value):
    cls = value.__class__
    if cls is np.ndarray:
        return (cls, value.dtype, value.ndim)
    if callable(value) or isinstance(value, type):
        return (cls, id(value))
    return cls


def _returns(func, *args):
    if func is None or any(a is None for a in args):
        return None
    sig = resolve(func, tuple(args))
    return None if sig is None else sig.return_type


_CONVERSIONS = {}


def _to(ty):
    conv = _CONVERSIONS.get(ty)
    if conv is None:
        conv = _CONVERSIONS[ty] = (typedarith._representation(ty), typedarith.converter(ty))
    return conv


def unify_with(value, other):
    """``value`` converted to the unification of its type with ``other`` (a Numba type)."""
    if other is None:
        return value
    mine = typedarith.numba_type(value)
    if mine is None or mine == other:
        return value
    unified = _unify(mine, other)
    if unified is None or unified == mine:
        return value
    cls, conv = _to(unified)
    if conv is None or value.__class__ is cls:
        return value
    return conv(value)


_UNIFIED = {}


def _unify(a, b):
    key = (a, b)
    hit = _UNIFIED.get(key, _UNTYPED)
    if hit is _UNTYPED:
        hit = _UNIFIED[key] = context().unify_types(a, b)
    return hit


def unified(value, typer, env):
    """The value of the branch that ran, converted to the conditional expression's type;
    ``typer`` types the other branch from ``env`` (the kernel's ``locals()``)."""
    return unify_with(value, typer.type_for(env))


def static_unifier(other):
    """:func:`unified` for another branch that reads no name (its type ``other`` is known at
    rewrite time): a function of the value, with the conversion cached per value class."""
    conversions = {}
    get = conversions.get

    def unify_static(value):
        conv = get(value.__class__, _UNTYPED)
        if conv is _UNTYPED:
            conv = conversions[value.__class__] = _conversion(value, other)
        return value if conv is None else conv(value)

    return unify_static


def _conversion(value, other):
    """The converter of values like ``value`` to its type unified with ``other`` (None: none)."""
    mine = typedarith.numba_type(value)
    if mine is None or mine == other:
        return None
    unified = _unify(mine, other)
    if unified is None or unified == mine:
        return None
    return typedarith._conversion(unified, value.__class__)



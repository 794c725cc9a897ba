"""Inline fast paths for the typed operators whose operands are names or constants.

A call of a :mod:`.typedarith` operator costs a Python call per operation (~100 ns); index
arithmetic and loop tests (``i + 1``, ``t + R``, ``i < n``) are most of a kernel's
operations.  When both operands are names or numeric constants (evaluating them twice is
free and has no effect), the rewrite emits::

    (a OP b) if <guard> else typed_op(a, b)

with a guard under which Python's own operator gives exactly what the typed one gives:

* comparisons: both operands Python ``int`` (int64: exact), or both Python ``float``;
* ``+``, ``-``: Python ints small enough that the result stays in int64
  (``|x| <= 2**62``, or ``|x| <= 2**63 - 1 - |c|`` with a constant ``c``);
* ``*``: a Python int and an int constant ``c`` with ``|x| <= (2**63 - 1) // |c|``;
* ``+``, ``-``, ``*`` of Python floats; ``/`` of a float by a non-zero float constant.

Everything else is the typed call alone.
"""

import ast
import copy

_I64_MAX = (1 << 63) - 1
_ARITH = (ast.Add, ast.Sub)
_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _simple(node):
    if isinstance(node, ast.Name):
        return True
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_class(node, cls):
    return ast.Compare(left=ast.Attribute(value=copy.copy(node), attr="__class__", ctx=ast.Load()),
                       ops=[ast.Is()], comparators=[cls])


def _within(node, bound):
    return ast.Compare(left=ast.Constant(value=-bound), ops=[ast.LtE(), ast.LtE()],
                       comparators=[copy.copy(node), ast.Constant(value=bound)])


def _and(tests):
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)


def _names(*nodes):
    return [n for n in nodes if isinstance(n, ast.Name)]


def guard(op, left, right, bind):
    """The guard under which ``left op right`` in Python is the typed result, or None;
    ``bind(obj)`` names an object for the rewritten code (``int``, ``float``: the user may
    shadow the builtins)."""
    int_, float_ = bind(int), bind(float)
    if not (_simple(left) and _simple(right)):
        return None
    consts = [n.value for n in (left, right) if isinstance(n, ast.Constant)]
    names = _names(left, right)
    if not names:
        return None
    kinds = {type(c) for c in consts}
    if isinstance(op, _COMPARE):
        if kinds == {float}:
            return _and([_is_class(n, float_) for n in names])
        if kinds <= {int}:
            return _and([_is_class(n, int_) for n in names])
        return None
    if isinstance(op, (ast.Add, ast.Sub, ast.Mult)) and kinds == {float}:
        return _and([_is_class(n, float_) for n in names])
    if isinstance(op, ast.Div) and kinds == {float} and len(names) == 1 \
            and isinstance(right, ast.Constant) and right.value != 0:
        return _is_class(names[0], float_)
    if kinds <= {int}:
        if isinstance(op, _ARITH):
            if consts:
                c = abs(consts[0])
                if c > 1 << 62:
                    return None
                bound = _I64_MAX - c
            else:
                bound = 1 << 62
        elif isinstance(op, ast.Mult) and consts and consts[0] != 0:
            bound = _I64_MAX // abs(consts[0])
        else:
            return None
        tests = []
        for n in names:
            tests.append(_is_class(n, int_))
            tests.append(_within(n, bound))
        return _and(tests)
    return None


def fast(op, left, right, typed_call, bind):
    """``(left op right) if guard else typed_call`` where a guard exists, else ``typed_call``."""
    test = guard(op, left, right, bind)
    if test is None:
        return typed_call
    left, right = copy.copy(left), copy.copy(right)
    if isinstance(op, _COMPARE):
        plain = ast.Compare(left=left, ops=[op], comparators=[right])
    else:
        plain = ast.BinOp(left=left, op=op, right=right)
    return ast.IfExp(test=test, body=plain, orelse=typed_call)

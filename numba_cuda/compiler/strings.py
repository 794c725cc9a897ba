"""Building strings in CUDA code (``str(x)``, f-strings, ``repr``, ``format``, string methods,
``+``/``%``/``*`` on strings) is refused before typing with one ``TypingError`` naming the
file and line.

Numba's string type needs its runtime's memory allocation (NRT), which CUDA code does not have.
Typed, ``str(x)`` fails deep inside Numba's string overloads with a long nested error (and,
before the option was accepted, with ``TypeError: unknown @cuda.jit options: _nrt``).  String
*literals* stay allowed: ``print("x =", x)`` prints them.
"""

import operator

from numba.core import errors, ir
from numba.core.compiler_machinery import AnalysisPass, register_pass

from .containers import first_expression

#: Builtins whose result is a new string.
_STRING_BUILTINS = {str: "str() (or an f-string)", repr: "repr()", format: "format()", ascii: "ascii()"}
#: Binary operators that build a string from a string operand.
_STRING_OPERATORS = {operator.add: "+", operator.iadd: "+=", operator.mod: "%", operator.imod: "%=",
                     operator.mul: "*", operator.imul: "*="}


def no_strings_message(what):
    return (f"{what} builds a string, which CUDA kernels cannot do (strings need dynamic memory "
            "allocation); print() takes string literals and numbers: print('x =', x)")


def _definition(func_ir, value):
    """What a variable holds when it is defined once (a global, a constant ...), else None."""
    if not isinstance(value, ir.Var):
        return value
    try:
        return func_ir.get_definition(value)
    except (KeyError, AttributeError, ValueError, TypeError):
        return None


def _global_value(func_ir, value):
    target = _definition(func_ir, value)
    if isinstance(target, (ir.Global, ir.FreeVar)):
        return target.value
    return None


def _is_string_constant(func_ir, value):
    target = _definition(func_ir, value)
    return isinstance(target, ir.Const) and isinstance(target.value, str) or (
        isinstance(target, (ir.Global, ir.FreeVar)) and isinstance(target.value, str))


def _string_use(func_ir, expr):
    """What ``expr`` is called in the message when it builds a string, else None."""
    if expr.op == "call":
        fn = _global_value(func_ir, expr.func)
        try:
            what = _STRING_BUILTINS.get(fn)
        except TypeError:  # unhashable global
            what = None
        if what is not None:
            return what
        method = _definition(func_ir, expr.func)
        if (isinstance(method, ir.Expr) and method.op == "getattr"
                and _is_string_constant(func_ir, method.value)):
            return f"the string method str.{method.attr}()"
    elif expr.op in ("binop", "inplace_binop"):
        fn = expr.fn if expr.op == "binop" else expr.immutable_fn
        symbol = _STRING_OPERATORS.get(fn)
        if symbol is not None and (_is_string_constant(func_ir, expr.lhs)
                                   or _is_string_constant(func_ir, expr.rhs)):
            return f"'{symbol}' on a string"
    return None


def find_string_building(func_ir):
    """The first ``(what, loc)`` in source order of something building a string, or None."""
    return first_expression(func_ir, lambda expr: _string_use(func_ir, expr))


@register_pass(mutates_CFG=False, analysis_only=True)
class RejectStringBuilding(AnalysisPass):
    """Raise a ``TypingError`` (with the source location) for code that builds strings."""

    _name = "cuda_reject_string_building"

    def __init__(self):
        AnalysisPass.__init__(self)

    def run_pass(self, state):
        hit = find_string_building(state.func_ir)
        if hit is not None:
            what, loc = hit
            raise errors.TypingError(no_strings_message(what), loc=loc)
        return False

"""CPython's constant folding, as the compiled kernel sees it.

CPython folds arithmetic on constants alone when it compiles the kernel's source
(``2**31 + 5``, ``-(3.0 ** 7)``, ``(-0.5) ** -1.5``, which is a complex number), and Numba types
the folded constant: the rewritten kernel leaves such arithmetic as written, and the typer of
conditional expressions (:mod:`.ternary`) types the folded value.  CPython does not fold what
raises, nor integers wider than its folding limit (128 bits): those stay operations.
"""

import ast


def folded(node):
    """``(True, value)`` when CPython folds ``node`` to the constant ``value``, else
    ``(False, None)``."""
    if not _constant_operands(node):
        return False, None
    try:
        value = eval(compile(ast.Expression(body=node), "<constant>", "eval"),  # noqa: S307
                     {"__builtins__": {}})
    except Exception:  # noqa: BLE001 - not folded: the operation runs (and raises) at run time
        return False, None
    if isinstance(value, int) and value.bit_length() > 128:
        return False, None
    return True, value


def _constant_operands(node):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) and _constant_operands(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant_operands(node.left) and _constant_operands(node.right)
    return False

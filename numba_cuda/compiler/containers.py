"""Containers that need dynamic memory allocation (list, dict and set literals and
comprehensions) are refused before typing, with one clear message naming the file and line.

Typing them first would fail with a long, generic Numba error (``getitem`` on ``DictType`` ...)
or only at lowering.  The target context's ``build_list``/``build_map``/``build_set`` still
refuse them as a last resort (code introduced after this check, e.g. by inlining).
"""

from numba.core import errors, ir
from numba.core.compiler_machinery import AnalysisPass, register_pass

#: IR expression op -> what the message calls it.
ALLOCATING = {"build_list": "lists", "build_map": "dicts", "build_set": "sets"}


def no_allocation_message(what):
    return (f"{what} are not supported in CUDA kernels (they need dynamic memory allocation); "
            "use tuples, cuda.local.array or arrays passed as arguments")


def first_expression(func_ir, classify):
    """The first ``(what, loc)`` in source order of an assigned expression of ``func_ir`` that
    ``classify(expr)`` names (returns a description, else None), or None."""
    found = []
    for block in func_ir.blocks.values():
        for inst in block.body:
            if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr):
                what = classify(inst.value)
                if what is not None:
                    loc = inst.value.loc or inst.loc
                    found.append((getattr(loc, "line", 0) or 0, what, loc))
    if not found:
        return None
    _line, what, loc = min(found, key=lambda item: item[0])
    return what, loc


def find_allocating_container(func_ir):
    """The first ``(what, loc)`` of a list/dict/set built in ``func_ir``, in source order, or None."""
    return first_expression(func_ir, lambda expr: ALLOCATING.get(expr.op))


@register_pass(mutates_CFG=False, analysis_only=True)
class RejectAllocatingContainers(AnalysisPass):
    """Raise ``UnsupportedError`` (with the source location) for list/dict/set literals."""

    _name = "cuda_reject_allocating_containers"

    def __init__(self):
        AnalysisPass.__init__(self)

    def run_pass(self, state):
        hit = find_allocating_container(state.func_ir)
        if hit is not None:
            what, loc = hit
            raise errors.UnsupportedError(no_allocation_message(what), loc=loc)
        return False

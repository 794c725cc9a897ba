"""``try``/``except`` in CUDA code is refused before typing with one ``UnsupportedError`` naming
the file and line of the ``try``.

Numba compiles ``try`` blocks by marking them with calls to its exception-handling intrinsics
(``numba.core.unsafe.eh``), whose lowering asks the calling convention for a try status that
only Numba's CPU convention keeps: left alone, a kernel with a ``try`` ends in an internal
``AttributeError: 'CUDACallConv' object has no attribute 'set_try_status'`` (in Numba's
built-in CUDA target and NVIDIA's too).
"""

import linecache
import re

from numba.core import errors
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.unsafe import eh

from .containers import first_expression
from ..common.unsupported import no_try_message  # noqa: F401 - the wording both targets use
from .strings import _global_value

#: The intrinsics Numba's bytecode translation calls to open a try block.
_TRY_MARKERS = (eh.mark_try_block,)




_TRY_LINE = re.compile(r"\s*try\s*:")


def _try_statement(loc):
    """Numba locates its try marker on the first statement of the block (Python 3.11+ has no
    ``SETUP_FINALLY``): the ``try:`` line above it when the source shows one, else ``loc``."""
    line = loc.line - 1
    while line > 0:
        text = linecache.getline(loc.filename, line)
        if _TRY_LINE.match(text):
            return loc.with_lineno(line)
        if text.strip() and not text.strip().startswith("#"):
            break
        line -= 1
    return loc


def find_try_block(func_ir):
    """The ``loc`` of the first ``try`` in ``func_ir`` in source order, or None."""

    def classify(expr):
        if expr.op == "call":
            fn = _global_value(func_ir, expr.func)
            if any(fn is marker for marker in _TRY_MARKERS):
                return "try"
        return None

    hit = first_expression(func_ir, classify)
    return None if hit is None else _try_statement(hit[1])


@register_pass(mutates_CFG=False, analysis_only=True)
class RejectTryBlocks(AnalysisPass):
    """Raise ``UnsupportedError`` (with the location of the ``try``) for try/except."""

    _name = "cuda_reject_try_blocks"

    def __init__(self):
        AnalysisPass.__init__(self)

    def run_pass(self, state):
        loc = find_try_block(state.func_ir)
        if loc is not None:
            raise errors.UnsupportedError(no_try_message(), loc=loc)
        return False

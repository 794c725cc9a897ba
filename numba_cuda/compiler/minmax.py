"""``min(a, b, ...)`` and ``max(a, b, ...)`` of integers and floats lowered straight to IR.

Numba types these builtins with an ``@overload`` whose implementation calls an intrinsic
(``min_vararg``/``max_vararg``): every argument-type combination a process uses compiles that
implementation through a whole nested pipeline first (~9 ms each; a kernel clamping an index
and a value pays it twice).  Here the same calls are typed by a CUDA template -- tried before
Numba's generic ones -- and lowered in place with Numba's own reduction,
``numba.cpython.builtins.do_minmax``: the same unification of the argument types, the same
casts, comparisons and selects in the same order (Python's semantics: the first of equal
values, ``max(1.5, nan, 2.5) == 2.5``).  The result type is what Numba's intrinsic gives,
``unify_types`` of the arguments.

Only calls with two or more positional arguments, all integers or 32/64-bit floats, are
typed here.  Booleans, ``float16``, complex numbers, tuples, iterables and keyword arguments
are left to Numba.
A compiler-owned kernel-language family: ``typing_registry`` and ``lowering_registry``.
"""

import operator

from numba.core import imputils, types
from numba.core.typing import signature, templates
from numba.cpython.builtins import do_minmax

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.minmax")

def _operand(ty):
    # float16 is left to Numba too (its path does not lower it; cuda.fp16.hmin/hmax do)
    return isinstance(ty, types.Integer) or (isinstance(ty, types.Float) and ty.bitwidth >= 32)


def _numeric_operands(args):
    return len(args) >= 2 and all(_operand(a) for a in args)


class _MinMaxTemplate(templates.AbstractTemplate):
    #: a CUDA template: ``order_by_target_specificity`` tries it before Numba's generic ones
    metadata = {"target": "cuda"}

    def generic(self, args, kws):
        if kws or not _numeric_operands(args):
            return None
        result = self.context.unify_types(*args)
        if result is None:
            return None
        return signature(result, *args)


class MinTemplate(_MinMaxTemplate):
    key = min


class MaxTemplate(_MinMaxTemplate):
    key = max


typing_registry.register_global(min, types.Function(MinTemplate))
typing_registry.register_global(max, types.Function(MaxTemplate))


def _lowering(builtin, comparison):
    def lower_minmax(context, builder, sig, args):
        return do_minmax(context, builder, list(sig.args), list(args), comparison)

    lower_minmax.__name__ = f"lower_{builtin.__name__}"
    lowering_registry.lower(builtin, types.VarArg(types.Number))(lower_minmax)


_lowering(min, operator.lt)
_lowering(max, operator.gt)

"""``numba.literal_unroll`` and ``numba.literally`` inside kernels.

Numba's pipeline (which the CUDA pipeline runs) unrolls ``for v in literal_unroll(tup)`` over a
heterogeneous tuple and recompiles a function for the literal values ``literally(x)`` asks
for; what those two calls are typed as is an ``@overload`` for the CPU in Numba
(``numba.misc.literal``).  The same typing is registered here for the ``cuda`` target:
``literal_unroll(container)`` is the container itself, ``literally(x)`` the literal ``x``
(anything else is Numba's TypingError).
"""

from numba.core import errors, types
from numba.core.extending import overload
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import Registry as TypingRegistry
from numba.misc.special import literal_unroll, literally

# The overloads register with Numba's global registries; the family's own are empty.
typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.literal_unroll")


@overload(literal_unroll, target="cuda")
def _literal_unroll(container):
    if isinstance(container, types.Poison):
        raise errors.TypingError(f"Invalid use of non-Literal type in literal_unroll({container})")
    return lambda container: container


@overload(literally, target="cuda")
def _literally(obj):
    if isinstance(obj, (types.Literal, types.InitialValue)):
        return lambda obj: obj
    raise errors.TypingError(f"Invalid use of non-Literal type in literally({obj})")

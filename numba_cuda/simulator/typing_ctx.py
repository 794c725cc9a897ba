"""The typing the compiled kernel's operators and functions get, for the simulator.

The compiler's typing context (``numba_cuda.compiler.typing_context``) is Numba's
``BaseContext`` (its builtin declarations: operators, number classes, ``abs``, ``round`` ...)
with ``cmath`` and every kernel-language family's ``typing_registry`` installed.  The
simulator may not import the compiler, so it builds the same context from the same parts:
Numba's builtins, ``cmathdecl`` and the family of ``numba_cuda.lang`` that types scalar
functions (``mathfuncs``: ``math.*`` and ``cmath.*``; the other families type ``cuda.*``
features, which the simulator implements itself).  The compiler-owned ``minmax`` family types
``min``/``max`` of numbers as ``unify_types`` of the arguments, which is what
:func:`resolve` answers for them here.

Built on the first question (about 15 ms; the ``math`` family's typing, about 60 ms more, on
the first question about a ``math`` function), once per process.
"""

import functools
import threading

_context = None
_lock = threading.Lock()


def _build():
    from numba.core.typing.context import BaseContext

    class SimulatorTypingContext(BaseContext):
        def load_additional_registries(self):
            from numba.core.typing import cmathdecl

            self.install_registry(cmathdecl.registry)

    ctx = SimulatorTypingContext()
    ctx.refresh()
    return ctx


_math_installed = False


def _install_math(ctx):
    """The kernel language's ``math``/``cmath`` typing, installed on the first question about
    one of their functions (importing it takes ~60 ms; kernels without ``math`` never pay)."""
    global _math_installed
    with _lock:
        if not _math_installed:
            from ..lang import mathfuncs

            ctx.install_registry(mathfuncs.typing_registry)
            _math_installed = True


def context():
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                _context = _build()
    return _context


@functools.lru_cache(maxsize=4096)
def resolve(func, argtypes):
    """The signature the compiled kernel chooses for ``func(*argtypes)`` (Numba types), or None
    when Numba's typing has none (the compiler would refuse the call)."""
    from numba.core import errors

    ctx = context()
    if func is min or func is max:
        if len(argtypes) >= 2:
            from numba.core import types
            from numba.core.typing import signature

            if all(isinstance(t, (types.Integer, types.Float)) for t in argtypes):
                unified = ctx.unify_types(*argtypes)
                if unified is not None:
                    return signature(unified, *argtypes)
        return None
    if not _math_installed and getattr(func, "__module__", None) in ("math", "cmath"):
        _install_math(ctx)
    try:
        fnty = ctx.resolve_value_type(func)
        return ctx.resolve_function_type(fnty, argtypes, {})
    except (errors.TypingError, ValueError, TypeError, NotImplementedError):
        return None

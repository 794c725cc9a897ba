"""Lowering implementations bound to a context and a signature, as the target context hands them
to Numba's ``Lower``.

Numba's ``BaseContext.get_function`` wraps the implementation it finds in a fresh object that
asks ``inspect.signature`` whether the implementation takes a ``loc`` keyword -- for every call,
addition and array access of every kernel.  ``BoundImplementation`` behaves the same (called as
``impl(builder, args, loc=None)``, forwards attribute reads such as ``libs`` to the
implementation, adds the implementation's ``libs`` to the context after each call) and
remembers the answer per implementation.
"""

import inspect

#: implementation -> does it take ``loc``?  Implementations live in registries for the whole
#: process, so the table only grows with them.
_TAKES_LOC = {}


def takes_loc(imp):
    try:
        answer = _TAKES_LOC.get(imp)
    except TypeError:  # an unhashable callable: ask every time
        return _signature_has_loc(imp)
    if answer is None:
        answer = _TAKES_LOC[imp] = _signature_has_loc(imp)
    return answer


def _signature_has_loc(imp):
    try:
        return "loc" in inspect.signature(imp).parameters
    except (TypeError, ValueError):  # no introspectable signature: never pass loc
        return False


class BoundImplementation:
    __slots__ = ("_imp", "_context", "_sig", "_takes_loc")

    def __init__(self, imp, context, sig):
        self._imp = imp
        self._context = context
        self._sig = sig
        self._takes_loc = takes_loc(imp)

    def __call__(self, builder, args, loc=None):
        if self._takes_loc:
            result = self._imp(self._context, builder, self._sig, args, loc=loc)
        else:
            result = self._imp(self._context, builder, self._sig, args)
        self._context.add_linking_libs(getattr(self._imp, "libs", ()))
        return result

    def __getattr__(self, name):
        return getattr(self._imp, name)

    def __repr__(self):
        return f"<CUDA implementation {self._imp!r} for {self._sig}>"

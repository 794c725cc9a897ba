"""Linking the calls Numba lowers as *unresolved*: recursion through another specialisation.

Numba types a call back into a function that is being compiled as a ``RecursiveCall``.  A call
to the specialisation being lowered is a direct call; any other target (mutual recursion
``f -> g -> f``, or ``f(int64)`` calling ``f(float64)``) is lowered with
``context.call_unresolved(name)``: a call to a function declared by name, defined by a library
that may not exist yet (``f`` is still being lowered when ``g`` calls it).  The library making
the call must then link the one defining the name, once there is one.

:class:`UnresolvedCalls` keeps, per symbol, the libraries that call it and the libraries that
define it, and links each caller to the definer as soon as both are known (libraries link
cycles fine: see ``CUDACodeLibrary.all_libraries``).
"""

from llvmlite import ir


def declare(builder, fnty, name):
    """The function ``name`` of type ``fnty`` declared in the builder's module (what Numba's
    codegen ``insert_unresolved_ref`` returns: here the linker of NVVM IR resolves it)."""
    module = builder.module
    try:
        return module.get_global(name)
    except KeyError:
        return ir.Function(module, fnty, name)


class UnresolvedCalls:
    def __init__(self):
        self._callers = {}  # symbol -> [library] calling it before it was defined
        self._definers = {}  # symbol -> [library] defining it

    def called(self, symbol, library):
        """``library`` calls ``symbol``."""
        definers = self._definers.get(symbol)
        if definers is None:
            self._callers.setdefault(symbol, []).append(library)
            return
        for definer in definers:
            library.add_linking_library(definer)

    def defined(self, symbol, libraries):
        """``libraries`` define ``symbol`` (a compiled device function and what it links)."""
        self._definers[symbol] = list(libraries)
        for caller in self._callers.pop(symbol, ()):
            for definer in libraries:
                caller.add_linking_library(definer)

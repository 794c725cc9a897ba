"""Python's cyclic garbage collector, paused while a compile (or a lazy import of a layer) runs.

A compile allocates hundreds of thousands of short-lived objects (Numba IR, types, llvmlite
values), and most of them live until the compile ends.  With the collector running, CPython
scans them again and again while they are still alive: about 180 young, 16 middle and two full
collections for the 42 kernels of the benchmark corpus, 5-7% of its compile time, and a full
collection (30 ms) often lands inside a process's first compile.  ``paused()`` switches the
collector off for the outermost compile and back on when it ends (also when it fails), so the
garbage a compile leaves is collected once, by the next collection after it.

The compiler's entry points (``numba_cuda.compiler.api``) pause it for the whole call -- the kernel wrapper and, on a
process's first compile, the libNVVM set-up's imports too -- and ``compile_cuda`` for
every pipeline run (the dispatcher's compiles); the package's lazy attributes (``cuda.x``,
``numba_cuda.__getattr__``) pause it while they import the layer behind them.

A pause during which modules were imported (a process's first compile imports the compiler's
layers and libNVVM's bindings; a kernel's first use of an intrinsic family imports that family)
also moves every object the collector tracks into its oldest generation before switching it
back on (``gc.freeze()`` then ``gc.unfreeze()``: two list splices, no scan).  Modules, classes,
functions and the contexts' tables live as long as the process; without this the next young
collection scans all of them (~80k objects, 7 ms on a first compile) only to promote them, and
the middle one scans them again.  Cyclic garbage that exists at that moment is collected by the
next full collection instead of a young one.  Never done while the program holds frozen objects
of its own (``gc.get_freeze_count()``): ``unfreeze`` would hand them back to the collector.
CPython 3.12 starts with a few hundred objects of its own frozen; the redirector, imported when
Python starts, records how many (``_numba_cuda_redirector.STARTUP_FREEZE_COUNT``), and a
count no larger than that is the interpreter's, not the program's (frozen objects can die, and
a program's ``gc.freeze()`` adds every object tracked, thousands; without the redirector's
record, only a count of 0 is).

Only a collector that was on is switched back on: if the program disabled it, it stays off.
Nested compiles (device functions compiled while a kernel is typed) find it already off and
leave it alone.  The collector is process-wide: while a compile runs, other threads' cyclic
garbage waits too (reference counting still frees everything else at once).
"""

import contextlib
import gc
import sys


@contextlib.contextmanager
def paused():
    """Run the body with the cyclic garbage collector off (see the module)."""
    if not gc.isenabled():
        yield
        return
    modules = len(sys.modules)
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) != modules:
            promote_long_lived()
        gc.enable()


#: the permanent generation's size that is the interpreter's own (see the module); None until read
_interpreters_frozen = None


def _frozen_by_the_interpreter():
    global _interpreters_frozen
    if _interpreters_frozen is None:
        redirector = sys.modules.get("_numba_cuda_redirector")
        count = getattr(redirector, "STARTUP_FREEZE_COUNT", 0)
        _interpreters_frozen = count if type(count) is int else 0
    return _interpreters_frozen


def promote_long_lived():
    """Move every tracked object into the collector's oldest generation without scanning it
    (see the module); nothing when the program has frozen objects of its own."""
    global _interpreters_frozen
    count = gc.get_freeze_count()
    if count <= _frozen_by_the_interpreter():
        gc.freeze()
        gc.unfreeze()
        _interpreters_frozen = 0  # (handed back to the collector with the rest)

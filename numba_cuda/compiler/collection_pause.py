"""Python's cyclic garbage collector, paused while a compile runs.

A compile allocates hundreds of thousands of short-lived objects (Numba IR, types, llvmlite
values), and most of them live until the compile ends.  With the collector running, CPython
scans them again and again while they are still alive: about 180 young, 16 middle and two full
collections for the 42 kernels of the benchmark corpus, 5-7% of its compile time, and a full
collection (30 ms) often lands inside a process's first compile.  ``paused()`` switches the
collector off for the outermost compile and back on when it ends (also when it fails), so the
garbage a compile leaves is collected once, by the next collection after it.

The compile functions (``api``) pause it for the whole call -- the kernel wrapper and, on a
process's first compile, the libNVVM set-up thread's imports too -- and ``compile_cuda`` for
every pipeline run (the dispatcher's compiles); the package's lazy attributes (``cuda.x``)
pause it while they import the layer behind them.

Only a collector that was on is switched back on: if the program disabled it, it stays off.
Nested compiles (device functions compiled while a kernel is typed) find it already off and
leave it alone.  The collector is process-wide: while a compile runs, other threads' cyclic
garbage waits too (reference counting still frees everything else at once).
"""

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """Run the body with the cyclic garbage collector off (see the module)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()

"""The CUDA simulator: ``numba.cuda`` kernels run as Python on numpy arrays.

Enabled with ``NUMBA_ENABLE_CUDASIM=1`` (read once, when ``numba_cuda`` is
imported): every public ``numba.cuda`` name then comes from :mod:`.api`.
Tests can also use ``from numba_cuda.simulator import api as cuda`` in any
process.

Design
======

Threads as generators, not OS threads.  At its first launch a kernel's
source is rewritten (:mod:`.transform`): thread and block indices become
local variables read once per thread, ``cuda.grid(n)`` becomes arithmetic,
and every barrier or warp collective becomes ``(yield request)``, which
makes each simulated thread a generator (device functions that meet other
threads are entered with ``yield from``).  The scheduler
(:mod:`.scheduler`) runs a block's threads one after another up to their
next request, then completes what can complete — a warp collective when all
live lanes of its mask arrived, ``syncthreads*`` when every live thread of
the block arrived, a grid sync when every live thread of the grid arrived —
and resumes those threads.  A kernel that never meets other threads is not a
generator at all and runs as one plain call per thread.  Blocks run one after
another, except for kernels that synchronise the grid, whose blocks are
scheduled together.

Consequences: one OS thread, no locks; atomics are trivially atomic; runs
are deterministic (lowest thread index first in every phase; shared and
local memory start zero-filled); a kernel whose threads can never meet
raises :class:`.scheduler.SimulatorDeadlock` naming where each thread waits,
instead of hanging.  Kernels receive the numpy arrays behind device arrays,
so element access runs at numpy speed, and numpy's own bounds check reports
out-of-bounds indexing; the scheduler puts ``tid=[x, y, z] ctaid=[x, y, z]: ``
(the peers' simulators' form) before the message of any exception a simulated
thread raises.

Fixed-width integers: values loaded from arrays are numpy scalars and keep
numpy's wrap-around arithmetic (overflow warnings are silenced as the GPU
has none); stores into integer arrays truncate like the GPU (the rewritten
store runs in a ``try`` that costs nothing unless NumPy raises
``OverflowError``); ``np.int32(x)``/``numba.int32(x)`` in kernels wrap;
``math`` functions keep float32 as float32 and return NaN/inf instead of
raising.  Indices (``threadIdx.x`` ...) are Python ints.  Known difference:
Numba's compiled code widens arithmetic on narrow integers to 64 bits
(``int32 + int32`` is ``int64``) where NumPy's scalar rules keep 32 bits, so
an intermediate that overflows 32 bits wraps earlier in the simulator; values
stored back into an ``int32`` array are the same either way.

Fallback: OS threads.  Code the rewriter cannot handle — no source
available (``exec``, some REPLs), a ``lambda`` kernel, a barrier inside a
nested function or comprehension — runs with one OS thread per simulated
thread, driven by the same scheduler one thread at a time
(:class:`.scheduler.ThreadCoroutine`), so semantics are the same, only
slower.  ``cuda.jit(sim_mode="threads")`` or ``NUMBA_CUDASIM_MODE=threads``
force it; ``kernel.sim_mode`` tells which strategy a kernel uses
(``sequential``, ``coroutines`` or ``threads``; ``compiled`` for the kernels the default mode
compiles once their launches pass ``NUMBA_CUDASIM_COMPILE_THRESHOLD`` threads, see
:mod:`.compiled`; ``NUMBA_CUDASIM_MODE=python`` keeps every kernel in the Python path).  A barrier reached through a
call the rewriter could not see (a device function passed around as a
value) raises :class:`.collectives.UnseenBarrierError` saying to use that
mode.

Globals a kernel uses are resolved at its first launch, as Numba freezes
them at compile time.
"""

import importlib as _importlib
import importlib.util as _util

#: submodules the peers' simulators have, reached as attributes (``simulator.kernel.BlockThread``)
_PEER_SUBMODULES = frozenset({"kernel"})


def __getattr__(name):
    """``numba.cuda.simulator.jit`` & co.: NVIDIA's simulator package exports its public API.
    (Not for this package's own submodules: ``from . import devices`` must import them; but
    ``simulator.kernel``, a module of the peers' simulators that code reaches as an attribute,
    is imported on first use.)"""
    if name in _PEER_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    if not name.startswith("_") and _util.find_spec(f"{__name__}.{name}") is None:
        api = _importlib.import_module(__name__ + ".api")
        if hasattr(api, name):
            return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


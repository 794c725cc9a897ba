"""Test kernels shared by the GPU tests, the in-process simulator tests and the simulator
subprocess scripts of tests/cg and tests/ufuncs: each is defined once, here, as a plain Python
function that the tests decorate (``cuda.jit(kernel_sources.shift_rounds)``,
``vectorize([...], target="cuda")(kernel_sources.rel)``).

``cuda`` below is ``numba.cuda``: the real target, or the simulator in a process started with
``NUMBA_ENABLE_CUDASIM=1``.  A simulator subprocess imports this module with
``SOURCE_DIR`` on ``sys.path``::

    sys.path.insert(0, SOURCE_DIR)
    import kernel_sources
"""

import os

from numba import cuda

#: The directory of this module, for subprocesses: ``sys.path.insert(0, SOURCE_DIR)``.
SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))


# ---- cuda.cg (tests/cg) -------------------------------------------------------------------


def shift_rounds(a, rounds):
    """Each round, every thread takes its right neighbour's value (cyclically): the grid
    barrier between reading and writing makes the result ``np.roll(a, -rounds)``."""
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for _ in range(rounds):
        v = a[(i + 1) % n]
        g.sync()          # everyone has read before anyone writes
        a[i] = v
        g.sync()


def ranks(out):
    """``out[rank] = (grid size, block-linear rank)``: what thread_rank() should be."""
    g = cuda.cg.this_grid()
    r = g.thread_rank()
    block = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y
    inblock = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
    out[r, 0] = g.size()
    out[r, 1] = block * (cuda.blockDim.x * cuda.blockDim.y) + inblock


# ---- ufuncs (tests/ufuncs) ----------------------------------------------------------------


def rel(a, b):
    """Relative difference (a vectorize kernel)."""
    return 2 * (a - b) / (a + b)


def matmul(a, b, c):
    """``(m,n),(n,p)->(m,p)`` (a guvectorize kernel)."""
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def scaled_min_max(a, k, lo, hi):
    """``(n),()->(),()``: the least and the greatest of ``a * k``."""
    lo[0] = a[0] * k
    hi[0] = a[0] * k
    for i in range(1, a.shape[0]):
        v = a[i] * k
        if v < lo[0]:
            lo[0] = v
        if v > hi[0]:
            hi[0] = v


def scaled_sum(a, k, out):
    """``(n),()->()``: the sum of ``a * k``."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * k
    out[0] = s


def cumsum(a, out):
    """``(n)->(n)``: running sum."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s


def add(a, b):
    """A reduction (cuda.reduce) or a vectorize kernel."""
    return a + b


def biggest(a, b):
    """A reduction: the maximum."""
    return max(a, b)


def hyp(a, b):
    """Hypotenuse (a vectorize kernel)."""
    return (a * a + b * b) ** 0.5

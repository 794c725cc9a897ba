"""Kernels with ``assert``/``raise``/indexing for the device-exception tests.

They live outside the test modules because pytest rewrites ``assert`` statements in test
modules (into code that builds dicts and calls pytest helpers), which is not kernel code.
Loaded by the ``kernels`` fixture (conftest).
"""

from numba import cuda


@cuda.jit(device=True)
def checked_get(a, i):
    assert i < a.size, "index past the end"
    return a[i]


def indexing(a, b):
    i = cuda.grid(1)
    a[i] = b[i + 1]


def asserting(a):
    i = cuda.grid(1)
    assert a[0] >= 0, "negative first element"
    assert i < 1000
    a[i] = 1.0


def calls_device_function(a):
    i = cuda.grid(1)
    a[0] = checked_get(a, i)


def dynamic_raise(a, n):
    if n > 3:
        raise ValueError("n is too large:", n)
    a[0] = n


def grid_2d(a, b):
    x, y = cuda.grid(2)
    a[x, y] = b[y, x] + 1


# ---- for the GPU tests ------------------------------------------------------------------------
def out_of_bounds_at(a, bad):
    """Thread ``bad`` (global index) writes one past the end; the others stay in bounds."""
    i = cuda.grid(1)
    if i == bad:
        a[a.size] = 1.0
    elif i < a.size:
        a[i] = 2.0


def assert_positive(a):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] > 0, "found a value that is not positive"
        a[i] = a[i] * 2


def two_failing_threads(a):
    """Threads 5 and 37 fail with different messages: the report must be one of them,
    with that thread's indices (the record is written by one thread only)."""
    i = cuda.grid(1)
    if i == 5:
        assert False, "five"  # noqa: B011 - kernel code
    if i == 37:
        assert False, "thirty-seven"  # noqa: B011
    if i < a.size:
        a[i] = i


def every_thread_fails(a):
    i = cuda.grid(1)
    a[i + a.size] = 1.0


def calls_checked_get(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = checked_get(a, i + 1)

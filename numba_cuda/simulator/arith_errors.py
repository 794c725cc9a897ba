"""Arithmetic errors of simulated kernels: NumPy's error state for a launch, and what a
``debug=True`` kernel's division by zero raises.

Kernels run under ``np.errstate(all="ignore")`` (the GPU has no floating-point traps);
a ``debug=True`` kernel uses Python's error model on the GPU, so division by zero raises
there: under the simulator NumPy's ``divide`` error is made to raise, and its
``FloatingPointError`` is reported as :class:`KernelZeroDivisionError`.
"""


class KernelZeroDivisionError(ZeroDivisionError, FloatingPointError):
    """Division by zero in a ``debug=True`` kernel.

    A ``ZeroDivisionError`` as on the GPU (where debug kernels use Python's error
    model), and a ``FloatingPointError`` as in Numba's simulator (NumPy's error).
    """


def numpy_errstate(debug):
    """Keyword arguments of ``np.errstate`` for a launch."""
    return {"all": "ignore", "divide": "raise"} if debug else {"all": "ignore"}


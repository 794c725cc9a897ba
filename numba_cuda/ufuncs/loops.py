"""Signatures of CUDA ufuncs ("loops") and choosing one for the arguments of a call.

A call picks the first loop, in the order the signatures were given, whose input types equal
the arguments' (exact match); failing that, the first loop every argument converts to safely
(``numpy.can_cast(..., "safe")``).  Python scalars are "weak" as in NumPy 2 (NEP 50): a Python
``int`` fits integer, float and complex loops (if its value fits the integer type), a ``float``
float and complex loops, a ``complex`` complex loops, a ``bool`` boolean loops first and any
numeric loop otherwise.  NumPy scalars keep their dtype, and so do Python scalars when every
argument is one (``int`` -> int64, ``float`` -> float64 ...), again as NumPy does.
"""

import numbers

import numpy as np
from numba.core import types
from numba.np import numpy_support

from ..errors import CudaError


class UfuncTypeError(CudaError, TypeError):
    """No signature of a CUDA ufunc accepts the argument types of a call."""


class Loop:
    """One compiled signature: ``argtypes``/``restype`` (Numba types), ``in_dtypes``/
    ``out_dtypes`` (NumPy dtypes), ``core`` (the device function), ``index`` (order given)."""

    def __init__(self, index, argtypes, outtypes, core):
        self.index = index
        self.argtypes = tuple(argtypes)
        self.outtypes = tuple(outtypes)
        self.core = core
        self.in_dtypes = tuple(_dtype_of(t) for t in self.argtypes)
        self.out_dtypes = tuple(_dtype_of(t) for t in self.outtypes)

    def typestring(self):
        """NumPy's ``types`` spelling, e.g. ``"ff->f"``."""
        ins = "".join(d.char for d in self.in_dtypes)
        outs = "".join(d.char for d in self.out_dtypes)
        return f"{ins}->{outs}"

    def __repr__(self):
        """The signature as the decorator spells it: ``float32(float32, float32)``, or
        ``void(float32[:], float32[:])`` for generalized ufuncs (outputs are arguments)."""
        if len(self.outtypes) == 1 and not isinstance(self.outtypes[0], types.Array):
            return f"{self.outtypes[0]}({', '.join(str(t) for t in self.argtypes)})"
        return f"void({', '.join(str(t) for t in self.argtypes + self.outtypes)})"


def _dtype_of(numba_type):
    if isinstance(numba_type, types.Array):
        numba_type = numba_type.dtype
    try:
        return numpy_support.as_dtype(numba_type)
    except NotImplementedError:
        raise UfuncTypeError(
            f"{numba_type} cannot be used in a CUDA ufunc signature (use numeric or boolean "
            "types)") from None


class Scalar:
    """A scalar argument of a call: its Python value and its dtype when it is a NumPy scalar."""

    def __init__(self, value):
        self.value = value
        self.dtype = value.dtype if isinstance(value, np.generic) else None

    def describe(self):
        return str(self.dtype) if self.dtype is not None else type(self.value).__name__


def is_scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, np.ndarray)


def _weak_fits(value, dtype):
    kind = dtype.kind
    if isinstance(value, (bool, np.bool_)):
        return True  # a bool converts to every numeric type
    if isinstance(value, numbers.Integral):
        if kind in "iu":
            info = np.iinfo(dtype)
            return info.min <= int(value) <= info.max
        return kind in "fc"
    if isinstance(value, numbers.Real):
        return kind in "fc"
    if isinstance(value, numbers.Complex):
        return kind == "c"
    return False


def _weak_exact(value, dtype):
    kind = dtype.kind
    if isinstance(value, (bool, np.bool_)):
        return kind == "b"
    if isinstance(value, numbers.Integral):
        return kind in "iu" and _weak_fits(value, dtype)
    if isinstance(value, numbers.Real):
        return kind == "f"
    return kind == "c"


def _matches(arg, dtype, exact):
    if isinstance(arg, Scalar):
        if arg.dtype is None:
            return _weak_exact(arg.value, dtype) if exact else _weak_fits(arg.value, dtype)
        arg_dtype = arg.dtype
    else:
        arg_dtype = arg
    if exact:
        return arg_dtype == dtype
    return np.can_cast(arg_dtype, dtype, "safe")


def describe(args):
    return ", ".join(a.describe() if isinstance(a, Scalar) else f"{a} array" for a in args)


def select_loop(name, loops, args):
    """The loop for ``args`` (each a NumPy dtype for arrays or a ``Scalar``); raises
    ``UfuncTypeError`` naming the argument types and the compiled signatures."""
    if args and all(isinstance(a, Scalar) and a.dtype is None for a in args):
        # only Python scalars: they take NumPy's default types (int64, float64 ...)
        args = [Scalar(np.asarray(a.value)[()]) for a in args]
    for exact in (True, False):
        for loop in loops:
            if all(_matches(a, d, exact) for a, d in zip(args, loop.in_dtypes)):
                return loop
    signatures = "; ".join(repr(loop) for loop in loops)
    raise UfuncTypeError(
        f"CUDA ufunc {name!r} has no signature accepting ({describe(args)}); its signatures "
        f"are: {signatures}. Convert the arguments or add a signature to the decorator")

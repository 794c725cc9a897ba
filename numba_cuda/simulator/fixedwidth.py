"""Fixed-width integer semantics for simulated kernels.

NumPy 2 refuses to store a Python int that does not fit in the destination
(``OverflowError``) where the GPU truncates to the low bits.  The transformed
kernel stores into arrays inside ``try`` blocks (free when nothing goes wrong)
and calls these helpers only on ``OverflowError``; numpy scalar constructors
called in kernels (``np.int32(x)``, ``numba.uint8(x)``) wrap the same way.
"""

import operator

import numpy as np


def wrap_int(value, dtype):
    """``value`` reduced to the width of integer ``dtype`` (two's complement), as a numpy scalar."""
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    v = int(value) & ((1 << bits) - 1)
    if dtype.kind == "i" and v >> (bits - 1):
        v -= 1 << bits
    return dtype.type(v)


def _coerce_for(dtype, value):
    if dtype.kind in "iu":
        if isinstance(value, (float, np.floating)):
            value = int(value)  # C truncation towards zero, as a float-to-int store
        return wrap_int(value, dtype)
    if dtype.kind == "b":
        return bool(value)
    return value


def store(array, index, value):
    """``array[index] = value`` with the truncation the GPU performs."""
    array[index] = _coerce_for(array.dtype, value)


_AUG_OPS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitOr": operator.or_,
    "BitXor": operator.xor, "BitAnd": operator.and_, "Div": operator.truediv,
    "MatMult": operator.matmul,
}


def aug_store(array, index, opname, value):
    """``array[index] <op>= value`` computed exactly on Python ints, then truncated."""
    op = _AUG_OPS[opname]
    old = array[index]
    if array.dtype.kind in "iu" and isinstance(value, (int, np.integer)):
        result = op(int(old), int(value))
    else:
        result = op(old, value)
    store(array, index, result)


def make_int_caster(nptype):
    """A constructor for numpy integer type ``nptype`` that wraps instead of raising."""
    dtype = np.dtype(nptype)

    def cast(value=0):
        try:
            return nptype(value)
        except OverflowError:
            return wrap_int(value, dtype)

    cast.__name__ = dtype.name
    return cast

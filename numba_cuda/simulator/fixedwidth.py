"""Fixed-width integer semantics for simulated kernels: the GPU's answers.

NumPy 2 refuses to store a Python int that does not fit in the destination
(``OverflowError``), and converts a float stored into an integer array with
Python's ``int()`` (``OverflowError`` when out of range, ``ValueError`` for
NaN).  The transformed kernel evaluates the array, the index and the value of
a store once, stores inside a ``try`` block (free when nothing goes wrong) and
calls these helpers only when NumPy refuses.  They give what the code our
compiler emits computes (read from its PTX; ``tests/simulator/test_store_semantics.py``
checks the PTX still says so):

* integer -> narrower integer: the low bits (two's complement wrap-around);
  ``st.u8``/``st.u16``/``st.u32`` store the low bits of the register;
* float -> integer: ``cvt.rzi`` -- truncation toward zero, saturating at the
  bounds of the converted type, NaN -> 0.  Targets narrower than 16 bits are
  converted to 16 bits (``cvt.rzi.s16``/``.u16``, PTX has no 8-bit
  conversion) and then stored as their low 8 bits.

NumPy and Numba integer constructors called in kernels (``np.int32(x)``,
``numba.uint8(x)``) and ``int(x)`` convert the same way.
"""

import operator

import numpy as np

from .checkedarray import CLASSES as _CHECKED_ARRAYS

#: What NumPy raises when it refuses a store the GPU performs (AttributeError: the
#: target has no ``dtype`` -- the helper then stores as Python does).
STORE_ERRORS = (OverflowError, ValueError, AttributeError)

#: The float scalar types (a store of one takes :func:`store`, whatever NumPy would do),
#: and arrays (a float array into an integer array: NumPy's C cast is not the GPU's), the
#: sanitizer's checking views of arrays included.
FLOAT_TYPES = frozenset({float, np.float16, np.float32, np.float64, np.longdouble, np.ndarray,
                         *_CHECKED_ARRAYS})


def wrap_int(value, dtype):
    """``value`` reduced to the width of integer ``dtype`` (two's complement), as a numpy scalar."""
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    v = int(value) & ((1 << bits) - 1)
    if dtype.kind == "i" and v >> (bits - 1):
        v -= 1 << bits
    return dtype.type(v)


def float_to_int(value, dtype):
    """The integer ``dtype`` value that ``cvt.rzi`` (then a store of the low bits) makes of
    float ``value``: truncated toward zero, saturated, NaN -> 0."""
    dtype = np.dtype(dtype)
    bits = max(dtype.itemsize * 8, 16)
    f = float(value)
    if f != f:
        return dtype.type(0)
    if dtype.kind == "i":
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    if f >= hi:
        r = hi
    elif f <= lo:
        r = lo
    else:
        r = int(f)
    return wrap_int(r, dtype)


def float_array_to_int(values, dtype):
    """:func:`float_to_int` for every element of a float array."""
    dtype = np.dtype(dtype)
    bits = max(dtype.itemsize * 8, 16)
    if dtype.kind == "i":
        lo, hi, wide = -(1 << (bits - 1)), (1 << (bits - 1)) - 1, np.int64
    else:
        lo, hi, wide = 0, (1 << bits) - 1, np.uint64
    f = np.trunc(np.asarray(values, dtype=np.float64))
    low, high = f <= lo, f >= hi
    mid = ~(low | high | np.isnan(f))
    out = np.zeros(f.shape, wide)
    out[mid] = f[mid].astype(wide)
    out[low] = lo
    out[high] = hi
    return out.astype(dtype)  # the low bits, as the store keeps them


def _is_float(value):
    return isinstance(value, (float, np.floating))


def as_stored(dtype, value):
    """What an element of ``dtype`` holds after the GPU stores ``value`` into it."""
    if isinstance(value, np.ndarray):
        if dtype.kind in "iu" and value.dtype.kind == "f":
            return float_array_to_int(value, dtype)
        return value
    if dtype.kind in "iu":
        if _is_float(value):
            return float_to_int(value, dtype)
        if isinstance(value, (int, np.integer)):
            return wrap_int(value, dtype)
    elif dtype.kind == "b":
        return bool(value)
    return value


def _element_dtype(container, key):
    dtype = getattr(container, "dtype", None)
    if not isinstance(dtype, np.dtype):
        return None
    if dtype.fields is not None and isinstance(key, str):
        field = dtype.fields.get(key)
        return field[0].base if field is not None else None
    return dtype.base


def store(container, key, value):
    """``container[key] = value`` with the conversion the GPU performs."""
    dtype = getattr(container, "dtype", None)
    if getattr(dtype, "kind", None) in ("f", "c"):  # the common case: a float into a float array
        container[key] = value
        return
    dtype = _element_dtype(container, key)
    container[key] = value if dtype is None else as_stored(dtype, value)


def store_attr(obj, name, value):
    """``obj.name = value`` (a record field) with the conversion the GPU performs."""
    dtype = _element_dtype(obj, name)
    setattr(obj, name, value if dtype is None else as_stored(dtype, value))


_AUG_OPS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitOr": operator.or_,
    "BitXor": operator.xor, "BitAnd": operator.and_, "Div": operator.truediv,
    "MatMult": operator.matmul,
}


def exact_op(opname, old, value):
    """``old <op> value`` after NumPy raised ``OverflowError`` for it: exactly on Python ints
    (the store truncates afterwards), as float64 for floats (inf, not an exception)."""
    op = _AUG_OPS[opname]
    if isinstance(old, (int, np.integer)) and isinstance(value, (int, np.integer)):
        return op(int(old), int(value))
    return op(np.float64(old), np.float64(value))


def make_int_caster(nptype):
    """A constructor for numpy integer type ``nptype`` that converts as the GPU does."""
    dtype = np.dtype(nptype)

    def cast(value=0):
        if _is_float(value):
            return float_to_int(value, dtype)
        try:
            return nptype(value)
        except OverflowError:
            return wrap_int(value, dtype)

    cast.__name__ = dtype.name
    return cast


_INT64 = np.dtype(np.int64)


def to_int(value=0, *args):
    """``int(x)`` in a kernel: a float converts as ``cvt.rzi.s64`` does (NaN -> 0, saturating)."""
    if not args and _is_float(value):
        return int(float_to_int(value, _INT64))
    return int(value, *args)

"""Bit and arithmetic intrinsics: ``popc``, ``clz``, ``ffs``, ``brev``, ``fma``, ``cbrt``, ``selp``.

Widths follow the argument's type: a numpy integer scalar has its own width,
a Python int is an ``int64`` (what Numba types it as).  Results keep the
argument's numpy type.
"""

import numpy as np


def _width_and_bits(x):
    if isinstance(x, np.integer):
        width = x.dtype.itemsize * 8
    elif isinstance(x, (bool, np.bool_)):
        width = 32
    elif isinstance(x, int):
        width = 64
    else:
        raise TypeError(f"bit intrinsics need an integer argument, got {type(x).__name__}")
    return width, int(x) & ((1 << width) - 1)


def _like(x, value):
    if isinstance(x, np.integer):
        bits = x.dtype.itemsize * 8
        value &= (1 << bits) - 1
        if x.dtype.kind == "i" and value >> (bits - 1):
            value -= 1 << bits
        return x.dtype.type(value)
    return value


def popc(x):
    """Number of set bits."""
    _, u = _width_and_bits(x)
    return _like(x, bin(u).count("1"))


def clz(x):
    """Number of leading zero bits in the argument's width."""
    width, u = _width_and_bits(x)
    return _like(x, width - u.bit_length())


def ffs(x):
    """1-based position of the least significant set bit; 0 when none is set."""
    _, u = _width_and_bits(x)
    return _like(x, (u & -u).bit_length())


def brev(x):
    """The bits of the argument in reverse order."""
    width, u = _width_and_bits(x)
    return _like(x, int(format(u, f"0{width}b")[::-1], 2))


def _is_f32(*values):
    return all(isinstance(v, (np.float32, np.float16)) for v in values)


def fma(a, b, c):
    """``a * b + c`` rounded once (in float32 when all three are float32: rounding the exact
    product plus ``c`` to float64 first, then to float32, can round twice)."""
    from . import rounding

    if _is_f32(a, b, c):
        return np.float32(rounding.fma(float(a), float(b), float(c), rounding.F32, "rn"))
    return rounding.fma(float(a), float(b), float(c), rounding.F64, "rn")


def cbrt(x):
    """Cube root, keeping float32 as float32."""
    if isinstance(x, (np.float32, np.float16)):
        return np.cbrt(x)
    return float(np.cbrt(float(x)))


def selp(pred, a, b):
    """``a`` if ``pred`` else ``b``."""
    return a if pred else b

"""``numba.cuda.fp8`` in the simulator: ``fp8_e4m3``, ``fp8_e5m2`` and ``fp8_e8m0`` values.

The bits are computed by the compiled target's own encoder and decoder
(``numba_cuda.lang.fp8_codec``), so both targets round alike: e4m3/e5m2 to nearest-even with
overflow saturating (NaN stays NaN), e8m0 the magnitude up to a power of two; a float64 or an
integer is rounded once (to float32 rounding to odd first).  Convert back with ``float32(v)``,
``float(v)``, ``int(v)`` ...; there is no FP8 arithmetic.
"""

import math

import numpy as np

from ..lang import fp8_codec


def _bits(value32):
    return int(np.array(value32, np.float32).view(np.uint32))


def _float32_bits(value):
    """float32 bits of ``value``, rounded to odd when it is not a float32 (one rounding later)."""
    if isinstance(value, (np.float32, np.float16)):
        return _bits(value)
    v = float(value)
    with np.errstate(over="ignore"):
        t = np.float32(v)
    if math.isnan(v) or float(t) == v:
        return _bits(t)
    if abs(float(t)) > abs(v):
        t = np.nextafter(t, np.float32(0))
    return _bits(t) | 1


class _FP8:
    __slots__ = ("_code",)
    _format = None

    def __init__(self, value=0.0):
        if isinstance(value, _FP8):
            value = np.float32(float(value))
        self._code = self._encode(_float32_bits(value))

    def __float__(self):
        return float(np.array(self._decode(self._code), np.uint32).view(np.float32))

    def __int__(self):
        v = float(self)
        return 0 if math.isnan(v) else int(v)

    def __bool__(self):
        return float(self) != 0.0

    def __repr__(self):
        return f"{type(self).__name__}({float(self)!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._code == self._code

    def __hash__(self):
        return hash((type(self).__name__, self._code))


def _format(name, fmt):
    if fmt is None:
        encode = staticmethod(fp8_codec.encode_e8m0)
        decode = staticmethod(fp8_codec.decode_e8m0)
    else:
        encode = staticmethod(lambda bits: fp8_codec.encode_fp8(bits, *fmt, 1))
        decode = staticmethod(lambda code: fp8_codec.decode_fp8(code, *fmt))
    return type(name, (_FP8,), {"__slots__": (), "_encode": encode, "_decode": decode,
                                "__doc__": f"An {name} value (simulator)."})


fp8_e4m3 = _format("fp8_e4m3", fp8_codec.E4M3)
fp8_e5m2 = _format("fp8_e5m2", fp8_codec.E5M2)
fp8_e8m0 = _format("fp8_e8m0", None)


def is_fp8_supported():
    return True

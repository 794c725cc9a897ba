"""Encoding and decoding of the FP8 formats, on integers only (shared by both targets).

The compiled target compiles these functions into kernels (``context.compile_internal``); the
simulator calls them on Python ints, so both give the same bits.  Formats (OCP 8-bit floats, as
CUDA's ``__nv_fp8_e4m3``/``__nv_fp8_e5m2``/``__nv_fp8_e8m0``):

======  ====  ========  ========  =================  ===========================
format  bias  max       min > 0   infinity           NaN
======  ====  ========  ========  =================  ===========================
e4m3    7     448       2**-9     none               S.1111.111
e5m2    15    57344     2**-16    S.11111.00         S.11111.xx (xx != 0)
e8m0    127   2**127    2**-127   none (unsigned)    0xFF
======  ====  ========  ========  =================  ===========================

``encode_fp8`` rounds a float32 (given as its bits) to nearest-even; with ``satfinite`` an
overflow or an infinity gives the largest finite value of its sign (CUDA's ``__NV_SATFINITE``,
what the constructors use), without it an infinity (e5m2) or NaN (e4m3).  A NaN gives 0x7F.
``encode_e8m0`` is CUDA's constructor conversion: the magnitude rounded up to a power of two,
saturated to 2**127 (NaN: 0xFF; zero and anything below 2**-127: 2**-127).
"""

E4M3 = (4, 3, 0)  # exponent bits, mantissa bits, has infinities
E5M2 = (5, 2, 1)


def encode_fp8(bits, ebits, mbits, has_inf, satfinite):
    """float32 bits (an int in [0, 2**32)) -> the FP8 byte, rounding to nearest-even."""
    sign = (bits >> 31) & 1
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    if exponent == 0xFF and mantissa != 0:
        return 0x7F
    bias = (1 << (ebits - 1)) - 1
    if has_inf:
        max_code = (((1 << ebits) - 2) << mbits) | ((1 << mbits) - 1)
        overflow = max_code if satfinite else ((1 << ebits) - 1) << mbits
    else:
        max_code = 0x7E
        overflow = max_code if satfinite else 0x7F
    if exponent == 0xFF:
        return (sign << 7) | overflow
    if exponent == 0:
        significand = mantissa
        power = -149
    else:
        significand = mantissa | 0x800000
        power = exponent - 150
    if significand == 0:
        return sign << 7
    length = 0  # bit length (no helper: these functions are compiled one by one)
    rest = significand
    while rest:
        length += 1
        rest >>= 1
    top = power + length - 1  # floor(log2(value))
    emin = 1 - bias
    quantum = (top if top > emin else emin) - mbits
    shift = quantum - power
    if shift <= 0:
        n = significand << (-shift)
    elif shift > length + 1:
        n = 0  # below half the smallest subnormal
    else:
        n = significand >> shift
        rest = significand & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and (n & 1) == 1):
            n += 1
    if n < (1 << mbits):
        code = n  # subnormal (or zero)
    else:
        if n >= (1 << (mbits + 1)):
            n >>= 1
            quantum += 1
        code = ((quantum + mbits + bias) << mbits) | (n - (1 << mbits))
    if code > max_code:
        code = overflow
    return (sign << 7) | code


def decode_fp8(code, ebits, mbits, has_inf):
    """The FP8 byte -> float32 bits (exact)."""
    sign = (code >> 7) & 1
    magnitude = code & 0x7F
    field = magnitude >> mbits
    m = magnitude & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if has_inf and field == (1 << ebits) - 1:
        if m == 0:
            return (sign << 31) | 0x7F800000
        return 0x7FFFFFFF
    if not has_inf and magnitude == 0x7F:
        return 0x7FFFFFFF
    if field == 0:
        if m == 0:
            return sign << 31
        length = 0
        rest = m
        while rest:
            length += 1
            rest >>= 1
        exponent = (1 - bias - mbits) + length - 1 + 127
        fraction = (m << (24 - length)) & 0x7FFFFF
        return (sign << 31) | (exponent << 23) | fraction
    return (sign << 31) | ((field - bias + 127) << 23) | (m << (23 - mbits))


def encode_e8m0(bits):
    """float32 bits -> e8m0 byte: |x| rounded up to a power of two, saturated (NaN: 0xFF)."""
    magnitude = bits & 0x7FFFFFFF
    if magnitude > 0x7F800000:
        return 0xFF
    result = magnitude >> 23
    if (magnitude & 0x7FFFFF) != 0 and magnitude > 0x00400000 and magnitude < 0x7F800000:
        result += 1
    if result == 0xFF:
        result = 0xFE
    return result


def decode_e8m0(code):
    """e8m0 byte -> float32 bits: 2**(code - 127); 0xFF is NaN."""
    if code == 0xFF:
        return 0x7FFFFFFF
    if code == 0:
        return 0x00400000
    return code << 23

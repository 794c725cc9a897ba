"""What ``cuda.fp16`` and ``cuda.bf16`` compute alike in the simulator, as the compiled target's
``numba_cuda.lang.half_family`` does: math through float32 rounded once, the ordered and
unordered comparisons, ``hmax``/``hmin`` (a NaN loses to a number) and their ``_nan`` variants
(a NaN wins), ``hisnan`` and ``hisinf`` (1, -1 or 0)."""

import math
import operator

import numpy as np

_ORDERED = {"heq": operator.eq, "hne": operator.ne, "hgt": operator.gt, "hge": operator.ge,
            "hlt": operator.lt, "hle": operator.le}


def _math32(fn, convert):
    def compute(a):
        with np.errstate(all="ignore"):
            return convert(float(fn(np.float32(float(a)))))

    return compute


def _either_nan(a, b):
    return math.isnan(float(a)) or math.isnan(float(b))


def _extremum(larger, propagate, convert):
    def pick(a, b):
        fa, fb = float(a), float(b)
        a_nan, b_nan = math.isnan(fa), math.isnan(fb)
        if a_nan or b_nan:
            if propagate or (a_nan and b_nan):
                return convert(math.nan)
            return convert(fb if a_nan else fa)
        if fa == fb:  # +0 is the larger of the two zeros
            a_neg = math.copysign(1.0, fa) < 0
            return convert(fa if a_neg != larger else fb)
        return convert(max(fa, fb) if larger else min(fa, fb))

    return pick


def common_functions(convert):
    """name -> function for the functions of ``numba_cuda.lang.half_family.COMMON_FUNCTIONS``;
    ``convert(x)`` rounds a number to the family type."""
    out = dict(
        htrunc=np.trunc, hceil=np.ceil, hfloor=np.floor, hrint=np.rint, hsqrt=np.sqrt,
        hrsqrt=lambda x: np.float32(1) / np.sqrt(x), hrcp=lambda x: np.float32(1) / x,
        hlog=np.log, hlog2=np.log2, hlog10=np.log10, hcos=np.cos, hsin=np.sin, htanh=np.tanh,
        htanh_approx=np.tanh, hexp=np.exp, hexp2=np.exp2,
        hexp10=lambda x: np.power(np.float32(10), x),
    )
    out = {name: _math32(fn, convert) for name, fn in out.items()}
    for name, op in _ORDERED.items():
        # ordered: false when an operand is NaN (CUDA's __hne too); unordered: true then
        out[name] = (lambda o: lambda a, b: not _either_nan(a, b) and bool(o(float(a), float(b))))(op)
        out[name + "u"] = (lambda o: lambda a, b: _either_nan(a, b) or bool(o(float(a), float(b))))(op)
    for name, larger, propagate in (("hmax", True, False), ("hmin", False, False),
                                    ("hmax_nan", True, True), ("hmin_nan", False, True)):
        out[name] = _extremum(larger, propagate, convert)
    out["hisnan"] = lambda a: math.isnan(float(a))
    out["hisinf"] = lambda a: np.int32(0 if not math.isinf(float(a)) else (1 if float(a) > 0 else -1))
    return out

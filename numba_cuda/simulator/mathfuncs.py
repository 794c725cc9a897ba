"""``math`` functions and numeric builtins as kernels see them on the GPU.

Inside a simulated kernel a call such as ``math.sin(x)`` is redirected here.  Each is typed
as the compiled kernel types it (:func:`.typedarith.typed_call`: the arguments converted to
the signature Numba's typing chooses, the result to its return type -- ``math.sin`` of a
float32 is a float32 as libdevice's ``__nv_sinf``, ``math.floor`` gives what the kernel
language's typing says, ``abs(int32)`` wraps), and domain or range errors give NaN or
infinity instead of Python's ``ValueError``/``OverflowError``; a float converted to an
integer result converts as ``cvt.rzi`` does (NaN -> 0, saturated).
"""

import math

import builtins

import numpy as np

from .typedarith import pow_ as _typed_pow, typed_call

# math name -> numpy ufunc used when Python's math raises
_NUMPY_EQUIVALENT = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp,
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "pow": np.power, "hypot": np.hypot, "fmod": np.fmod,
    "copysign": np.copysign, "fabs": np.fabs, "exp2": np.exp2, "cbrt": np.cbrt,
    "erf": None, "erfc": None, "gamma": None, "lgamma": None, "ldexp": None,
}


def _special_result(name, args):
    if name == "gamma":
        x = float(args[0])
        return math.inf if x == 0 or x > 171 else math.nan
    if name == "lgamma":
        return math.inf
    if name == "ldexp":
        return math.copysign(math.inf, float(args[0]))
    return math.nan


def _wrap(name, fn):
    ufunc = _NUMPY_EQUIVALENT[name]

    def gpu_math(*args):
        if name == "ldexp" and len(args) == 2 and isinstance(args[1], np.integer):
            # the exponent of a kernel is often an int32 (a typed argument or array element);
            # Python's math.ldexp takes only Python ints
            args = (args[0], int(args[1]))
        try:
            result = fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            if ufunc is not None:
                with np.errstate(all="ignore"):
                    result = float(ufunc(*[float(a) for a in args]))
            else:
                result = _special_result(name, args)
        for a in args:
            if not isinstance(a, (np.float32, np.float16)):
                return result
        return np.float32(result)

    gpu_math.__name__ = name
    gpu_math.__doc__ = fn.__doc__
    return gpu_math


def gpu_round(number, ndigits=None):
    """``round()`` in a kernel.

    ``round(x)`` is an integer, as in Python.  ``round(x, n)`` rounds the float's exact value
    correctly (as Python and Numba's CUDA target do), keeping float32 as float32; NumPy's
    ``round`` of a float32 scales in float32 first and can round the wrong way
    (``round(float32(0.3425), 3)`` is 0.342 in NumPy, 0.343 on the GPU).
    """
    if ndigits is None:
        return round(number)
    ndigits = int(ndigits)
    if isinstance(number, np.floating):
        return type(number)(round(float(number), ndigits))
    if isinstance(number, np.integer):
        return type(number)(round(int(number), ndigits))
    return round(number, ndigits)


def _rounding(np_fn):
    def rounding(x):
        if isinstance(x, (int, np.integer)):
            return x
        with np.errstate(all="ignore"):
            return np_fn(x)  # a float (NaN and infinities stay), of the argument's precision
    return rounding


def _round(number, ndigits=None):
    if ndigits is None and isinstance(number, (float, np.floating)):
        return np.rint(number)  # half to even, as rint; the typed call converts the result
    return gpu_round(number, ndigits)


def _builtin_pow(base, exp, mod=None):
    if mod is None:
        return _typed_pow(base, exp)
    return builtins.pow(base, exp, mod)


_ROUNDINGS = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}


#: id(math function or builtin) -> its kernel version
KERNEL_VERSIONS = {
    id(getattr(math, name)): typed_call(getattr(math, name), _wrap(name, getattr(math, name)), name)
    for name in _NUMPY_EQUIVALENT
    if hasattr(math, name)
}
for _name, _np_fn in _ROUNDINGS.items():
    KERNEL_VERSIONS[id(getattr(math, _name))] = typed_call(getattr(math, _name), _rounding(_np_fn), _name)
for _name in ("isnan", "isinf", "isfinite"):
    KERNEL_VERSIONS[id(getattr(math, _name))] = typed_call(getattr(math, _name), getattr(math, _name), _name)
KERNEL_VERSIONS[id(round)] = typed_call(round, _round, "round")
KERNEL_VERSIONS[id(abs)] = typed_call(abs, abs, "abs")
KERNEL_VERSIONS[id(min)] = typed_call(min, min, "min")
KERNEL_VERSIONS[id(max)] = typed_call(max, max, "max")
KERNEL_VERSIONS[id(builtins.pow)] = _builtin_pow


# ---- math on the 16-bit float families, as numba_cuda.lang.half_family binds them ----------
#: math name -> the cuda.bf16 / cuda.fp16 function computing it on a 16-bit value
_HALF_MATH = {"trunc": "htrunc", "ceil": "hceil", "floor": "hfloor", "sqrt": "hsqrt",
              "log": "hlog", "log2": "hlog2", "log10": "hlog10", "cos": "hcos", "sin": "hsin",
              "tanh": "htanh", "exp": "hexp", "exp2": "hexp2"}
#: the float16 ones not typed as float16 by numba_cuda.lang.mathfuncs (numba_cuda.lang.fp16's)
_FLOAT16_MATH = ("tanh", "exp2")


def _on_half(name, general):
    def call(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            from .bfloat16 import bf16, bfloat16

            if isinstance(args[0], bfloat16):
                return getattr(bf16, _HALF_MATH[name])(args[0])
            if isinstance(args[0], np.float16) and name in _FLOAT16_MATH:
                from .kernelapi import fp16

                return getattr(fp16, _HALF_MATH[name])(args[0])
        return general(*args, **kwargs)

    call.__name__ = name
    return call


for _name in _HALF_MATH:
    KERNEL_VERSIONS[id(getattr(math, _name))] = _on_half(_name, KERNEL_VERSIONS[id(getattr(math, _name))])

"""``math`` functions as kernels see them on the GPU.

Inside a simulated kernel a call such as ``math.sin(x)`` is redirected here:
float32 arguments give a float32 result (as libdevice's ``__nv_sinf``), and
domain or range errors give NaN or infinity instead of Python's
``ValueError``/``OverflowError``.
"""

import math

import numpy as np

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


#: id(math function) -> its kernel version
KERNEL_VERSIONS = {
    id(getattr(math, name)): _wrap(name, getattr(math, name))
    for name in _NUMPY_EQUIVALENT
    if hasattr(math, name)
}
KERNEL_VERSIONS[id(round)] = gpu_round

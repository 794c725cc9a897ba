"""NumPy ufuncs inside kernels: ``np.sin(x[i])``, ``np.hypot(a, b)``, ``np.sin(x, out)`` ...

Every ufunc Numba's CPU target implements (its ``numba.np.ufunc_db``) is typed by NumPy's rules
(Numba's ``Numpy_rules_ufunc``: the first matching NumPy loop, as NumPy picks it) and lowered
through Numba's ufunc loop machinery (``numba.np.npyimpl``), on scalars and on arrays with
explicit output arrays.  Only the per-element functions differ from the CPU's:

* real transcendental, rounding and power functions call libdevice (``__nv_sinf``,
  ``__nv_floor``, ``__nv_pow`` ... through :func:`.mathfuncs.call_math`, fast variants under
  ``fastmath``), never the ``llvm.sin``-style intrinsics NVPTX cannot select;
* every other loop (integer, boolean, comparison, complex, bit functions) is Numba's own
  element function, which emits plain LLVM arithmetic or goes through the ``math``/``cmath``
  lowering of this package;
* loops over datetimes and the few loops that need CPU helpers are left out (a TypingError
  names the ufunc and the types).

A ufunc on arrays without an output array allocates its result (Numba's ufunc lowering, through
the device NRT): with the NRT off (``NUMBA_CUDA_ENABLE_NRT``) that is a TypingError saying to pass
the output (``np.sin(x, out)``) or to turn the NRT on.  Outputs are passed
positionally or as ``out=`` (an array, or a tuple of arrays for several outputs).
"""

import cmath
import functools
import math

import numpy as np
from numba.core import errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import Registry as TypingRegistry

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.numpy_ufuncs")

#: ufunc -> libdevice base name (float64 name; float32 adds "f"), for its real float loops.
LIBDEVICE_LOOPS = {
    np.sin: "sin", np.cos: "cos", np.tan: "tan",
    np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan",
    np.sinh: "sinh", np.cosh: "cosh", np.tanh: "tanh",
    np.arcsinh: "asinh", np.arccosh: "acosh", np.arctanh: "atanh",
    np.exp: "exp", np.exp2: "exp2", np.expm1: "expm1",
    np.log: "log", np.log2: "log2", np.log10: "log10", np.log1p: "log1p",
    np.sqrt: "sqrt", np.cbrt: "cbrt", np.fabs: "fabs",
    np.floor: "floor", np.ceil: "ceil", np.trunc: "trunc", np.rint: "rint",
    np.arctan2: "atan2", np.hypot: "hypot", np.power: "pow", np.float_power: "pow",
    np.fmod: "fmod", np.copysign: "copysign", np.nextafter: "nextafter",
}

#: NumPy type characters of the loops kept (datetime ``m``/``M`` and long double ``g`` are not).
_KEPT_CHARS = frozenset("?bBhHiIlLqQfdFD")

#: (ufunc name, loop) pairs left out (none at present; a TypingError would name the ufunc and
#: the loop).  tests/lang/test_numpy_ufuncs.py compiles every loop with libNVVM and ptxas.
_LEFT_OUT = frozenset()


def _real_libdevice_loop(base):
    def impl(context, builder, sig, args):
        from .mathfuncs import call_math

        return call_math(context, builder, base, sig.args[0], list(args))

    impl.__name__ = f"np_libdevice_{base}_impl"
    return impl


# Element functions of our own, where Numba's CPU one calls a CPU helper (numba_cpow,
# numba_nextafter, numba_ldexp) or an LLVM intrinsic libNVVM refuses (llvm.exp ... through the
# real element functions its complex ones call directly).


def _cmath_loop(fn):
    def impl(context, builder, sig, args):
        return context.get_function(fn, sig)(builder, args)

    impl.__name__ = f"np_cmath_{fn.__name__}_impl"
    return impl


def _complex_parts(context, builder, sig, value):
    z = context.make_complex(builder, sig.args[0], value=value)
    return z.real, z.imag, sig.args[0].underlying_float


def _make_complex(context, builder, cplxty, real, imag):
    z = context.make_complex(builder, cplxty)
    z.real, z.imag = real, imag
    return z._getvalue()


def _complex_expm1(context, builder, sig, args):
    from .mathfuncs import call_math

    x, y, flt = _complex_parts(context, builder, sig, args[0])
    a = call_math(context, builder, "exp", flt, [x])
    real = builder.fadd(builder.fmul(a, call_math(context, builder, "cos", flt, [y])),
                        context.get_constant(flt, -1.0))
    imag = builder.fmul(a, call_math(context, builder, "sin", flt, [y]))
    return _make_complex(context, builder, sig.return_type, real, imag)


def _complex_log1p(context, builder, sig, args):
    from .mathfuncs import call_math

    x, y, flt = _complex_parts(context, builder, sig, args[0])
    xp1 = builder.fadd(x, context.get_constant(flt, 1.0))
    real = call_math(context, builder, "log", flt, [call_math(context, builder, "hypot", flt, [xp1, y])])
    imag = call_math(context, builder, "atan2", flt, [y, xp1])
    return _make_complex(context, builder, sig.return_type, real, imag)


def _cpow(z, w):
    # NumPy's npy_cpow: 1 for w == 0; 0 ** w is 0 for real w > 0, NaN otherwise; exact
    # repeated multiplication for small integer exponents; exp(w log z) otherwise.
    if w.real == 0 and w.imag == 0:
        return complex(1.0, 0.0)
    if z.real == 0 and z.imag == 0:
        if w.imag == 0 and w.real > 0:
            return complex(0.0, 0.0)
        return complex(math.nan, math.nan)
    if w.imag == 0 and w.real == math.floor(w.real) and abs(w.real) < 100:
        n = int(w.real)
        m = abs(n)
        result = complex(1.0, 0.0)
        base = z
        while m > 0:
            if m & 1:
                result = result * base
            base = base * base
            m >>= 1
        if n < 0:
            return complex(1.0, 0.0) / result
        return result
    return cmath.exp(w * cmath.log(z))


def _complex_power(context, builder, sig, args):
    return context.compile_internal(builder, _cpow, sig, args)


def _spacing(context, builder, sig, args):
    from .mathfuncs import call_math

    (x,), (flt,) = args, sig.args
    inf = context.get_constant(flt, math.inf)
    toward = call_math(context, builder, "copysign", flt, [inf, x])
    return builder.fsub(call_math(context, builder, "nextafter", flt, [x, toward]), x)


def _ldexp(context, builder, sig, args):
    from . import libdevice_functions as libdevice

    (x, e), (flt, ety) = args, sig.args
    e = context.cast(builder, e, ety, types.int64)
    lo, hi = context.get_constant(types.int64, -(2 ** 31)), context.get_constant(types.int64, 2 ** 31 - 1)
    e = builder.select(builder.icmp_signed("<", e, lo), lo, e)  # saturate: the same float answer
    e = builder.select(builder.icmp_signed(">", e, hi), hi, e)
    e = builder.trunc(e, context.get_value_type(types.int32))
    return libdevice.call(builder, "ldexpf" if flt == types.float32 else "ldexp", [x, e])


def _own_loop(ufunc, loop):
    """Our element function for ``ufunc``'s ``loop``, or None for Numba's."""
    kinds = set(loop) - {"-", ">"}
    if kinds <= {"F", "D"}:
        if ufunc in (np.sinh, np.cosh, np.tanh):
            return _cmath_loop(getattr(cmath, ufunc.__name__))
        if ufunc is np.expm1:
            return _complex_expm1
        if ufunc is np.log1p:
            return _complex_log1p
        if ufunc in (np.power, np.float_power):
            return _complex_power
    if ufunc is np.spacing and kinds <= {"f", "d"}:
        return _spacing
    if ufunc is np.ldexp:
        return _ldexp
    return None


def _is_real_float_loop(loop):
    inputs, outputs = loop.split("->")
    return set(inputs) <= {"f", "d"} and set(outputs) <= {"f", "d"} and len(set(loop) - {"-", ">"}) == 1


@functools.lru_cache(maxsize=None)
def ufunc_db():
    """ufunc -> {NumPy loop signature (``"ff->f"``): element function (context, builder, sig, args)}."""
    from numba.np import ufunc_db as cpu_db

    made = {}
    for ufunc in cpu_db.get_ufuncs():
        loops = {}
        for loop, impl in cpu_db.get_ufunc_info(ufunc).items():
            if not set(loop) - {"-", ">"} <= _KEPT_CHARS or (ufunc.__name__, loop) in _LEFT_OUT:
                continue
            base = LIBDEVICE_LOOPS.get(ufunc)
            if base is not None and _is_real_float_loop(loop):
                impl = _real_libdevice_loop(base)
            loops[loop] = _own_loop(ufunc, loop) or impl
        if loops:
            made[ufunc] = loops
    return made


def supported_ufuncs():
    """The ufuncs usable in kernels, by name."""
    return sorted(u.__name__ for u in ufunc_db())


# ---- typing --------------------------------------------------------------------------------


def _ufunc_template(ufunc):
    from numba.core.typing.npydecl import Numpy_rules_ufunc

    from ..common.unsupported import nrt_enabled

    name = ufunc.__name__

    class CudaUfunc(Numpy_rules_ufunc):
        key = ufunc

        def generic(self, args, kws):
            args = list(args)
            if kws:
                args = _fold_out_keyword(name, ufunc, args, kws)
            sig = super().generic(tuple(args), {})
            if sig is None:
                return None
            if kws:
                sig = sig.replace(pysig=_out_keyword_pysig(ufunc.nin))
            outputs = sig.return_type.types if isinstance(sig.return_type, types.BaseTuple) \
                and ufunc.nout > 1 else (sig.return_type,)
            explicit = len(args) - ufunc.nin
            if any(isinstance(t, types.Array) for t in outputs[explicit:]) \
                    and not nrt_enabled():
                raise errors.TypingError(
                    f"np.{name}({', '.join(map(str, args))}) would allocate a new array for its "
                    f"result, which needs the device NRT (NUMBA_CUDA_ENABLE_NRT=1): pass the "
                    f"output array, np.{name}({', '.join(['x'] * ufunc.nin)}, out), or turn the "
                    "NRT on"
                )
            from numba.np.numpy_support import ufunc_find_matching_loop

            base = [a.dtype if isinstance(a, types.ArrayCompatible) else
                    (a.type if isinstance(a, types.Optional) else a) for a in args]
            loop = ufunc_find_matching_loop(ufunc, base)
            if loop is not None and loop.ufunc_sig not in ufunc_db().get(ufunc, {}):
                raise errors.TypingError(
                    f"np.{name} has no GPU implementation for the NumPy loop {loop.ufunc_sig} "
                    f"(arguments {', '.join(map(str, args))})"
                )
            return sig

    CudaUfunc.__name__ = f"CudaUfunc_{name}"
    return CudaUfunc


def _fold_out_keyword(name, ufunc, args, kws):
    kws = dict(kws)
    out = kws.pop("out", None)
    if kws:
        raise errors.TypingError(
            f"np.{name}() in a kernel takes its inputs and out= only, not "
            f"{', '.join(sorted(kws))}=")
    if len(args) != ufunc.nin:
        raise errors.TypingError(f"np.{name}(): the output is given both positionally and as out=")
    if ufunc.nout != 1 or not isinstance(out, types.Array):
        raise errors.TypingError(
            f"np.{name}(..., out=) in a kernel takes one output array ({ufunc.nout} output(s) "
            f"here; pass several outputs positionally), not {out}")
    return args + [out]


@functools.lru_cache(maxsize=None)
def _out_keyword_pysig(nin):
    """``(x1, ..., xn, out)``: how a call with ``out=`` is folded into positional arguments."""
    import inspect

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(f"x{i + 1}", inspect.Parameter.POSITIONAL_ONLY) for i in range(nin)]
    return inspect.Signature(params + [inspect.Parameter("out", kind)])


# ---- lowering ------------------------------------------------------------------------------


def _register():
    from numba.np import npyimpl

    for ufunc in ufunc_db():
        typing_registry.register_global(ufunc, types.Function(_ufunc_template(ufunc)))
        npyimpl.register_ufunc_kernel(ufunc, npyimpl._ufunc_db_function(ufunc), lowering_registry.lower)


_register()


def _check_table():
    from . import libdevice_functions as libdevice

    for base in set(LIBDEVICE_LOOPS.values()):
        for name in (base, base + "f"):
            assert name in libdevice.FUNCTIONS, name


_check_table()

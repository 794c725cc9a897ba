"""``cmath``'s inverse trigonometric and hyperbolic functions inside kernels: ``cmath.asin``,
``acos``, ``atan``, ``asinh``, ``acosh``, ``atanh`` of complex64/complex128 (and the NumPy
ufuncs ``np.arcsin`` ... on complex values, whose element functions call them).

``asin``, ``acos``, ``atan``, ``asinh`` and ``atanh`` are lowered with Numba's own ``cmath``
implementations (``numba.cpython.cmathimpl``: CPython's algorithms, written with ``math`` and
``cmath.sqrt``, which this package lowers to libdevice); they are installed one by one here,
never Numba's whole CPU ``cmath`` registry.  ``acosh`` is an ``@overload`` for the CPU in
Numba, so it is typed and lowered here, with CPython's algorithm: for |z| beyond
``FLT_MAX / 4``, ``log(|z| / 2) + log 4 + i atan2(y, x)``; otherwise with ``s1 = sqrt(z - 1)`` and
``s2 = sqrt(z + 1)``, ``asinh(Re(conj(s1) s2)) + 2i atan2(Im s1, Re s2)``.
"""

import cmath
import math

from numba.core import types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import ConcreteTemplate, Registry as TypingRegistry, signature

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.cmath_inverse")
lower = lowering_registry.lower

#: Beyond this modulus the squares in the direct formulas would overflow (float64's max / 4).
_LARGE = 1.7976931348623157e308 / 4
_LOG_4 = math.log(4.0)


def _numba_lowering(name):
    from numba.cpython import cmathimpl

    return getattr(cmathimpl, f"{name}_impl")


for _name in ("asin", "acos", "atan", "asinh", "atanh"):
    lower(getattr(cmath, _name), types.Complex)(
        lambda context, builder, sig, args, _name=_name: _numba_lowering(_name)(context, builder, sig, args))


class _Acosh(ConcreteTemplate):
    key = cmath.acosh
    cases = [signature(types.complex128, types.complex128), signature(types.complex64, types.complex64)]


typing_registry.register_global(cmath.acosh, types.Function(_Acosh))


def _acosh(z):
    if abs(z.real) > _LARGE or abs(z.imag) > _LARGE:
        return complex(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + _LOG_4, math.atan2(z.imag, z.real))
    s1 = cmath.sqrt(complex(z.real - 1.0, z.imag))
    s2 = cmath.sqrt(complex(z.real + 1.0, z.imag))
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag), 2.0 * math.atan2(s1.imag, s2.real))


@lower(cmath.acosh, types.Complex)
def _lower_acosh(context, builder, sig, args):
    return context.compile_internal(builder, _acosh, sig, args)

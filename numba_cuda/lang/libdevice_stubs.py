"""The objects of ``cuda.libdevice`` (``numba_cuda/libdevice.py`` re-exports them): every
libdevice function, callable by name inside kernels.

``cuda.libdevice.sin(x)`` calls ``__nv_sin``; ``cuda.libdevice.sinf(x)`` calls ``__nv_sinf``;
``cuda.libdevice.popc(x)``, ``cuda.libdevice.umulhi(a, b)`` ... all 347 functions of
``libdevice.10.bc`` that take values (``nan``/``nanf``, which take a C string, are left out).
Arguments are converted to the C prototype's types.  Functions with out-pointer parameters
return them as a tuple after the result: ``sincos(x) -> (s, c)``, ``frexp(x) -> (m, e)``,
``modf(x) -> (frac, whole)``, ``remquo(x, y) -> (r, q)``.

The objects here do nothing outside kernels; ``numba_cuda.lang.libdevice_calls`` types and
lowers them (see ``numba_cuda.lang.libdevice_functions`` for the table).
"""

from .libdevice_functions import FUNCTIONS as _FUNCTIONS
from .stubs import FunctionStub as _FunctionStub


def _callable_names():
    return sorted(name for name, (_, args) in _FUNCTIONS.items() if "pi8" not in args)


def _make_stubs():
    made = {}
    for name in _callable_names():
        ret, args = _FUNCTIONS[name]
        inputs = [a for a in args if not a.startswith("p")]
        outputs = [a[1:] for a in args if a.startswith("p")]
        doc = f"{name}({', '.join(inputs)}) -> " + (
            f"({', '.join(([ret] if ret != 'void' else []) + outputs)})" if outputs else ret
        ) + f": libdevice __nv_{name}."
        made[name] = _FunctionStub(f"numba.cuda.libdevice.{name}", doc)
    return made


globals().update(_make_stubs())
__all__ = _callable_names()

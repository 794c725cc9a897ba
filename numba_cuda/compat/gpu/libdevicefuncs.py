"""``numba.cuda.libdevicefuncs``: the libdevice table in the layout of Numba's module of that name.

``functions`` maps each ``__nv_<name>`` callable as ``cuda.libdevice.<name>`` to
``(return type, [arg(name, ty, is_ptr), ...])`` with Numba types, and
``create_signature(retty, args)`` gives the signature of the ``cuda.libdevice``
stub (out-pointer arguments become part of the returned tuple).  Both are views
of :data:`numba_cuda.lang.libdevice_functions.FUNCTIONS`, the one table.
"""

from collections import namedtuple

from numba.core import types
from numba.core.typing.templates import signature

from numba_cuda.lang.libdevice_functions import FUNCTIONS as _FUNCTIONS

arg = namedtuple("arg", ("name", "ty", "is_ptr"))

_TYPES = {
    "f32": types.float32, "f64": types.float64, "i16": types.int16, "i32": types.int32,
    "i64": types.int64, "u32": types.uint32, "u64": types.uint64, "void": types.void,
}


def _entry(ret, codes):
    args = [arg(name=f"x{i}" if not code.startswith("p") else f"p{i}",
                ty=_TYPES[code.removeprefix("p")], is_ptr=code.startswith("p"))
            for i, code in enumerate(codes)]
    return _TYPES[ret], args


#: Every function ``cuda.libdevice`` exposes (those taking a C string, ``nan``/``nanf``, are not).
functions = {
    f"__nv_{name}": _entry(ret, codes)
    for name, (ret, codes) in sorted(_FUNCTIONS.items())
    if "pi8" not in codes
}


def create_signature(retty, args):
    """The signature of the ``cuda.libdevice`` stub for a libdevice function.

    Out-pointer arguments are returned (after the function's own result, if not
    void) as a tuple; the remaining arguments are the stub's parameters.
    """
    returns = [a.ty for a in args if a.is_ptr]
    if retty != types.void:
        returns.insert(0, retty)
    if len(returns) > 1:
        result = types.Tuple(returns)
    elif returns:
        result = returns[0]
    else:
        result = types.void
    return signature(result, *[a.ty for a in args if not a.is_ptr])

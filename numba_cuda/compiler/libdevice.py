"""Hook for the kernel-language families: calls to libdevice (``__nv_*``) functions.

libdevice is linked by libNVVM for every compile with lazy add, so emitting a call is all that is
needed: only referenced functions end up in the PTX.

* ``declare(builder_or_module, name, ret, args)`` -- declare ``__nv_<name>`` (``name`` may be
  given with or without the ``__nv_`` prefix) with ``llvmlite.ir`` types; returns the function.
* ``call(builder, name, ret, args, values)`` -- declare and call; returns the result.
* ``F32``, ``F64``, ``I32``, ``I64`` -- the ``llvmlite.ir`` types most signatures use.

Example (float64 sine)::

    from numba_cuda.compiler import libdevice
    res = libdevice.call(builder, "sin", libdevice.F64, [libdevice.F64], [x])
"""

from llvmlite import ir

F32 = ir.FloatType()
F64 = ir.DoubleType()
I32 = ir.IntType(32)
I64 = ir.IntType(64)


def symbol(name):
    return name if name.startswith("__nv_") else f"__nv_{name}"


def declare(builder_or_module, name, ret, args):
    module = getattr(builder_or_module, "module", builder_or_module)
    sym = symbol(name)
    fn = module.globals.get(sym)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, list(args)), sym)
    return fn


def call(builder, name, ret, args, values):
    return builder.call(declare(builder, name, ret, args), list(values))

"""Typing and lowering of ``cuda.libdevice.<name>(...)`` from the libdevice table.

Each function gets one concrete signature built from its C prototype (table type codes ->
Numba types); out-pointer parameters become stack slots whose values are returned, after the
function's own result, as a tuple.
"""

from numba.core import cgutils, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import ConcreteTemplate, Registry as TypingRegistry, signature

from . import libdevice_functions as table

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.libdevice_calls")

NUMBA_TYPES = {
    "f32": types.float32, "f64": types.float64, "i16": types.int16, "i32": types.int32,
    "u32": types.uint32, "i64": types.int64, "u64": types.uint64,
}


def numba_signature(name):
    """The Numba signature of ``cuda.libdevice.<name>``."""
    ret, args = table.FUNCTIONS[name]
    inputs = [NUMBA_TYPES[a] for a in args if not a.startswith("p")]
    outputs = [NUMBA_TYPES[a[1:]] for a in args if a.startswith("p")]
    results = ([] if ret == "void" else [NUMBA_TYPES[ret]]) + outputs
    if ret == "void" and not outputs:
        restype = types.none
    elif outputs:
        restype = types.Tuple(tuple(results))
    else:
        restype = results[0]
    return signature(restype, *inputs)


def _lower(name):
    ret, args = table.FUNCTIONS[name]

    def impl(context, builder, sig, values):
        values = iter(values)
        call_args, slots = [], []
        for code in args:
            if code.startswith("p"):
                slot = cgutils.alloca_once(builder, table.llvm_type(code[1:]))
                slots.append(slot)
                call_args.append(slot)
            else:
                call_args.append(next(values))
        result = table.call(builder, name, call_args)
        if not slots:
            return context.get_dummy_value() if ret == "void" else result
        items = ([] if ret == "void" else [result]) + [builder.load(s) for s in slots]
        return context.make_tuple(builder, sig.return_type, items)

    return impl


def _install():
    from . import libdevice_stubs as public

    for name in public.__all__:
        stub = getattr(public, name)
        sig = numba_signature(name)

        class Template(ConcreteTemplate):
            key = stub
            cases = [sig]

        typing_registry.register_global(stub, types.Function(Template))
        lowering_registry.lower(stub, *sig.args)(_lower(name))


_install()

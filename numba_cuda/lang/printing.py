"""``print(...)`` inside kernels, through the CUDA runtime's ``vprintf``.

The arguments are formatted at compile time into one ``vprintf`` format string (constant
memory) and a packed argument buffer (a local struct):

==============================  ====================================================
argument                        printed as
==============================  ====================================================
string constant                 its text (inlined into the format; ``%`` escaped)
signed / unsigned integer       ``%lld`` / ``%llu`` (widened to 64 bits)
boolean                         ``True`` / ``False``
float32 / float64               ``%f`` (float32 widened to double, as C varargs do)
tuple (nested too)              ``(a, b)``, ``(a,)``: its items as above
==============================  ====================================================

Items are separated by spaces and the line ends with ``\\n``, as Python's ``print``.  Any other
type (arrays, complex, string variables ...) is an error naming the type and the line.
Output appears on the host when the device synchronises (a bounded buffer: lines may be
dropped if a kernel prints more than the runtime's printf FIFO holds).
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import Registry as TypingRegistry

from .intrinsics import ADDRSPACE_CONSTANT
from .memory import generic_pointer

typing_registry = TypingRegistry()  # print() is typed by Numba's builtins
lowering_registry = LoweringRegistry("numba_cuda.lang.printing")
lower = lowering_registry.lower

_i8 = ir.IntType(8)
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_f64 = ir.DoubleType()
_char_ptr = _i8.as_pointer()


def _constant_string(module, text, name):
    data = bytearray(text.encode("utf-8") + b"\0")
    arrty = ir.ArrayType(_i8, len(data))
    gv = ir.GlobalVariable(module, arrty, module.get_unique_name(name), addrspace=ADDRSPACE_CONSTANT)
    gv.linkage = "internal"
    gv.global_constant = True
    gv.initializer = ir.Constant(arrty, data)
    return gv


def _generic_char_pointer(builder, gv):
    return generic_pointer(builder, gv, _i8)


def vprintf(builder):
    fnty = ir.FunctionType(_i32, [_char_ptr, _char_ptr])
    return cgutils.get_or_insert_function(builder.module, fnty, "vprintf")


def format_items(context, builder, argtypes, args, in_tuple=False):
    """(format pieces, LLVM values to pass) for the print arguments; raises TypingError."""
    pieces, values = [], []
    for ty, value in zip(argtypes, args):
        if isinstance(ty, types.BaseTuple):
            # as Python prints it: (a, b), (a,), (); nested tuples likewise
            items = [builder.extract_value(value, i) for i in range(len(ty))]
            inner, inner_values = format_items(context, builder, ty.types, items, in_tuple=True)
            pieces.append("(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")")
            values.extend(inner_values)
        elif isinstance(ty, types.StringLiteral):
            text = ty.literal_value.replace("%", "%%")
            pieces.append(repr(text) if in_tuple else text)  # Python quotes strings in tuples
        elif isinstance(ty, types.Boolean):
            pieces.append("%s")
            module = builder.module
            true_text = _generic_char_pointer(builder, _constant_string(module, "True", "print_true"))
            false_text = _generic_char_pointer(builder, _constant_string(module, "False", "print_false"))
            truth = context.is_true(builder, ty, value)
            values.append(builder.select(truth, true_text, false_text))
        elif isinstance(ty, types.Integer):
            pieces.append("%lld" if ty.signed else "%llu")
            values.append(context.cast(builder, value, ty, types.int64 if ty.signed else types.uint64))
        elif isinstance(ty, types.Float):
            pieces.append("%f")
            values.append(context.cast(builder, value, ty, types.float64))
        else:
            raise errors.TypingError(
                f"print() in a CUDA kernel cannot print a value of type {ty}; it prints string "
                f"constants, integers, booleans, floats and tuples of these (print the elements or parts instead)"
            )
    return pieces, values


@lower(print, types.VarArg(types.Any))
def _lower_print(context, builder, sig, args):
    pieces, values = format_items(context, builder, sig.args, args)
    fmt = " ".join(pieces) + "\n"
    fmt_ptr = _generic_char_pointer(builder, _constant_string(builder.module, fmt, "printf_format"))
    if values:
        buffer_type = ir.LiteralStructType([v.type for v in values])
        buffer = cgutils.alloca_once(builder, buffer_type, name="printf_args")
        for index, value in enumerate(values):
            builder.store(value, cgutils.gep_inbounds(builder, buffer, 0, index))
        arg_ptr = builder.bitcast(buffer, _char_ptr)
    else:
        arg_ptr = ir.Constant(_char_ptr, None)
    builder.call(vprintf(builder), [fmt_ptr, arg_ptr])
    return context.get_dummy_value()

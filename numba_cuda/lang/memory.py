"""Arrays in the GPU's memory spaces: ``cuda.shared.array``, ``cuda.local.array``, ``cuda.const.array_like``.

* ``cuda.shared.array(shape, dtype, alignment=None)``: one array per block, in shared memory
  (NVVM address space 3).  ``shape`` is a constant int or tuple of constant ints.  Every call
  site gets its own ``internal`` global.  ``shape=0`` (1-D only) is a *dynamic* shared array:
  its storage is the block's dynamic shared memory, sized at launch (``kernel[grid, block,
  stream, nbytes]``), and its length is ``nbytes // itemsize``, read from the
  ``%dynamic_smem_size`` special register.  All dynamic shared arrays of a kernel alias the same
  memory, as in CUDA C++.
* ``cuda.local.array(shape, dtype, alignment=None)``: a per-thread array, an ``alloca`` in the
  function's entry block (the PTX backend places it in local memory or registers).
* ``cuda.const.array_like(ndarray)``: a global NumPy array in constant memory.  The target
  context places every constant (global) array with :func:`make_constant_array`, which puts its
  data in the constant address space (4); the call itself is then a no-op returning that array.

All three return C-contiguous arrays (``const.array_like`` keeps the layout of its argument).
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.npydecl import parse_dtype
from numba.core.typing.templates import CallableTemplate, Registry as TypingRegistry

from . import stubs
# NVVM's address spaces, defined once (in ``intrinsics``); also this family's names for them
from .intrinsics import (  # noqa: F401
    ADDRSPACE_CONSTANT, ADDRSPACE_GENERIC, ADDRSPACE_GLOBAL, ADDRSPACE_SHARED)

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.memory")
lower = lowering_registry.lower


#: Name of the one external, zero-length shared array behind every dynamic shared array.
DYNAMIC_SHARED_SYMBOL = "_numba_cuda_dynamic_shared"
#: Alignment of the dynamic shared memory base (enough for every scalar and complex128).
DYNAMIC_SHARED_ALIGN = 16
#: Constant memory is 64 KiB per module; larger constant arrays stay in global memory.
CONSTANT_MEMORY_LIMIT = 64 * 1024

_i8 = ir.IntType(8)
_i32 = ir.IntType(32)


# ---- typing ------------------------------------------------------------------------------


def static_shape(shape_type):
    """The shape tuple of ints held by a literal int or tuple-of-literal-ints type, else None."""
    if isinstance(shape_type, types.IntegerLiteral):
        return (shape_type.literal_value,)
    if isinstance(shape_type, types.BaseTuple) and all(
        isinstance(s, types.IntegerLiteral) for s in shape_type
    ):
        return tuple(s.literal_value for s in shape_type)
    return None


def _element_type(qualname, dtype):
    nb_dtype = parse_dtype(dtype)
    if nb_dtype is None or not isinstance(nb_dtype, (types.Number, types.Boolean, types.Record)):
        raise errors.TypingError(
            f"{qualname}: dtype must be a NumPy/Numba scalar type or record dtype "
            f"(e.g. numba.float32, np.int64), not {dtype}"
        )
    return nb_dtype


def _check_alignment(qualname, alignment):
    if alignment is None or isinstance(alignment, (types.NoneType, types.Omitted)):
        return
    if not isinstance(alignment, types.IntegerLiteral):
        raise errors.TypingError(f"{qualname}: alignment must be a constant integer, not {alignment}")
    value = alignment.literal_value
    if value <= 0 or value & (value - 1):
        raise errors.TypingError(f"{qualname}: alignment must be a positive power of two, not {value}")


#: No GPU has this much shared memory per block or local memory per thread (the most is 228 KiB
#: and 512 KiB); past 2**63 elements the array type itself overflows into malformed NVVM IR.
ARRAY_SIZE_LIMIT = 2**32


def _check_size(qualname, shape_tuple, nb_dtype):
    count = 1
    for extent in shape_tuple:
        count *= extent
    itemsize = getattr(nb_dtype, "bitwidth", 8) // 8 or 1
    if isinstance(nb_dtype, types.Record):
        itemsize = nb_dtype.size
    size = count * itemsize
    if size >= ARRAY_SIZE_LIMIT:
        raise errors.TypingError(
            f"{qualname}: shape {shape_tuple} of {nb_dtype} is {size} bytes, more than any GPU "
            f"has ({ARRAY_SIZE_LIMIT} bytes at most); use a smaller array"
        )


def _array_template(stub, allow_dynamic):
    qualname = stub.qualname.replace("numba.", "", 1)

    class ArrayDecl(CallableTemplate):
        key = stub
        prefer_literal = True

        def generic(self):
            def typer(shape, dtype, alignment=None):
                shape_tuple = static_shape(shape)
                if shape_tuple is None:
                    raise errors.TypingError(
                        f"{qualname}: shape must be a constant int or a tuple of constant ints "
                        f"known at compile time, not {shape}"
                    )
                if any(n < 0 for n in shape_tuple):
                    raise errors.TypingError(f"{qualname}: negative extent in shape {shape_tuple}")
                if 0 in shape_tuple and len(shape_tuple) > 1:
                    if allow_dynamic:
                        raise errors.TypingError(
                            f"{qualname}: a dynamically sized shared array (shape=0) must be 1-D; "
                            f"got shape {shape_tuple}"
                        )
                _check_alignment(qualname, alignment)
                nb_dtype = _element_type(qualname, dtype)
                _check_size(qualname, shape_tuple, nb_dtype)
                return types.Array(nb_dtype, len(shape_tuple), "C")

            return typer

    typing_registry.register_global(stub, types.Function(ArrayDecl))


_array_template(stubs.shared.array, allow_dynamic=True)
_array_template(stubs.local.array, allow_dynamic=False)


class _ConstArrayLike(CallableTemplate):
    key = stubs.const.array_like

    def generic(self):
        def typer(ndarray):
            if not isinstance(ndarray, types.Array):
                raise errors.TypingError(
                    f"cuda.const.array_like(ndarray): the argument must be a global NumPy array, "
                    f"not {ndarray}"
                )
            return ndarray

        return typer


typing_registry.register_global(stubs.const.array_like, types.Function(_ConstArrayLike))


# ---- lowering helpers --------------------------------------------------------------------


def _alignment_value(sig, datatype, context):
    natural = context.get_abi_alignment(datatype)
    if len(sig.args) > 2 and isinstance(sig.args[2], types.IntegerLiteral):
        return max(natural, sig.args[2].literal_value)
    return natural


def _c_strides(shape, itemsize):
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def make_array_struct(context, builder, aryty, data, shape, strides):
    """An array value of type ``aryty`` over ``data`` (a generic ``elem*``); ``shape`` and
    ``strides`` are ints or LLVM ``intp`` values."""
    intp = types.intp

    def as_value(v):
        return context.get_constant(intp, v) if isinstance(v, int) else v

    itemsize = context.get_abi_sizeof(context.get_data_type(aryty.dtype))
    ary = context.make_array(aryty)(context, builder)
    context.populate_array(
        ary,
        data=data,
        shape=[as_value(s) for s in shape],
        strides=[as_value(s) for s in strides],
        itemsize=context.get_constant(intp, itemsize),
        meminfo=None,
    )
    return ary._getvalue()


def generic_pointer(builder, value, element_type):
    """``value`` (a pointer in any address space) as a generic ``element_type*``."""
    ptr_type = value.type
    addrspace = getattr(ptr_type, "addrspace", 0)
    typed = builder.bitcast(value, element_type.as_pointer(addrspace))
    if addrspace == ADDRSPACE_GENERIC:
        return typed
    return builder.addrspacecast(typed, element_type.as_pointer())


def read_dynamic_shared_size(builder):
    """Bytes of dynamic shared memory given at launch (``%dynamic_smem_size``), as an i32."""
    fnty = ir.FunctionType(_i32, [])
    return builder.asm(fnty, "mov.u32 $0, %dynamic_smem_size;", "=r", [], side_effect=False)


def dynamic_shared_base(module):
    """The module's external zero-length shared array behind all dynamic shared arrays."""
    existing = module.globals.get(DYNAMIC_SHARED_SYMBOL)
    if existing is not None:
        return existing
    gv = ir.GlobalVariable(module, ir.ArrayType(_i8, 0), DYNAMIC_SHARED_SYMBOL, addrspace=ADDRSPACE_SHARED)
    gv.linkage = "external"
    gv.align = DYNAMIC_SHARED_ALIGN
    return gv


# ---- cuda.shared.array -------------------------------------------------------------------


def _lower_shared_array(context, builder, sig, args):
    aryty = sig.return_type
    shape = static_shape(sig.args[0])
    datatype = context.get_data_type(aryty.dtype)
    itemsize = context.get_abi_sizeof(datatype)
    module = builder.module

    if shape == (0,):
        base = dynamic_shared_base(module)
        data = generic_pointer(builder, base, datatype)
        nbytes = read_dynamic_shared_size(builder)
        count = builder.udiv(builder.zext(nbytes, context.get_value_type(types.intp)),
                             context.get_constant(types.intp, itemsize))
        return make_array_struct(context, builder, aryty, data, [count], [itemsize])

    nitems = 1
    for extent in shape:
        nitems *= extent
    storage_type = ir.ArrayType(datatype, nitems)
    gv = ir.GlobalVariable(module, storage_type, module.get_unique_name("_cudapy_smem"),
                           addrspace=ADDRSPACE_SHARED)
    gv.linkage = "internal"
    gv.initializer = ir.Constant(storage_type, ir.Undefined)
    gv.align = _alignment_value(sig, datatype, context)
    data = generic_pointer(builder, gv, datatype)
    return make_array_struct(context, builder, aryty, data, shape, _c_strides(shape, itemsize))


for _shape_class in (types.IntegerLiteral, types.BaseTuple):
    lower(stubs.shared.array, _shape_class, types.Any)(_lower_shared_array)
    lower(stubs.shared.array, _shape_class, types.Any, types.Any)(_lower_shared_array)


# ---- cuda.local.array --------------------------------------------------------------------


def _lower_local_array(context, builder, sig, args):
    aryty = sig.return_type
    shape = static_shape(sig.args[0])
    datatype = context.get_data_type(aryty.dtype)
    itemsize = context.get_abi_sizeof(datatype)
    nitems = 1
    for extent in shape:
        nitems *= extent
    storage = cgutils.alloca_once(builder, ir.ArrayType(datatype, nitems), name="local_array")
    storage.align = _alignment_value(sig, datatype, context)
    data = builder.bitcast(storage, datatype.as_pointer())
    return make_array_struct(context, builder, aryty, data, shape, _c_strides(shape, itemsize))


for _shape_class in (types.IntegerLiteral, types.BaseTuple):
    lower(stubs.local.array, _shape_class, types.Any)(_lower_local_array)
    lower(stubs.local.array, _shape_class, types.Any, types.Any)(_lower_local_array)


# ---- cuda.const.array_like and constant arrays --------------------------------------------


@lower(stubs.const.array_like, types.Array)
def _lower_const_array_like(context, builder, sig, args):
    # The argument is a global array, already placed in constant memory by
    # make_constant_array (the target context's hook); nothing to copy.
    return args[0]


def make_constant_array(context, builder, typ, ary):
    """The target context's ``make_constant_array``: a global NumPy array frozen into the module.

    The data goes into an ``internal`` constant in the constant address space (``.const`` in
    PTX) when it fits in constant memory, else into the global address space; the array
    struct gets a generic pointer to it.  Non-contiguous arrays are copied C-contiguously.
    """
    import numpy as np

    datatype = context.get_data_type(typ.dtype)
    order = "F" if typ.layout == "F" else "C"
    flat = np.asarray(ary).flatten(order=order)
    if order == "F":
        strides = tuple(reversed(_c_strides(tuple(reversed(ary.shape)), ary.itemsize)))
    else:
        strides = _c_strides(ary.shape, ary.itemsize)

    payload = bytearray(flat.data) or bytearray(1)
    storage_type = ir.ArrayType(_i8, len(payload))
    addrspace = ADDRSPACE_CONSTANT if len(payload) <= CONSTANT_MEMORY_LIMIT else ADDRSPACE_GLOBAL
    module = builder.module
    gv = ir.GlobalVariable(module, storage_type, module.get_unique_name("_cudapy_cmem"),
                           addrspace=addrspace)
    gv.linkage = "internal"
    gv.global_constant = True
    gv.initializer = ir.Constant(storage_type, payload)
    gv.align = max(context.get_abi_alignment(datatype), 16)
    data = generic_pointer(builder, gv, datatype)
    return make_array_struct(context, builder, typ, data, list(ary.shape), list(strides))

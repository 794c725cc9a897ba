"""Loads and stores with a cache operator: ``cuda.ldca``, ``ldcg``, ``ldcs``, ``ldlu``, ``ldcv``,
``stcg``, ``stcs``, ``stwb``, ``stwt`` (the functions of NVIDIA's package of these names, and of
CUDA C++'s ``__ldca`` ... ``__stwt``).

``ldXX(array, i)`` returns ``array[i]`` read with PTX ``ld.global.XX``; ``stXX(array, i, value)``
stores ``value`` (converted to the array's dtype) with ``st.global.XX``.  ``array`` is an array
in global memory (a kernel argument, or a view of one; not a shared, local or constant array:
the instruction addresses global memory) or a raw pointer (``CPointer``, one integer index).
``i`` is an integer or a tuple of one integer per dimension, negative values wrapping around as
in Python.  The dtype is an integer or a float of 8, 16, 32 or 64 bits.

==========  =====================================================================
operator    meaning (PTX ISA, "Cache Operators")
==========  =====================================================================
``ca``      cache at all levels (L1 and L2)
``cg``      cache in L2, not L1
``cs``      streaming: likely accessed once (evict first)
``lu``      last use: the line will not be read again
``cv``      volatile: fetch again from memory on every load
``wb``      write back at all coherent levels
``wt``      write through to system memory
==========  =====================================================================
"""

from llvmlite import ir
from numba.core import errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import element_access, stubs

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.cache_hints")
lower = lowering_registry.lower

LOAD_OPERATORS = ("ca", "cg", "cs", "lu", "cv")
STORE_OPERATORS = ("cg", "cs", "wb", "wt")

#: Inline-asm register constraint per bit width (8-bit values travel in a 32-bit register:
#: PTX lets ld/st of .b8 use a wider register).
_CONSTRAINTS = {8: "r", 16: "h", 32: "r", 64: "l"}


# ---- typing ------------------------------------------------------------------------------


def _element_type(qualname, container):
    if not isinstance(container, (types.Array, types.CPointer)):
        raise errors.TypingError(f"{qualname}: the first argument must be an array or a pointer, "
                                 f"not {container}")
    dtype = container.dtype
    if not isinstance(dtype, (types.Integer, types.Float)) or dtype.bitwidth not in _CONSTRAINTS:
        short = qualname.rsplit(".", 1)[-1]
        raise errors.TypingError(f"{qualname}: {short} requires array of integer or float type "
                                 f"(8, 16, 32 or 64 bits), got {dtype}")
    return dtype


def _index_type(qualname, container, idx):
    if isinstance(container, types.CPointer):
        if not element_access.is_integer(idx):
            raise errors.TypingError(f"{qualname}: a pointer takes one integer index, not {idx}")
        return types.intp
    return element_access.index_type(qualname, container, idx)


def _load_template(stub, qualname):
    class CacheHintLoad(AbstractTemplate):
        key = stub

        def generic(self, args, kws):
            if kws or len(args) != 2:
                raise errors.TypingError(f"{qualname}(array, i) takes exactly 2 positional arguments")
            container, idx = args
            dtype = _element_type(qualname, container)
            return signature(dtype, container, _index_type(qualname, container, idx))

    typing_registry.register_global(stub, types.Function(CacheHintLoad))


def _store_template(stub, qualname):
    class CacheHintStore(AbstractTemplate):
        key = stub

        def generic(self, args, kws):
            if kws or len(args) != 3:
                raise errors.TypingError(
                    f"{qualname}(array, i, value) takes exactly 3 positional arguments")
            container, idx, value = args
            dtype = _element_type(qualname, container)
            if isinstance(container, types.Array) and not container.mutable:
                raise errors.TypingError(f"{qualname}: the array is read-only")
            idxty = _index_type(qualname, container, idx)
            element_access.check_operand(qualname, "value", value, dtype)
            return signature(types.none, container, idxty, dtype)

    typing_registry.register_global(stub, types.Function(CacheHintStore))


# ---- lowering ----------------------------------------------------------------------------


def _pointer(context, builder, containerty, container, idxty, idx):
    if isinstance(containerty, types.CPointer):
        return builder.gep(container, [idx])
    return element_access.element_pointer(context, builder, containerty, container, idxty, idx)


def _bits(dtype):
    return ir.IntType(dtype.bitwidth)


def _lower_load(operator):
    def impl(context, builder, sig, args):
        containerty, idxty = sig.args
        dtype = sig.return_type
        ptr = _pointer(context, builder, containerty, args[0], idxty, args[1])
        width = dtype.bitwidth
        # Asm on the bit pattern (integer registers), converted to the element type after.
        regty = ir.IntType(32) if width == 8 else _bits(dtype)
        intptr = builder.bitcast(ptr, _bits(dtype).as_pointer())
        asm = ir.InlineAsm(ir.FunctionType(regty, [intptr.type]),
                           f"ld.global.{operator}.b{width} $0, [$1];",
                           f"={_CONSTRAINTS[width]},l", side_effect=True)
        bits = builder.call(asm, [intptr])
        if width == 8:
            bits = builder.trunc(bits, _bits(dtype))
        return builder.bitcast(bits, context.get_value_type(dtype))

    return impl


def _lower_store(operator):
    def impl(context, builder, sig, args):
        containerty, idxty, dtype = sig.args
        ptr = _pointer(context, builder, containerty, args[0], idxty, args[1])
        width = dtype.bitwidth
        bits = builder.bitcast(args[2], _bits(dtype))
        if width == 8:
            bits = builder.zext(bits, ir.IntType(32))
        intptr = builder.bitcast(ptr, _bits(dtype).as_pointer())
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [intptr.type, bits.type]),
                           f"st.global.{operator}.b{width} [$0], $1;",
                           f"l,{_CONSTRAINTS[width]},~{{memory}}", side_effect=True)
        builder.call(asm, [intptr, bits])
        return context.get_dummy_value()

    return impl


for _op in LOAD_OPERATORS:
    _stub = getattr(stubs, f"ld{_op}")
    _load_template(_stub, f"cuda.ld{_op}")
    for _indexty in (types.intp, types.UniTuple):
        lower(_stub, types.Array, _indexty)(_lower_load(_op))
    lower(_stub, types.CPointer, types.intp)(_lower_load(_op))

for _op in STORE_OPERATORS:
    _stub = getattr(stubs, f"st{_op}")
    _store_template(_stub, f"cuda.st{_op}")
    for _indexty in (types.intp, types.UniTuple):
        lower(_stub, types.Array, _indexty, types.Any)(_lower_store(_op))
    lower(_stub, types.CPointer, types.intp, types.Any)(_lower_store(_op))

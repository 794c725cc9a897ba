"""Atomic read-modify-write operations: ``cuda.atomic.*``.

Every operation takes an array (global or shared memory, any layout), an index (an integer,
or a tuple of integers with one per dimension; negative indices wrap around as in Python) and
operands converted to the array's dtype, and returns the value the element held before the
operation.  Memory ordering is relaxed (``monotonic``), as CUDA C++'s ``atomicAdd`` & co.

===========================  ====================================  ==========================
operation                    dtypes                                lowering
===========================  ====================================  ==========================
``add``, ``sub``             int32 uint32 int64 uint64             ``atomicrmw add/sub``
                             float32 float64                       ``llvm.nvvm.atomic.load.add``
                                                                   (float64 below sm_60: CAS loop)
``and_``, ``or_``, ``xor``   int32 uint32 int64 uint64             ``atomicrmw and/or/xor``
``exch``                     int32 uint32 int64 uint64             ``atomicrmw xchg``
                             float32 float64                       ``xchg`` on the bit pattern
``max``, ``min``             integers                              ``atomicrmw [u]max/[u]min``
``nanmax``, ``nanmin``       float32 float64                       compare-and-swap loop
``inc``, ``dec``             uint32 (native), uint64 (CAS loop)    ``llvm.nvvm.atomic.load.*``
``cas(ary, idx, old, val)``  int32 uint32 int64 uint64             ``cmpxchg``
``compare_and_swap``         same, on ``ary[0]`` of a 1-D array    ``cmpxchg``
===========================  ====================================  ==========================

Floating-point ``max``/``min`` follow Python's ``max(old, val)`` evaluated with the old value
first: a NaN already in the array stays there, a NaN ``val`` is ignored.  ``nanmax``/``nanmin``
treat NaN as missing data on both sides: ``nanmax(NaN, n) == nanmax(n, NaN) == n``.  On integers
the ``nan`` variants are plain ``max``/``min``.

``inc(ary, idx, val)`` stores ``0 if old >= val else old + 1``; ``dec`` stores
``val if old == 0 or old > val else old - 1`` (both unsigned).
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, stubs
from .element_access import (ORDERING, cas_loop, check_operand, element_pointer, index_type,
                             int_type_for)

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.atomics")
lower = lowering_registry.lower

INTEGER_TYPES = (types.int32, types.uint32, types.int64, types.uint64)
UNSIGNED_TYPES = (types.uint32, types.uint64)
FLOAT_TYPES = (types.float32, types.float64)
ALL_TYPES = INTEGER_TYPES + FLOAT_TYPES

#: dtypes accepted by each ``ary, idx, val`` operation.
OPERATIONS = {
    "add": ALL_TYPES,
    "sub": ALL_TYPES,
    "and_": INTEGER_TYPES,
    "or_": INTEGER_TYPES,
    "xor": INTEGER_TYPES,
    "exch": ALL_TYPES,
    "max": ALL_TYPES,
    "min": ALL_TYPES,
    "nanmax": ALL_TYPES,
    "nanmin": ALL_TYPES,
    "inc": UNSIGNED_TYPES,
    "dec": UNSIGNED_TYPES,
}


def _names(dtypes):
    return ", ".join(str(t) for t in dtypes)


# ---- typing ------------------------------------------------------------------------------


def _check_array(qualname, ary, allowed):
    if not isinstance(ary, types.Array):
        raise errors.TypingError(f"{qualname}: the first argument must be an array, not {ary}")
    if ary.dtype not in allowed:
        raise errors.TypingError(
            f"{qualname}: arrays of {ary.dtype} are not supported; supported dtypes: {_names(allowed)}"
        )
    if not ary.mutable:
        raise errors.TypingError(f"{qualname}: the array is read-only")


def _binary_template(opname, allowed):
    stub = getattr(stubs.atomic, opname)
    qualname = f"cuda.atomic.{opname}"

    class AtomicBinary(AbstractTemplate):
        key = stub

        def generic(self, args, kws):
            if kws or len(args) != 3:
                raise errors.TypingError(f"{qualname}(ary, idx, val) takes exactly 3 positional arguments")
            ary, idx, val = args
            _check_array(qualname, ary, allowed)
            idxty = index_type(qualname, ary, idx)
            check_operand(qualname, "val", val, ary.dtype)
            return signature(ary.dtype, ary, idxty, ary.dtype)

    typing_registry.register_global(stub, types.Function(AtomicBinary))


for _opname, _allowed in OPERATIONS.items():
    _binary_template(_opname, _allowed)


class _Cas(AbstractTemplate):
    key = stubs.atomic.cas

    def generic(self, args, kws):
        qualname = "cuda.atomic.cas"
        if kws or len(args) != 4:
            raise errors.TypingError(f"{qualname}(ary, idx, old, val) takes exactly 4 positional arguments")
        ary, idx, old, val = args
        _check_array(qualname, ary, INTEGER_TYPES)
        idxty = index_type(qualname, ary, idx)
        check_operand(qualname, "old", old, ary.dtype)
        check_operand(qualname, "val", val, ary.dtype)
        return signature(ary.dtype, ary, idxty, ary.dtype, ary.dtype)


class _CompareAndSwap(AbstractTemplate):
    key = stubs.atomic.compare_and_swap

    def generic(self, args, kws):
        qualname = "cuda.atomic.compare_and_swap"
        if kws or len(args) != 3:
            raise errors.TypingError(f"{qualname}(ary, old, val) takes exactly 3 positional arguments")
        ary, old, val = args
        _check_array(qualname, ary, INTEGER_TYPES)
        if ary.ndim != 1:
            raise errors.TypingError(f"{qualname} works on 1-D arrays (element 0); use cuda.atomic.cas")
        check_operand(qualname, "old", old, ary.dtype)
        check_operand(qualname, "val", val, ary.dtype)
        return signature(ary.dtype, ary, ary.dtype, ary.dtype)


typing_registry.register_global(stubs.atomic.cas, types.Function(_Cas))
typing_registry.register_global(stubs.atomic.compare_and_swap, types.Function(_CompareAndSwap))


# ---- lowering ----------------------------------------------------------------------------


def _float_add_intrinsic(builder, ptr, val):
    lltype = val.type
    suffix = "f32.p0f32" if isinstance(lltype, ir.FloatType) else "f64.p0f64"
    fnty = ir.FunctionType(lltype, [lltype.as_pointer(), lltype])
    fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.nvvm.atomic.load.add.{suffix}")
    return builder.call(fn, [ptr, val])


#: Native float64 atomic add (atom.add.f64) exists from sm_60.
FLOAT64_ATOMIC_ADD_CC = (6, 0)


def _float_add(context, builder, ptr, val):
    if isinstance(val.type, ir.DoubleType):
        # libNVVM chooses (archselect): the native add from sm_60, a compare-and-swap loop below.
        return archselect.select_by_arch(
            builder, val.type,
            [(FLOAT64_ATOMIC_ADD_CC, lambda b: _float_add_intrinsic(b, ptr, val))],
            lambda b: cas_loop(b, ptr, lambda b2, old: b2.fadd(old, val), skip_unchanged=False))
    return _float_add_intrinsic(builder, ptr, val)


def _float_extremum(builder, old, val, op, nan_aware):
    """The value ``max``/``min`` stores (``op`` is '>' for max, '<' for min)."""
    better = builder.fcmp_ordered(op, val, old)  # false when either is NaN
    if nan_aware:
        old_is_nan = builder.fcmp_unordered("uno", old, old)
        better = builder.or_(better, old_is_nan)
    return builder.select(better, val, old)


def _unsigned_inc(builder, old, limit):
    wrap = builder.icmp_unsigned(">=", old, limit)
    return builder.select(wrap, ir.Constant(old.type, 0), builder.add(old, ir.Constant(old.type, 1)))


def _unsigned_dec(builder, old, limit):
    reset = builder.or_(
        builder.icmp_unsigned("==", old, ir.Constant(old.type, 0)),
        builder.icmp_unsigned(">", old, limit),
    )
    return builder.select(reset, limit, builder.sub(old, ir.Constant(old.type, 1)))


def _nvvm_inc_dec(builder, kind, ptr, val):
    fnty = ir.FunctionType(val.type, [ptr.type, val.type])
    name = f"llvm.nvvm.atomic.load.{kind}.32.p0i32"
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    return builder.call(fn, [ptr, val])


def _emit(opname, context, builder, dtype, ptr, val):
    """The old value after applying ``opname`` atomically at ``ptr``."""
    is_float = dtype in FLOAT_TYPES
    signed = isinstance(dtype, types.Integer) and dtype.signed

    if opname == "add":
        if is_float:
            return _float_add(context, builder, ptr, val)
        return builder.atomic_rmw("add", ptr, val, ORDERING)
    if opname == "sub":
        if is_float:
            # fsub from -0.0, not fneg: libNVVM's LLVM 7 reader has no fneg instruction.
            return _float_add(context, builder, ptr, builder.fsub(ir.Constant(val.type, -0.0), val))
        return builder.atomic_rmw("sub", ptr, val, ORDERING)
    if opname in ("and_", "or_", "xor"):
        return builder.atomic_rmw(opname.rstrip("_"), ptr, val, ORDERING)
    if opname == "exch":
        if is_float:
            inttype = int_type_for(val.type)
            iptr = builder.bitcast(ptr, inttype.as_pointer(ptr.type.addrspace))
            old = builder.atomic_rmw("xchg", iptr, builder.bitcast(val, inttype), ORDERING)
            return builder.bitcast(old, val.type)
        return builder.atomic_rmw("xchg", ptr, val, ORDERING)
    if opname in ("max", "min", "nanmax", "nanmin"):
        kind = opname[-3:]
        if is_float:
            op = ">" if kind == "max" else "<"
            nan_aware = opname.startswith("nan")
            return cas_loop(builder, ptr, lambda b, old: _float_extremum(b, old, val, op, nan_aware))
        rmw = kind if signed else "u" + kind
        return builder.atomic_rmw(rmw, ptr, val, ORDERING)
    if opname in ("inc", "dec"):
        if dtype.bitwidth == 32:
            return _nvvm_inc_dec(builder, opname, ptr, val)
        step = _unsigned_inc if opname == "inc" else _unsigned_dec
        return cas_loop(builder, ptr, lambda b, old: step(b, old, val))
    raise NotImplementedError(opname)


def _lower_binary(opname):
    def impl(context, builder, sig, args):
        aryty, idxty, valty = sig.args
        ary, idx, val = args
        ptr = element_pointer(context, builder, aryty, ary, idxty, idx)
        return _emit(opname, context, builder, aryty.dtype, ptr, val)

    return impl


for _opname in OPERATIONS:
    _stub = getattr(stubs.atomic, _opname)
    lower(_stub, types.Array, types.intp, types.Any)(_lower_binary(_opname))
    lower(_stub, types.Array, types.UniTuple, types.Any)(_lower_binary(_opname))


def _compare_exchange(builder, ptr, old, val):
    pair = builder.cmpxchg(ptr, old, val, ORDERING, ORDERING)
    return builder.extract_value(pair, 0)


@lower(stubs.atomic.cas, types.Array, types.intp, types.Any, types.Any)
@lower(stubs.atomic.cas, types.Array, types.UniTuple, types.Any, types.Any)
def _lower_cas(context, builder, sig, args):
    aryty, idxty, _, _ = sig.args
    ary, idx, old, val = args
    ptr = element_pointer(context, builder, aryty, ary, idxty, idx)
    return _compare_exchange(builder, ptr, old, val)


@lower(stubs.atomic.compare_and_swap, types.Array, types.Any, types.Any)
def _lower_compare_and_swap(context, builder, sig, args):
    aryty = sig.args[0]
    ary, old, val = args
    ptr = element_pointer(context, builder, aryty, ary, types.intp, context.get_constant(types.intp, 0))
    return _compare_exchange(builder, ptr, old, val)

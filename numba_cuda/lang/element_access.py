"""What the atomics and the other element operations share: checking an ``ary, idx, val``
operation's index and operand, the pointer to the element, and a compare-and-swap loop.

Used by ``cuda.atomic.*`` (``numba_cuda.lang.atomics``), ``cuda.fp16``'s atomics and the cache-hint
loads and stores (``numba_cuda.lang.cache_hints``); a helper module, not a family (it registers
nothing), so that those families are imported only when a kernel uses them.
"""

from llvmlite import ir
from numba.core import cgutils, errors, types

#: The memory ordering of every atomic (``monotonic``: CUDA C++'s relaxed ``atomicAdd`` & co.).
ORDERING = "monotonic"


def is_integer(ty):
    """An integer, or an ``Optional`` integer (a helper that may return ``None``): Numba casts an
    optional value to the signature's type where the call is lowered (``None`` raises there)."""
    if isinstance(ty, types.Optional):
        ty = ty.type
    return isinstance(ty, types.Integer)


def index_type(qualname, ary, idx):
    """The index type for the signature, or raise a TypingError saying what is wrong."""
    if is_integer(idx):
        if ary.ndim != 1:
            raise errors.TypingError(
                f"{qualname}: a {ary.ndim}-D array needs a tuple of {ary.ndim} integer indices, "
                f"got a single integer"
            )
        return types.intp
    if isinstance(idx, types.BaseTuple):
        if len(idx) != ary.ndim or not all(is_integer(i) for i in idx):
            raise errors.TypingError(
                f"{qualname}: the index of a {ary.ndim}-D array must be {ary.ndim} integer(s), "
                f"got {idx}"
            )
        return types.UniTuple(types.intp, ary.ndim)
    raise errors.TypingError(f"{qualname}: the index must be an integer or a tuple of integers, not {idx}")


def check_operand(qualname, name, value, dtype):
    if isinstance(value, types.Optional):
        value = value.type  # cast (and checked for None) where the call is lowered
    if not isinstance(value, (types.Number, types.Boolean)):
        raise errors.TypingError(f"{qualname}: {name} must be a number (converted to {dtype}), not {value}")


def element_pointer(context, builder, aryty, ary, idxty, idx):
    """Pointer to ``ary[idx]`` (wrapping negative indices)."""
    if isinstance(idxty, types.BaseTuple):
        indices = cgutils.unpack_tuple(builder, idx, count=len(idxty))
        indices = [context.cast(builder, i, t, types.intp) for i, t in zip(indices, idxty)]
    else:
        indices = [context.cast(builder, idx, idxty, types.intp)]
    array = context.make_array(aryty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aryty, array, indices, wraparound=True)


def int_type_for(lltype):
    return ir.IntType(64) if isinstance(lltype, ir.DoubleType) else ir.IntType(32)


def cas_loop(builder, ptr, compute, skip_unchanged=True):
    """A compare-and-swap loop storing ``compute(builder, old)`` into ``*ptr``; returns the old value.

    Works on any 32/64-bit scalar type (floats are swapped as their bit patterns).  With
    ``skip_unchanged`` no store happens when the new value has the old one's bit pattern.
    """
    valtype = ptr.type.pointee
    is_float = isinstance(valtype, (ir.FloatType, ir.DoubleType))
    inttype = int_type_for(valtype) if is_float else valtype
    iptr = builder.bitcast(ptr, inttype.as_pointer(ptr.type.addrspace)) if is_float else ptr

    def to_int(v):
        return builder.bitcast(v, inttype) if is_float else v

    def from_int(v):
        return builder.bitcast(v, valtype) if is_float else v

    entry = builder.block
    initial = builder.load(iptr)  # a plain load: the loop's cmpxchg revalidates it
    loop = builder.append_basic_block("atomic.cas.loop")
    attempt = builder.append_basic_block("atomic.cas.attempt")
    done = builder.append_basic_block("atomic.cas.done")
    builder.branch(loop)

    builder.position_at_end(loop)
    current = builder.phi(inttype, name="atomic.old")
    current.add_incoming(initial, entry)
    new = to_int(compute(builder, from_int(current)))
    if skip_unchanged:
        unchanged = builder.icmp_unsigned("==", new, current)
        builder.cbranch(unchanged, done, attempt)
    else:
        builder.branch(attempt)

    builder.position_at_end(attempt)
    pair = builder.cmpxchg(iptr, current, new, ORDERING, ORDERING)
    seen = builder.extract_value(pair, 0)
    swapped = builder.extract_value(pair, 1)
    current.add_incoming(seen, attempt)
    builder.cbranch(swapped, done, loop)

    builder.position_at_end(done)
    # Both ways into `done` leave `current` holding the value the swap (or the skip) saw.
    return from_int(current)

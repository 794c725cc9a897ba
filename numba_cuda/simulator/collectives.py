"""Barriers and warp-level collectives: the points where simulated threads meet.

A simulated thread reaches one of these by *yielding a request* (a tuple
whose first item is an opcode) to the block scheduler; the scheduler resumes
it with the result once every thread that takes part has arrived.  The
transformed kernel yields ``request_<name>(...)``; code the transformer did not
see calls the dynamic functions at the bottom of this module, which hand the
request to the scheduler through the OS-thread fallback (or explain why that
is impossible in the fast path).
"""

import sys

import numpy as np

from .threadstate import FULL_MASK, WARP_SIZE, state

# ---- opcodes -------------------------------------------------------------------
BAR = 0            # syncthreads
BAR_COUNT = 1      # syncthreads_count(pred)
BAR_AND = 2
BAR_OR = 3
GRID_SYNC = 4      # cg.this_grid().sync()
# warp-level: (op, mask, ...)
SYNCWARP = 10
SHFL_IDX = 11
SHFL_UP = 12
SHFL_DOWN = 13
SHFL_XOR = 14
VOTE_ALL = 15
VOTE_ANY = 16
VOTE_EQ = 17
BALLOT = 18
MATCH_ANY = 19
MATCH_ALL = 20
ACTIVEMASK = 21    # (op, site)
# not a meeting: a thread in a loop lets the others run (op, fingerprint, line)
SPIN = 30

BLOCK_OPS = frozenset((BAR, BAR_COUNT, BAR_AND, BAR_OR))

NAMES = {
    BAR: "syncthreads()", BAR_COUNT: "syncthreads_count()", BAR_AND: "syncthreads_and()",
    BAR_OR: "syncthreads_or()", GRID_SYNC: "this_grid().sync()", SYNCWARP: "syncwarp()",
    SHFL_IDX: "shfl_sync()", SHFL_UP: "shfl_up_sync()", SHFL_DOWN: "shfl_down_sync()",
    SHFL_XOR: "shfl_xor_sync()", VOTE_ALL: "all_sync()", VOTE_ANY: "any_sync()",
    VOTE_EQ: "eq_sync()", BALLOT: "ballot_sync()", MATCH_ANY: "match_any_sync()",
    MATCH_ALL: "match_all_sync()", ACTIVEMASK: "activemask()", SPIN: "a loop",
}

#: --- sanitizer hook: the running sanitized launch (:mod:`.sanitizer`), told when a barrier or
#: warp collective completes; None (always, unless NUMBA_CUDASIM_SANITIZE is set).
observer = None

#: The request of a plain ``syncthreads()``: one shared object, compared by identity.
BAR_REQUEST = (BAR,)
GRID_SYNC_REQUEST = (GRID_SYNC,)


def _mask(mask):
    return int(mask) & FULL_MASK


# ---- request builders (what the transformed kernel yields) -----------------------
def request_syncthreads():
    return BAR_REQUEST


def request_syncthreads_count(predicate):
    return (BAR_COUNT, predicate)


def request_syncthreads_and(predicate):
    return (BAR_AND, predicate)


def request_syncthreads_or(predicate):
    return (BAR_OR, predicate)


def request_syncwarp(mask=FULL_MASK):
    return (SYNCWARP, _mask(mask))


def request_shfl_sync(mask, value, src_lane):
    return (SHFL_IDX, _mask(mask), value, int(src_lane))


def request_shfl_up_sync(mask, value, delta):
    return (SHFL_UP, _mask(mask), value, int(delta))


def request_shfl_down_sync(mask, value, delta):
    return (SHFL_DOWN, _mask(mask), value, int(delta))


def request_shfl_xor_sync(mask, value, lane_mask):
    return (SHFL_XOR, _mask(mask), value, int(lane_mask))


def request_all_sync(mask, predicate):
    return (VOTE_ALL, _mask(mask), predicate)


def request_any_sync(mask, predicate):
    return (VOTE_ANY, _mask(mask), predicate)


def request_eq_sync(mask, predicate):
    return (VOTE_EQ, _mask(mask), predicate)


def request_ballot_sync(mask, predicate):
    return (BALLOT, _mask(mask), predicate)


def request_match_any_sync(mask, value):
    return (MATCH_ANY, _mask(mask), value)


def request_match_all_sync(mask, value):
    return (MATCH_ALL, _mask(mask), value)


def request_activemask(site):
    return (ACTIVEMASK, site)


#: How many iterations of a ``while`` loop a simulated thread runs before it lets
#: the other threads run (a spin point; see :func:`request_spin`).
SPIN_INTERVAL = 256


def _fingerprint(value):
    if isinstance(value, (bool, int, float, complex, str, bytes, np.generic)) or value is None:
        return (type(value), repr(value))
    if isinstance(value, tuple):
        return tuple(_fingerprint(v) for v in value)
    return ("id", id(value))  # arrays and other objects: which one, not what it holds


def request_spin(frame_locals, prefix, line):
    """What a thread yields every :data:`SPIN_INTERVAL` iterations of a ``while`` loop: the
    scheduler runs the other threads (a thread spinning on a flag another thread sets makes
    progress, as on the GPU) and, from the fingerprint of the thread's variables, tells a
    loop that waits for memory from one that computes."""
    items = [(name, v) for name, v in frame_locals.items() if not name.startswith(prefix)]
    fp = tuple(sorted((name, _fingerprint(v)) for name, v in items))
    arrays = tuple(v for _name, v in items if isinstance(v, np.ndarray))
    return (SPIN, fp, line, arrays)


def request_grid_sync():
    if observer is not None:  # sanitizer hook: the thread enters a new epoch
        observer.grid_sync(state.current)
    return GRID_SYNC_REQUEST


# ---- results ------------------------------------------------------------------------
def block_barrier_results(waiting):
    """Results for the threads of one block released together from a barrier."""
    if observer is not None:  # sanitizer hook
        observer.barrier(waiting)
    if all(t.request is BAR_REQUEST for t in waiting):
        return
    preds = [bool(t.request[1]) if len(t.request) > 1 else False for t in waiting]
    count = sum(preds)
    for t in waiting:
        op = t.request[0]
        if op == BAR_COUNT:
            t.sendval = count
        elif op == BAR_AND:
            t.sendval = int(count == len(preds))
        elif op == BAR_OR:
            t.sendval = int(count > 0)


def _lanes(mask):
    lane = 0
    while mask:
        if mask & 1:
            yield lane
        mask >>= 1
        lane += 1


def warp_group(warp_threads, lead):
    """The threads that complete the warp collective ``lead`` is waiting in, or None.

    ``warp_threads`` maps lane -> context of the warp's existing threads.  A
    collective completes when every live lane named in its mask waits in the
    same collective with the same mask; lanes that exited or do not exist
    (a partial last warp) are left out, as the hardware leaves inactive lanes out.
    """
    req = lead.request
    op = req[0]
    if op == ACTIVEMASK:
        return [t for t in warp_threads.values() if not t.done and t.request is not None
                and t.request[0] == ACTIVEMASK and t.request[1] == req[1]]
    mask = req[1]
    if not (mask >> lead.lane) & 1:
        raise RuntimeError(
            f"{NAMES[op]} in {lead.where()}: the mask 0x{mask:08x} does not include the "
            f"calling lane {lead.lane}"
        )
    group = []
    for lane in _lanes(mask):
        t = warp_threads.get(lane)
        if t is None or t.done:
            continue
        r = t.request
        if r is None or r[0] != op or r[1] != mask:
            return None
        group.append(t)
    return group


def warp_results(group):
    """Set ``sendval`` of every thread of a completed warp collective."""
    if observer is not None:  # sanitizer hook
        observer.warp(group)
    req = group[0].request
    op = req[0]
    by_lane = {t.lane: t for t in group}
    if op == SYNCWARP:
        for t in group:
            t.sendval = None
    elif op in (SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR):
        for t in group:
            _, _, value, arg = t.request
            lane = t.lane
            if op == SHFL_IDX:
                src = arg % WARP_SIZE
            elif op == SHFL_UP:
                src = lane - arg
            elif op == SHFL_DOWN:
                src = lane + arg
            else:
                src = lane ^ arg
            source = by_lane.get(src) if 0 <= src < WARP_SIZE else None
            t.sendval = value if source is None else source.request[2]
    elif op in (VOTE_ALL, VOTE_ANY, VOTE_EQ, BALLOT):
        bits = 0
        for t in group:
            if t.request[2]:
                bits |= 1 << t.lane
        members = 0
        for t in group:
            members |= 1 << t.lane
        if op == VOTE_ALL:
            result = bits == members
        elif op == VOTE_ANY:
            result = bits != 0
        elif op == VOTE_EQ:
            result = bits == members or bits == 0
        else:
            result = np.uint32(bits)
        for t in group:
            t.sendval = result
    elif op == MATCH_ANY:
        for t in group:
            bits = 0
            for other in group:
                if other.request[2] == t.request[2]:
                    bits |= 1 << other.lane
            t.sendval = np.uint32(bits)
    elif op == MATCH_ALL:
        first = group[0].request[2]
        same = all(t.request[2] == first for t in group)
        members = 0
        for t in group:
            members |= 1 << t.lane
        result = (np.uint32(members if same else 0), same)
        for t in group:
            t.sendval = result
    elif op == ACTIVEMASK:
        members = 0
        for t in group:
            members |= 1 << t.lane
        for t in group:
            t.sendval = np.uint32(members)
    elif op in EXTENSION_RESULTS:
        EXTENSION_RESULTS[op](group)
    else:  # pragma: no cover - all opcodes are listed above
        raise AssertionError(op)


#: opcode -> results function of warp collectives defined in other modules (``wmma``)
EXTENSION_RESULTS = {}


def register_warp_collectives(ops, builders):
    """Add warp collectives defined elsewhere: ``ops`` maps opcode -> (name for messages,
    ``results(group)`` that sets each thread's ``sendval``), ``builders`` maps the dynamic
    function -> its request builder (the transformer rewrites calls of the first into yields of
    the second).  Requests are ``(op, mask, ...)`` as here.  Call at import, before
    :mod:`.transform` is imported (:mod:`.kernelapi` imports the modules that call it)."""
    for op, (name, results) in ops.items():
        NAMES[op] = name
        EXTENSION_RESULTS[op] = results
    REQUEST_BUILDERS.update(builders)


# ---- dynamic entry points -------------------------------------------------------------
class UnseenBarrierError(RuntimeError):
    """A barrier or warp collective was reached through a call the transformer could not see."""


def meet(request):
    """Hand ``request`` to the scheduler from code that was not transformed."""
    ctx = state.current
    if ctx is None:
        raise RuntimeError(
            f"numba.cuda.{NAMES[request[0]]} can only be called inside a kernel"
        )
    coroutine = ctx.coroutine
    if coroutine is None:
        raise UnseenBarrierError(
            f"{NAMES[request[0]]} was reached in {ctx.where()} through a call that the simulator's "
            f"kernel transformer could not follow (a function passed as a value, or code without "
            f"source). Run this kernel in the OS-thread mode: "
            f"cuda.jit(..., sim_mode='threads') or NUMBA_CUDASIM_MODE=threads."
        )
    return coroutine.wait_for_scheduler(request)


def syncthreads():
    return meet(BAR_REQUEST)


def syncthreads_count(predicate):
    return meet(request_syncthreads_count(predicate))


def syncthreads_and(predicate):
    return meet(request_syncthreads_and(predicate))


def syncthreads_or(predicate):
    return meet(request_syncthreads_or(predicate))


def syncwarp(mask=FULL_MASK):
    return meet(request_syncwarp(mask))


def shfl_sync(mask, value, src_lane):
    return meet(request_shfl_sync(mask, value, src_lane))


def shfl_up_sync(mask, value, delta):
    return meet(request_shfl_up_sync(mask, value, delta))


def shfl_down_sync(mask, value, delta):
    return meet(request_shfl_down_sync(mask, value, delta))


def shfl_xor_sync(mask, value, lane_mask):
    return meet(request_shfl_xor_sync(mask, value, lane_mask))


def all_sync(mask, predicate):
    return meet(request_all_sync(mask, predicate))


def any_sync(mask, predicate):
    return meet(request_any_sync(mask, predicate))


def eq_sync(mask, predicate):
    return meet(request_eq_sync(mask, predicate))


def ballot_sync(mask, predicate):
    return meet(request_ballot_sync(mask, predicate))


def match_any_sync(mask, value):
    return meet(request_match_any_sync(mask, value))


def match_all_sync(mask, value):
    return meet(request_match_all_sync(mask, value))


def activemask():
    caller = sys._getframe(1)
    return meet(request_activemask((caller.f_code, caller.f_lasti)))


def grid_sync():
    return meet(request_grid_sync())


def spin(frame_locals, prefix, line):
    """A spin point in code that cannot yield (OS-thread mode, nested scopes, host calls)."""
    ctx = state.current
    if ctx is None or ctx.coroutine is None:
        return None  # nothing else can run meanwhile (sequential mode, host code)
    return ctx.coroutine.wait_for_scheduler(request_spin(frame_locals, prefix, line))


def lanemask_lt():
    ctx = state.current
    if ctx is None:
        raise RuntimeError("numba.cuda.lanemask_lt() can only be called inside a kernel")
    return np.uint32((1 << ctx.lane) - 1)


def lanemask_of(lane):
    return np.uint32((1 << lane) - 1)


#: dynamic function -> request builder, for the transformer
REQUEST_BUILDERS = {
    syncthreads: request_syncthreads,
    syncthreads_count: request_syncthreads_count,
    syncthreads_and: request_syncthreads_and,
    syncthreads_or: request_syncthreads_or,
    syncwarp: request_syncwarp,
    shfl_sync: request_shfl_sync,
    shfl_up_sync: request_shfl_up_sync,
    shfl_down_sync: request_shfl_down_sync,
    shfl_xor_sync: request_shfl_xor_sync,
    all_sync: request_all_sync,
    any_sync: request_any_sync,
    eq_sync: request_eq_sync,
    ballot_sync: request_ballot_sync,
    match_any_sync: request_match_any_sync,
    match_all_sync: request_match_all_sync,
    activemask: request_activemask,
    grid_sync: request_grid_sync,
}

"""Running the threads of a launch.

Three strategies, chosen per kernel by :mod:`.dispatcher`:

``run_sequential``
    The rewritten kernel meets no other thread (no barrier, no warp
    collective): each thread is one plain call, one after another.

``run_cooperative`` with generators
    Each thread is a generator that yields a request at every barrier or warp
    collective.  The scheduler runs every ready thread up to its next request
    (lowest thread index first), then releases whatever can complete: warp
    collectives whose lanes have all arrived, a block barrier once every live
    thread of the block waits there (exited threads count as arrived), and a
    grid barrier once every live thread of the grid does.  Nothing else can
    run concurrently, so atomics are atomic and every run is deterministic.

``run_cooperative`` with :class:`ThreadCoroutine`
    The fallback for code the rewriter cannot handle: each simulated thread
    is an OS thread, but only the one the scheduler resumed executes; a
    barrier hands control back through :func:`.collectives.meet`.  The same
    scheduler therefore gives the same semantics, only slower.
"""

import threading

import numpy as np

from . import collectives as coll
from .threadstate import WARP_SIZE, BlockState, ThreadContext, state


class SimulatorDeadlock(RuntimeError):
    """The threads of a launch wait for each other in a way that can never complete."""


def annotate(exc, ctx):
    """Put ``tid=[x, y, z] ctaid=[x, y, z]: `` before the message of ``exc``.

    The form both peers' simulators use (code and suites match on it).
    """
    where = ctx.peer_where()
    if getattr(exc, "_sim_annotated", False):
        return
    try:
        exc._sim_annotated = True
    except Exception:  # noqa: BLE001 - some exception types refuse attributes
        pass
    if exc.args and isinstance(exc.args[0], str):
        text = exc.args[0]
        exc.args = (f"{where}: {text}" if text else where,) + exc.args[1:]
    elif not exc.args:
        exc.args = (where,)
    elif hasattr(exc, "add_note"):
        exc.add_note(where)


# ---- OS-thread fallback ----------------------------------------------------------------
class _Killed(BaseException):
    """Unwinds an OS thread whose launch was abandoned (never seen by user code's ``except Exception``)."""


_DONE = object()


class ThreadCoroutine:
    """A simulated thread on an OS thread, driven like a generator (``send``/``close``)."""

    __slots__ = ("_fn", "_args", "_go", "_back", "_thread", "_result", "_exc", "_value", "_killed",
                 "_errstate")

    def __init__(self, fn, args):
        # NumPy's error state is per OS thread: the launch's (set by the dispatcher, e.g.
        # divide="raise" for debug=True kernels) is carried into the simulated thread
        self._errstate = np.geterr()
        self._fn = fn
        self._args = args
        self._go = threading.Semaphore(0)
        self._back = threading.Semaphore(0)
        self._thread = None
        self._result = None
        self._exc = None
        self._value = None
        self._killed = False

    def _main(self):
        self._go.acquire()
        try:
            if not self._killed:
                with np.errstate(**self._errstate):
                    self._fn(*self._args)
        except _Killed:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the scheduler's thread
            self._exc = exc
        self._result = _DONE
        self._back.release()

    def send(self, value):
        self._value = value
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, daemon=True, name="cudasim-thread")
            self._thread.start()
        self._go.release()
        self._back.acquire()
        if self._exc is not None:
            exc, self._exc = self._exc, None
            raise exc
        if self._result is _DONE:
            raise StopIteration
        return self._result

    def wait_for_scheduler(self, request):
        """Called on the simulated thread: hand ``request`` over and wait to be resumed."""
        self._result = request
        self._back.release()
        self._go.acquire()
        if self._killed:
            raise _Killed
        return self._value

    def close(self):
        if self._thread is not None and self._result is not _DONE:
            self._killed = True
            self._go.release()
            self._thread.join()


# ---- strategies ------------------------------------------------------------------------------
def _blocks(grid, block, dynshared):
    gdx, gdy, gdz = grid
    for bz in range(gdz):
        for by in range(gdy):
            for bx in range(gdx):
                yield BlockState((bx, by, bz), block, grid, dynshared)


def run_sequential(fn, grid, block, dynshared, args):
    """Every thread as one call, block after block."""
    bdx, bdy, bdz = block
    st = state
    ctx = None
    try:
        for blk in _blocks(grid, block, dynshared):
            ctx = ThreadContext(blk, 0, 0, 0)
            tid = 0
            for tz in range(bdz):
                ctx.tz = tz
                for ty in range(bdy):
                    ctx.ty = ty
                    for tx in range(bdx):
                        ctx.tx = tx
                        ctx.tid = tid
                        ctx.lane = tid & 31
                        ctx.warp = tid >> 5
                        st.current = ctx
                        fn(ctx, *args)
                        tid += 1
    except Exception as exc:
        if st.current is not None:
            annotate(exc, st.current)
        raise
    finally:
        st.current = None


def _make_threads(blk, fn, args, threaded):
    bdx, bdy, bdz = blk.dim
    threads = []
    warps = {}
    for tz in range(bdz):
        for ty in range(bdy):
            for tx in range(bdx):
                ctx = ThreadContext(blk, tx, ty, tz)
                if threaded:
                    ctx.gen = ctx.coroutine = ThreadCoroutine(fn, (ctx,) + args)
                else:
                    ctx.gen = fn(ctx, *args)
                threads.append(ctx)
                warps.setdefault(ctx.warp, {})[ctx.lane] = ctx
    blk.threads = threads
    blk.alive = len(threads)
    blk.warps = warps
    return threads


def run_cooperative(fn, grid, block, dynshared, args, threaded=False, grid_sync=False):
    """Threads as generators (or OS-thread coroutines) meeting at barriers; see the module docstring."""
    if grid_sync:
        blocks = list(_blocks(grid, block, dynshared))
        _schedule(blocks, [_make_threads(b, fn, args, threaded) for b in blocks])
        return
    for blk in _blocks(grid, block, dynshared):
        _schedule([blk], [_make_threads(blk, fn, args, threaded)])


def _close_all(all_threads):
    for threads in all_threads:
        for t in threads:
            if not t.done:
                try:
                    t.gen.close()
                except Exception:  # noqa: BLE001 - best effort while unwinding
                    pass


def _schedule(blocks, all_threads):
    st = state
    bar_request = coll.BAR_REQUEST
    block_ops = coll.BLOCK_OPS
    grid_op = coll.GRID_SYNC
    ready = [t for threads in all_threads for t in threads]
    total_alive = len(ready)
    grid_wait = []
    try:
        while True:
            for t in ready:
                st.current = t
                try:
                    req = t.gen.send(t.sendval)
                except StopIteration:
                    t.done = True
                    t.request = None
                    t.block.alive -= 1
                    total_alive -= 1
                    continue
                except Exception as exc:
                    annotate(exc, t)
                    raise
                t.sendval = None
                t.request = req
                if req is bar_request:
                    t.block.bar.append(t)
                else:
                    op = req[0]
                    if op in block_ops:
                        t.block.bar.append(t)
                    elif op == grid_op:
                        grid_wait.append(t)
                    else:
                        t.block.warp_wait.append(t)
            st.current = None
            if total_alive == 0:
                return
            ready = []
            for blk in blocks:
                if blk.warp_wait:
                    _release_warps(blk, ready)
            if ready:
                continue
            for blk in blocks:
                if blk.bar and len(blk.bar) == blk.alive:
                    coll.block_barrier_results(blk.bar)
                    for t in blk.bar:
                        t.request = None
                    ready.extend(blk.bar)
                    blk.bar = []
            if ready:
                continue
            if grid_wait and len(grid_wait) == total_alive:
                for t in grid_wait:
                    t.request = None
                ready, grid_wait = grid_wait, []
                continue
            raise SimulatorDeadlock(_deadlock_message(blocks, all_threads))
    except BaseException:
        st.current = None
        _close_all(all_threads)
        raise


def _release_warps(blk, ready):
    waiting = blk.warp_wait
    released = set()
    for t in waiting:
        if id(t) in released or t.request is None:
            continue
        group = coll.warp_group(blk.warps[t.warp], t)
        if not group:
            continue
        coll.warp_results(group)
        for g in group:
            g.request = None
            released.add(id(g))
        ready.extend(group)
    if released:
        blk.warp_wait = [t for t in waiting if id(t) not in released]


def _describe(req):
    op = req[0]
    name = coll.NAMES.get(op, str(op))
    if coll.SYNCWARP <= op < coll.ACTIVEMASK:
        return f"{name} with mask 0x{req[1]:08x}"
    return name


def _deadlock_message(blocks, all_threads):
    groups = {}
    for threads in all_threads:
        for t in threads:
            if t.done:
                key = "exited"
            elif t.request is None:
                key = "running"
            else:
                key = "waiting in " + _describe(t.request)
            groups.setdefault(key, []).append(t)
    parts = []
    for key, threads in groups.items():
        sample = ", ".join(t.where() for t in threads[:3])
        more = f" and {len(threads) - 3} more" if len(threads) > 3 else ""
        parts.append(f"{len(threads)} thread(s) {key} (e.g. {sample}{more})")
    return (
        "the kernel deadlocked: no barrier or warp collective can complete. "
        + "; ".join(parts)
        + f". A warp collective completes when every live lane of its mask calls it with the "
        f"same mask; syncthreads() when every live thread of the block ({WARP_SIZE}-lane warps) "
        f"reaches a barrier."
    )

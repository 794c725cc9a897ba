"""Running the threads of a launch.

Three strategies, chosen per kernel by :mod:`.dispatcher`:

``run_sequential``
    The rewritten kernel meets no other thread (no barrier, no warp
    collective): each thread is one plain call, one after another.  A kernel
    with ``while`` loops has spin points (every
    :data:`~.collectives.SPIN_INTERVAL` iterations); a thread that reaches one
    is parked, the block's other threads go on, and the parked threads then
    share the block round-robin, so a thread spinning on a flag that a later
    thread sets completes, as on the GPU.

``run_cooperative`` with generators
    Each thread is a generator that yields a request at every barrier or warp
    collective.  The scheduler runs every ready thread up to its next request
    (lowest thread index first), then releases whatever can complete: warp
    collectives whose lanes have all arrived, a block barrier once every live
    thread of the block waits there (exited threads count as arrived), and a
    grid barrier once every live thread of the grid does.  Nothing else can
    run concurrently, so atomics are atomic and every run is deterministic.
    A thread at a spin point runs again in the next round.  When every running
    thread spins without changing its variables, and the memory they can see
    stays unchanged for ``NUMBA_CUDASIM_STALL_TIMEOUT`` seconds (default 2),
    nothing can end the wait: :class:`SimulatorDeadlock` names the loops.
    Blocks run one after another (CUDA promises no progress between blocks of
    a launch that is not cooperative), so a wait for another block deadlocks.

``run_cooperative`` with :class:`ThreadCoroutine`
    The fallback for code the rewriter cannot handle: each simulated thread
    is an OS thread, but only the one the scheduler resumed executes; a
    barrier hands control back through :func:`.collectives.meet`.  The same
    scheduler therefore gives the same semantics, only slower.
"""

import os
import threading
import time
import zlib

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

#: Seconds ``close`` waits for the OS thread of an abandoned launch to unwind.
CLOSE_TIMEOUT = 1.0


def _raise_in_thread(thread, exc_type):
    """Make ``thread`` raise ``exc_type`` at its next bytecode (CPython; False elsewhere)."""
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):  # pragma: no cover - not CPython
        return False
    return set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type)) == 1


class BlockThread(threading.Thread):
    """The OS thread of one simulated thread in the OS-thread mode (the peers' simulators name
    their per-thread OS threads so: code checks that none is left running after a launch)."""


class ThreadCoroutine:
    """A simulated thread on an OS thread, driven like a generator (``send``/``close``).

    Closing it while the simulated thread is still executing the kernel (a launch interrupted
    by Ctrl-C, or an error in another thread) raises ``_Killed`` inside that OS thread instead of
    waiting for the kernel's loop to reach a barrier or spin point, which may never happen.
    """

    __slots__ = ("_fn", "_args", "_go", "_back", "_thread", "_result", "_exc", "_value", "_killed",
                 "_errstate", "_in_kernel")

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
        self._in_kernel = False  # the OS thread is executing the kernel, not waiting

    def _main(self):
        try:
            self._go.acquire()
            if not self._killed:
                # the launch state is per host thread: this one's thread is args[0]
                state.current = self._args[0]
                self._in_kernel = True
                with np.errstate(**self._errstate):
                    self._fn(*self._args)
        except _Killed:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the scheduler's thread
            self._exc = exc
        try:
            self._in_kernel = False
            state.current = None
            self._result = _DONE
            self._back.release()
        except _Killed:  # raised by close() just as the kernel returned
            pass

    def send(self, value):
        self._value = value
        if self._thread is None:
            self._thread = BlockThread(target=self._main, daemon=True, name="cudasim-thread")
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
        self._in_kernel = False
        self._back.release()
        self._go.acquire()
        if self._killed:
            raise _Killed
        self._in_kernel = True
        return self._value

    def close(self, timeout=CLOSE_TIMEOUT):
        """End the simulated thread; True when its OS thread has ended within ``timeout`` s."""
        thread = self._thread
        if thread is None or self._result is _DONE:
            return True
        self._killed = True
        self._go.release()  # a thread waiting for the scheduler wakes up and unwinds
        deadline = time.monotonic() + timeout
        raised = False
        while thread.is_alive():
            if self._in_kernel and not raised:
                # still running the kernel (the scheduler stopped waiting for it: Ctrl-C ...)
                raised = _raise_in_thread(thread, _Killed)
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            thread.join(min(left, 0.02))
        return True


# ---- strategies ------------------------------------------------------------------------------
def _blocks(grid, block, dynshared):
    gdx, gdy, gdz = grid
    for bz in range(gdz):
        for by in range(gdy):
            for bx in range(gdx):
                yield BlockState((bx, by, bz), block, grid, dynshared)


def run_sequential(fn, grid, block, dynshared, args, spins=False):
    """Every thread as one call, block after block.  With ``spins`` (``fn`` is a generator
    only for its spin points), a thread that spins is parked and the block's remaining
    threads go on; the parked ones then share the block round-robin (:func:`_schedule`)."""
    if spins:
        for blk in _blocks(grid, block, dynshared):
            _run_block_spinning(blk, fn, args)
        return
    bdx, bdy, bdz = block
    st = state
    ctx = None
    try:
        for blk in _blocks(grid, block, dynshared):
            # one context per block, updated for each of its threads (``state`` is thread-local:
            # set once per block, not on the per-thread path)
            ctx = st.current = ThreadContext(blk, 0, 0, 0)
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
                        fn(ctx, *args)
                        tid += 1
    except Exception as exc:
        if st.current is not None:
            annotate(exc, st.current)
        raise
    finally:
        st.current = None


def _run_block_spinning(blk, fn, args):
    st = state
    bdx, bdy, bdz = blk.dim
    parked = []
    ctx = None
    try:
        for tz in range(bdz):
            for ty in range(bdy):
                for tx in range(bdx):
                    if ctx is None:
                        ctx = ThreadContext(blk, tx, ty, tz)
                    else:  # reuse the context of a thread that ran to the end
                        ctx.tx, ctx.ty, ctx.tz = tx, ty, tz
                        tid = tx + bdx * (ty + bdy * tz)
                        ctx.tid, ctx.lane, ctx.warp = tid, tid % WARP_SIZE, tid // WARP_SIZE
                    st.current = ctx
                    gen = fn(ctx, *args)
                    try:
                        req = gen.send(None)
                    except StopIteration:
                        continue
                    ctx.gen = gen
                    ctx.spin_state, ctx.spin_line, ctx.spin_arrays = req[1], req[2], req[3]
                    parked.append(ctx)
                    ctx = None
    except Exception as exc:
        if st.current is not None:
            annotate(exc, st.current)
        raise
    finally:
        st.current = None
    if not parked:
        return
    blk.threads = parked
    blk.alive = len(parked)
    blk.warps = {}
    for t in parked:
        blk.warps.setdefault(t.warp, {})[t.lane] = t
    _schedule([blk], [parked])


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


def stall_timeout():
    """Seconds the threads of a launch may spin without any progress before the launch is
    reported as deadlocked (``NUMBA_CUDASIM_STALL_TIMEOUT``, default 2)."""
    try:
        return max(0.0, float(os.environ.get("NUMBA_CUDASIM_STALL_TIMEOUT", "2")))
    except ValueError:
        return 2.0


def _memory_checksum(threads):
    """A checksum of every array the spinning threads can see (their variables, shared memory)."""
    seen, crc = set(), 0
    for t in threads:
        arrays = list(t.spin_arrays) + list(t.block.static_shared.values())
        for a in arrays:
            base = a
            while isinstance(getattr(base, "base", None), np.ndarray):
                base = base.base
            if id(base) in seen:
                continue
            seen.add(id(base))
            try:
                crc = zlib.crc32(np.ascontiguousarray(base).view(np.uint8).data, crc)
            except (TypeError, ValueError):
                crc = zlib.crc32(repr(base).encode(), crc)
    return crc


def _schedule(blocks, all_threads):
    st = state
    bar_request = coll.BAR_REQUEST
    block_ops = coll.BLOCK_OPS
    grid_op = coll.GRID_SYNC
    spin_op = coll.SPIN
    ready = [t for threads in all_threads for t in threads]
    total_alive = len(ready)
    grid_wait = []
    stalled_since = None  # (time, memory checksum) when the spinning threads stopped changing
    try:
        while True:
            spinning = []
            progress = False
            for t in ready:
                st.current = t
                try:
                    req = t.gen.send(t.sendval)
                except StopIteration:
                    t.done = True
                    t.request = None
                    t.block.alive -= 1
                    total_alive -= 1
                    progress = True
                    continue
                except Exception as exc:
                    annotate(exc, t)
                    raise
                t.sendval = None
                if req is bar_request:
                    t.request = req
                    t.block.bar.append(t)
                    progress = True
                    continue
                op = req[0]
                if op == spin_op:
                    # still running: it goes on in the next round, after the others
                    t.request = None
                    if req[1] != t.spin_state:
                        t.spin_state = req[1]
                        progress = True
                    t.spin_line = req[2]
                    t.spin_arrays = req[3]
                    spinning.append(t)
                    continue
                t.request = req
                progress = True
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
            if not ready:
                for blk in blocks:
                    if blk.bar and len(blk.bar) == blk.alive:
                        coll.block_barrier_results(blk.bar)
                        for t in blk.bar:
                            t.request = None
                        ready.extend(blk.bar)
                        blk.bar = []
            if not ready and grid_wait and len(grid_wait) == total_alive:
                for t in grid_wait:
                    t.request = None
                ready, grid_wait = grid_wait, []
            if ready:
                progress = True
            if not ready and not spinning:
                raise SimulatorDeadlock(_deadlock_message(blocks, all_threads))
            ready.extend(spinning)
            if progress or not spinning:
                stalled_since = None
                continue
            # Every running thread spins with unchanged variables: waiting for memory that
            # only a thread of this launch could change.  Unchanged memory for the stall
            # timeout as well means none will: report it instead of hanging.
            now = time.monotonic()
            if stalled_since is None:
                stalled_since = (now, _memory_checksum(spinning))
            elif now - stalled_since[0] >= stall_timeout():
                checksum = _memory_checksum(spinning)
                if checksum == stalled_since[1]:
                    raise SimulatorDeadlock(_deadlock_message(blocks, all_threads,
                                                              now - stalled_since[0]))
                stalled_since = (now, checksum)
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


def _deadlock_message(blocks, all_threads, stalled=None):
    groups = {}
    for threads in all_threads:
        for t in threads:
            if t.done:
                key = "exited"
            elif t.request is None and t.spin_line is not None:
                key = f"spinning in the loop at {t.spin_line}"
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
    if stalled is not None:
        head = (f"the kernel deadlocked: for {stalled:.1f} s every running thread has spun in a "
                "loop without changing its variables or any memory it can see, and no barrier or "
                "warp collective can complete, so nothing can end the wait (set "
                "NUMBA_CUDASIM_STALL_TIMEOUT to wait longer). ")
    else:
        head = "the kernel deadlocked: no barrier or warp collective can complete. "
    return (
        head
        + "; ".join(parts)
        + f". A warp collective completes when every live lane of its mask calls it with the "
        f"same mask; syncthreads() when every live thread of the block ({WARP_SIZE}-lane warps) "
        f"reaches a barrier."
    )

"""Per-thread and per-block state of a simulated launch.

``current`` (an attribute of :data:`state`) is the :class:`ThreadContext` of
the simulated CUDA thread that is executing right now *on this host thread*.
The holder is thread-local: while one host thread runs a launch, another host
thread is outside any kernel (``kern(x)`` without a launch configuration raises,
``cuda.threadIdx.x`` on the host raises) exactly as when no launch runs.  In the
OS-thread fallback each simulated thread's OS thread sets its own ``current``.
The rewritten kernels get their thread as an argument, so the hot path reads no
thread-local.
"""

import threading

import numpy as np

WARP_SIZE = 32
FULL_MASK = 0xFFFFFFFF


class _State(threading.local):
    #: the default on every host thread until it sets its own
    current = None


#: ``state.current`` is the executing simulated thread, or None outside kernels.
state = _State()


class BlockState:
    """What the threads of one block share: shared memory and the launch shape."""

    __slots__ = (
        "idx", "dim", "grid_dim", "static_shared", "dynamic_shared",
        # scheduling: live threads, threads at the block barrier, threads in warp
        # collectives, and lane -> thread per warp
        "threads", "alive", "bar", "warp_wait", "warps",
    )

    def __init__(self, idx, dim, grid_dim, dynamic_shared_bytes):
        self.threads = None
        self.alive = 0
        self.bar = []
        self.warp_wait = []
        self.warps = None
        self.idx = idx
        self.dim = dim
        self.grid_dim = grid_dim
        self.static_shared = {}
        self.dynamic_shared = bytearray(dynamic_shared_bytes)

    def shared_array(self, site, shape, dtype):
        """The block's array for one ``cuda.shared.array`` call site (created on first use)."""
        if shape == 0 or shape == (0,):
            count = len(self.dynamic_shared) // dtype.itemsize
            key = ("dynamic", dtype)
            arr = self.static_shared.get(key)
            if arr is None:
                # Every dynamic shared array of a block starts at the same
                # address, as on the GPU: views of one buffer.
                arr = np.frombuffer(self.dynamic_shared, dtype=dtype, count=count)
                self.static_shared[key] = arr
            return arr
        arr = self.static_shared.get(site)
        if arr is None:
            arr = np.zeros(shape, dtype=dtype)
            self.static_shared[site] = arr
        return arr


class ThreadContext:
    """Indices of one simulated thread; the transformed kernel reads its fields once."""

    __slots__ = (
        "tx", "ty", "tz", "bx", "by", "bz", "bdx", "bdy", "bdz", "gdx", "gdy", "gdz",
        "tid", "lane", "warp", "block", "coroutine", "gen", "done", "request", "sendval",
        # spin points: the last fingerprint, its loop's line, the arrays it can see
        "spin_state", "spin_line", "spin_arrays",
    )

    def __init__(self, block, tx, ty, tz):
        self.block = block
        self.tx, self.ty, self.tz = tx, ty, tz
        self.bx, self.by, self.bz = block.idx
        self.bdx, self.bdy, self.bdz = block.dim
        self.gdx, self.gdy, self.gdz = block.grid_dim
        tid = tx + self.bdx * (ty + self.bdy * tz)
        self.tid = tid
        self.lane = tid % WARP_SIZE
        self.warp = tid // WARP_SIZE
        self.coroutine = None
        self.gen = None
        self.done = False
        self.request = None
        self.sendval = None
        self.spin_state = None
        self.spin_line = None
        self.spin_arrays = ()

    def where(self):
        """``thread (x,y,z) of block (x,y,z)`` for error messages."""
        return (
            f"thread ({self.tx},{self.ty},{self.tz}) of block ({self.bx},{self.by},{self.bz})"
        )

    def peer_where(self):
        """``tid=[x, y, z] ctaid=[x, y, z]``: how the peers' simulators name a thread in errors."""
        return (f"tid=[{self.tx}, {self.ty}, {self.tz}] "
                f"ctaid=[{self.bx}, {self.by}, {self.bz}]")

"""The kernel-language objects of the simulator (``cuda.threadIdx``, ``cuda.atomic`` ...).

The kernel transformer (:mod:`.transform`) recognises these objects by
identity and replaces their uses with fast local code.  Used dynamically (code
the transformer did not see, the OS-thread fallback) they read the executing
thread from :data:`.threadstate.state`.
"""

import math
import operator
import types as _pytypes

from fractions import Fraction

import numpy as np

from . import atomics as _atomics
from . import bitops as _bitops
from . import collectives as _coll
from . import kernelmemory as _mem
from . import wmma as _wmma
from .halffamily import common_functions
from .threadstate import WARP_SIZE, state


def _current(what):
    ctx = state.current
    if ctx is None:
        raise RuntimeError(f"numba.cuda.{what} is only meaningful inside a kernel")
    return ctx


class Dim3Value:
    """``threadIdx``/``blockIdx``/``blockDim``/``gridDim``: ``.x``, ``.y``, ``.z`` of the current thread."""

    __slots__ = ("_name", "_fields")

    def __init__(self, name, fields):
        self._name = name
        self._fields = fields

    def _get(self, i):
        return getattr(_current(self._name), self._fields[i])

    x = property(lambda self: self._get(0))
    y = property(lambda self: self._get(1))
    z = property(lambda self: self._get(2))

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __repr__(self):
        # Inside a kernel it prints as the GPU's dim3 does: "(x, y, z)".
        ctx = state.current
        if ctx is None:
            return f"<numba.cuda.{self._name} (simulator)>"
        return repr(tuple(getattr(ctx, f) for f in self._fields))


threadIdx = Dim3Value("threadIdx", ("tx", "ty", "tz"))
blockIdx = Dim3Value("blockIdx", ("bx", "by", "bz"))
blockDim = Dim3Value("blockDim", ("bdx", "bdy", "bdz"))
gridDim = Dim3Value("gridDim", ("gdx", "gdy", "gdz"))

DIM3_FIELDS = {
    id(threadIdx): ("tx", "ty", "tz"),
    id(blockIdx): ("bx", "by", "bz"),
    id(blockDim): ("bdx", "bdy", "bdz"),
    id(gridDim): ("gdx", "gdy", "gdz"),
}


class LaneIdValue:
    """``cuda.laneid``: behaves as the current thread's lane number (an int)."""

    __slots__ = ()

    def __index__(self):
        return _current("laneid").lane

    __int__ = __index__

    def __repr__(self):
        ctx = state.current
        return "<numba.cuda.laneid (simulator)>" if ctx is None else repr(ctx.lane)

    def __hash__(self):
        return hash(self.__index__())

    def __bool__(self):
        return bool(self.__index__())


def _lane_binop(op, reflected=False):
    if reflected:
        return lambda self, other: op(other, _current("laneid").lane)
    return lambda self, other: op(_current("laneid").lane, other)


for _name in ("add", "sub", "mul", "floordiv", "truediv", "mod", "and", "or", "xor",
              "lshift", "rshift", "pow"):
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(LaneIdValue, f"__{_name}__", _lane_binop(_op))
    setattr(LaneIdValue, f"__r{_name}__", _lane_binop(_op, reflected=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(LaneIdValue, f"__{_name}__", _lane_binop(getattr(operator, _name)))

laneid = LaneIdValue()
warpsize = WARP_SIZE


def grid(ndim):
    """Absolute position of the current thread in the grid (an int, or a tuple of ``ndim`` ints)."""
    c = _current("grid")
    x = c.bx * c.bdx + c.tx
    if ndim == 1:
        return x
    y = c.by * c.bdy + c.ty
    if ndim == 2:
        return x, y
    if ndim == 3:
        return x, y, c.bz * c.bdz + c.tz
    raise ValueError(f"cuda.grid() takes 1, 2 or 3 dimensions, got {ndim!r}")


def gridsize(ndim):
    """Number of threads in the grid along each of ``ndim`` dimensions."""
    c = _current("gridsize")
    x = c.bdx * c.gdx
    if ndim == 1:
        return x
    y = c.bdy * c.gdy
    if ndim == 2:
        return x, y
    if ndim == 3:
        return x, y, c.bdz * c.gdz
    raise ValueError(f"cuda.gridsize() takes 1, 2 or 3 dimensions, got {ndim!r}")


def _namespace(name, doc, **members):
    module = _pytypes.ModuleType(f"numba.cuda.{name}", doc)
    for key, value in members.items():
        setattr(module, key, value)
    return module


shared = _namespace("shared", "Block-shared memory.", array=_mem.shared_array)
local = _namespace("local", "Thread-local memory.", array=_mem.local_array)
const = _namespace("const", "Constant memory.", array_like=_mem.const_array_like)

atomic = _namespace(
    "atomic",
    "Atomic read-modify-write operations; each returns the old value.",
    add=_atomics.add, sub=_atomics.sub, max=_atomics.max, min=_atomics.min,
    nanmax=_atomics.nanmax, nanmin=_atomics.nanmin, and_=_atomics.and_, or_=_atomics.or_,
    xor=_atomics.xor, exch=_atomics.exch, inc=_atomics.inc, dec=_atomics.dec,
    compare_and_swap=_atomics.compare_and_swap, cas=_atomics.cas,
)

syncthreads = _coll.syncthreads
syncthreads_count = _coll.syncthreads_count
syncthreads_and = _coll.syncthreads_and
syncthreads_or = _coll.syncthreads_or
syncwarp = _coll.syncwarp
shfl_sync = _coll.shfl_sync
shfl_up_sync = _coll.shfl_up_sync
shfl_down_sync = _coll.shfl_down_sync
shfl_xor_sync = _coll.shfl_xor_sync
all_sync = _coll.all_sync
any_sync = _coll.any_sync
eq_sync = _coll.eq_sync
ballot_sync = _coll.ballot_sync
match_any_sync = _coll.match_any_sync
match_all_sync = _coll.match_all_sync
activemask = _coll.activemask
lanemask_lt = _coll.lanemask_lt


def threadfence():
    """Memory fence (a no-op: simulated threads see each other's writes at once)."""


def threadfence_block():
    """Memory fence at block scope (a no-op in the simulator)."""


def threadfence_system():
    """Memory fence at system scope (a no-op in the simulator)."""


def nanosleep(ns):
    """Suspend the thread for about ``ns`` nanoseconds (does not sleep in the simulator)."""
    if ns < 0:
        raise ValueError(f"nanosleep needs a non-negative duration, got {ns!r}")


popc = _bitops.popc
clz = _bitops.clz
ffs = _bitops.ffs
brev = _bitops.brev
fma = _bitops.fma
cbrt = _bitops.cbrt
selp = _bitops.selp

#: tensor cores (``cuda.wmma``), see :mod:`.wmma`
wmma = _wmma.namespace


# ---- cooperative groups ---------------------------------------------------------------
class GridGroup:
    """``cuda.cg.this_grid()``: ``sync()`` waits for every thread of the grid."""

    __slots__ = ()

    def sync(self):
        return _coll.grid_sync()

    def size(self):
        """Threads in the grid (as compiled: uint64)."""
        ctx = _current("cg.this_grid().size")
        return np.uint64(ctx.gdx * ctx.gdy * ctx.gdz * ctx.bdx * ctx.bdy * ctx.bdz)

    def thread_rank(self):
        """Rank of the calling thread in the grid, 0..size()-1 (as compiled: uint64)."""
        ctx = _current("cg.this_grid().thread_rank")
        block = ctx.bx + ctx.gdx * (ctx.by + ctx.gdy * ctx.bz)
        return np.uint64(block * (ctx.bdx * ctx.bdy * ctx.bdz) + ctx.tid)

    def __repr__(self):
        return "<numba.cuda.cg grid group (simulator)>"


_GRID_GROUP = GridGroup()


def this_grid():
    """The group of all threads of the launch."""
    return _GRID_GROUP


cg = _namespace("cg", "Cooperative groups.", this_grid=this_grid, GridGroup=GridGroup)


# ---- half precision ----------------------------------------------------------------------
def _h(fn):
    return lambda *args: np.float16(fn(*[np.float16(a) for a in args]))


def _hfma(a, b, c):
    """``a * b + c`` rounded once to half: exactly, then to float64 rounding to odd (a second
    rounding to 11 bits is then correct)."""
    a, b, c = (float(np.float16(v)) for v in (a, b, c))
    if not all(math.isfinite(v) for v in (a, b, c)):
        return np.float16(a * b + c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    t = float(exact)
    if Fraction(t) != exact:
        if abs(Fraction(t)) > abs(exact):
            t = math.nextafter(t, 0.0)
        t = float(np.array(np.array(t).view(np.int64) | 1).view(np.float64))
    return np.float16(t)


def _hsat(v):
    """Clamp to [0, 1]; NaN -> +0."""
    return np.float16(0.0 if not v > 0 else (v if v < 1 else 1.0))


def _hrelu(v):
    return np.float16(np.nan if np.isnan(v) else (0.0 if v < 0 else v))


fp16 = _namespace(
    "fp16",
    "Half-precision arithmetic.",
    hadd=_h(operator.add), hsub=_h(operator.sub), hmul=_h(operator.mul),
    hdiv=_h(operator.truediv), hneg=_h(operator.neg), habs=_h(abs),
    hfma=_hfma, hadd_rn=_h(operator.add), hsub_rn=_h(operator.sub), hmul_rn=_h(operator.mul),
    hadd_sat=lambda a, b: _hsat(_h(operator.add)(a, b)),
    hsub_sat=lambda a, b: _hsat(_h(operator.sub)(a, b)),
    hmul_sat=lambda a, b: _hsat(_h(operator.mul)(a, b)),
    hfma_sat=lambda a, b, c: _hsat(_hfma(a, b, c)),
    hfma_relu=lambda a, b, c: _hrelu(_hfma(a, b, c)),
    **common_functions(np.float16),
    atomicAdd=lambda address, val: _atomics.add(address, (0,) * np.ndim(address), np.float16(val)),
)
from .bfloat16 import bf16  # noqa: E402,F401  (a real kernel's cuda.bf16.* map onto these)


"""The simulator's sanitizer: compute-sanitizer's four tools, without a GPU.

``NUMBA_CUDASIM_SANITIZE=racecheck,memcheck,initcheck,synccheck`` (or ``all``) turns it on
for every launch; ``NUMBA_CUDASIM_SANITIZE_REPORT`` says what a launch with findings does:
``raise`` (default: :class:`SanitizerError`), ``warn`` (:class:`SanitizerWarning`) or
``count`` (nothing; :func:`last_report` has them).  Both are read at each launch.

How it works, only while a sanitized launch runs (nothing of this exists otherwise):

* the kernel's array arguments, its shared arrays and its local arrays are views of class
  :class:`CheckedArray` over the same memory, which see every element access: the byte offset
  of the element in its *region* (the allocation: an argument's root buffer, one shared array
  of one block, the dynamic shared memory of one block, one local array), the thread, the
  kernel source line (the first frame outside the simulator) and read/write/atomic;
* racecheck keeps, per element, the accesses of the current *epoch* of the block (the epoch
  advances when the block passes a barrier, or the grid a grid barrier): two threads of one
  block, at least one writing, in one epoch (and, for two lanes of one warp, with no warp
  collective of both in between) are a hazard; two atomics are not, nor two writes of the same
  value.  Blocks run one after another, so only threads of one block are compared, in shared
  and global memory;
* memcheck checks each index against the array's shape (a negative index counts from the end
  once, as the GPU target and NumPy both do; below ``-n`` or at ``n`` and above is out of
  bounds), each element's alignment, and that an argument's device memory was not freed
  (``DeviceNDArray.gpu_data.free()``).  The faulting access is not performed (a read gives
  0) and the thread goes on, so one launch reports all of them;
* initcheck keeps a written-bytes mask per shared and local region (the GPU leaves them
  uninitialised; the simulator's zeros would hide the bug) and reports reads of bytes never
  written in this launch;
* synccheck is told by :mod:`.collectives` when a barrier or warp collective completes: a
  barrier that some threads of the block exited before reaching, or that threads reach at
  different call sites, and a warp collective whose mask names lanes that have exited or do
  not exist, are errors.

Findings are grouped (racecheck: once per pair of sites; the others: once per site) and
reported in one summary after the launch.
"""

import os
import sys
import warnings
from operator import index as _as_index

import numpy as np

from . import checkedarray as _checked_mod
from . import collectives as _coll
from . import kernelmemory as _mem
from .checkedarray import CheckedArray, CheckedRecArray, checked as _checked  # noqa: F401
from .threadstate import WARP_SIZE, state

TOOLS = ("racecheck", "memcheck", "initcheck", "synccheck")
REPORTS = ("raise", "warn", "count")
ENV_TOOLS = "NUMBA_CUDASIM_SANITIZE"
ENV_REPORT = "NUMBA_CUDASIM_SANITIZE_REPORT"

_SIM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_ATOMICS_FILE = os.path.join(_SIM_DIR, "atomics.py")

#: The sanitized launch running now (None: none, and every hook is a no-op).
active = None
_last = None


class SanitizerError(RuntimeError):
    """A sanitized launch found errors (``NUMBA_CUDASIM_SANITIZE_REPORT=raise``)."""

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report


class SanitizerWarning(UserWarning):
    """A sanitized launch found errors (``NUMBA_CUDASIM_SANITIZE_REPORT=warn``)."""


def settings():
    """``(tools, report)`` from the environment, or None when the sanitizer is off."""
    raw = os.environ.get(ENV_TOOLS, "").strip()
    if raw.lower() in ("", "0", "none", "off"):
        return None
    if raw.lower() in ("1", "all"):
        tools = frozenset(TOOLS)
    else:
        names = [n.strip().lower() for n in raw.split(",") if n.strip()]
        unknown = [n for n in names if n not in TOOLS]
        if unknown:
            raise ValueError(
                f"{ENV_TOOLS}={raw!r}: unknown tool(s) {', '.join(unknown)}; give a comma-separated "
                f"list of {', '.join(TOOLS)}, or 'all' (unset or '0': off)")
        tools = frozenset(names)
    report = os.environ.get(ENV_REPORT, "raise").strip().lower() or "raise"
    if report not in REPORTS:
        raise ValueError(f"{ENV_REPORT}={report!r}: must be one of {', '.join(REPORTS)}")
    return tools, report


def last_report():
    """The :class:`Report` of the last sanitized launch (None before the first)."""
    return _last


# ---- the checking view ----------------------------------------------------------------
class _Region:
    """One allocation: its base address, what it is, and the shadow state of its bytes."""

    __slots__ = ("name", "space", "lo", "hi", "written", "shadow", "freed", "keep")

    def __init__(self, name, space, lo, nbytes, track_init, keep):
        self.name = name
        self.space = space  # "global", "shared" or "local"
        self.lo = lo
        self.hi = lo + max(nbytes, 1)
        self.written = bytearray(nbytes) if track_init else None
        self.shadow = {}
        self.freed = False
        self.keep = keep  # the memory itself, alive (addresses stay unique) for the launch


class _OutOfBounds(Exception):
    pass


def _byte_bounds(ary):
    """``(lo, hi)``: the addresses of the first and one past the last byte of ``ary``."""
    lo = hi = ary.__array_interface__["data"][0]
    if ary.size == 0:
        return lo, lo
    for n, stride in zip(ary.shape, ary.strides):
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    return lo, hi + ary.itemsize


def _is_int(c):
    return (type(c) is int) or isinstance(c, np.integer)


def _basic(c):
    return _is_int(c) or c is None or c is Ellipsis or type(c) is slice


def _offset_array(ary):
    """The byte offset (in its region) of every element of ``ary``, in ``ary``'s shape."""
    offs = np.full(ary.shape, ary._san_off, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(ary.shape, ary.strides)):
        shape = [1] * ary.ndim
        shape[axis] = n
        offs += (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return offs


def _element_offsets(ary, idx, write):
    """Byte offsets of the elements ``ary[idx]`` reads (or writes); None when a read makes a
    view and touches no element.  :class:`_OutOfBounds` for an index outside the shape."""
    comps = idx if type(idx) is tuple else (idx,)
    if len(comps) == ary.ndim and all(_is_int(c) for c in comps):
        off = ary._san_off
        for axis, (c, n, stride) in enumerate(zip(comps, ary.shape, ary.strides)):
            i = _as_index(c)
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise _OutOfBounds(f"index {i} is out of bounds for axis {axis} with size {n} "
                                   f"(array of shape {ary.shape})")
            off += j * stride
        return (off,)
    try:
        offs = _offset_array(ary)[idx]
    except IndexError as exc:
        raise _OutOfBounds(f"{exc} (array of shape {ary.shape})") from None
    if isinstance(offs, np.ndarray):
        if not write and all(_basic(c) for c in comps):
            return None  # a view: its own accesses are checked
        return offs.ravel().tolist()
    return (int(offs),)


def _site():
    """``(file, line)`` of the kernel code making the access, and whether an atomic does."""
    f = sys._getframe(2)
    atomic = False
    while f is not None:
        name = f.f_code.co_filename
        if name.startswith(_SIM_DIR):
            if name == _ATOMICS_FILE:
                atomic = True
        elif not name.startswith(_NUMPY_DIR):
            return (name, f.f_lineno), atomic
        f = f.f_back
    return ("<unknown>", 0), atomic


def _where(site):
    return f"{site[0]}:{site[1]}"


def _short(site):
    return f"{os.path.basename(site[0])}:{site[1]}"


# ---- findings and the report ---------------------------------------------------------------
class Finding:
    """One kind of error at one site (or pair of sites), with its first occurrence."""

    __slots__ = ("tool", "title", "lines", "count", "severity")

    def __init__(self, tool, title, lines, severity="error"):
        self.tool = tool
        self.title = title
        self.lines = lines
        self.count = 1
        self.severity = severity

    def __str__(self):
        more = f" ({self.count} times)" if self.count > 1 else ""
        tag = self.tool if self.severity == "error" else f"{self.tool} warning"
        return "\n".join([f"[{tag}] {self.title}{more}"] + [f"    {x}" for x in self.lines])


class Report:
    """The findings of one sanitized launch: ``findings`` (grouped), ``counts`` of errors per
    tool (every occurrence), ``errors`` and ``warnings`` (totals), ``str()`` the summary."""

    def __init__(self, kernel, grid, block, tools, findings):
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.tools = tools
        self.findings = findings
        self.counts = {tool: 0 for tool in TOOLS if tool in tools}
        self.errors = self.warnings = 0
        for f in findings:
            if f.severity == "error":
                self.counts[f.tool] += f.count
                self.errors += f.count
            else:
                self.warnings += f.count

    def __bool__(self):
        return bool(self.findings)

    def __str__(self):
        tools = ", ".join(t for t in TOOLS if t in self.tools)
        head = (f"simulator sanitizer ({tools}): kernel {self.kernel} launched with grid "
                f"{list(self.grid)} and block {list(self.block)}: ")
        if not self.findings:
            return head + "no errors"
        per_tool = ", ".join(f"{tool} {n}" for tool, n in self.counts.items() if n)
        parts = [f"{self.errors} error(s)" + (f" ({per_tool})" if per_tool else "")]
        if self.warnings:
            parts.append(f"{self.warnings} warning(s)")
        body = "\n".join(str(f) for f in sorted(self.findings, key=lambda f: f.severity))
        return f"{head}{' and '.join(parts)} in {len(self.findings)} group(s)\n{body}"


def _who(entry):
    tid, _warp, _wc, site, txyz, bidx, kind = entry
    return (f"{kind:<6} by tid={list(txyz)} ctaid={list(bidx)} at {_where(site)}")


_KIND = {(True, True): "write-after-write", (False, True): "write-after-read",
         (True, False): "read-after-write"}


# ---- a sanitized launch ---------------------------------------------------------------------
class Launch:
    """The state of one sanitized launch (the module's :data:`active` while it runs)."""

    def __init__(self, kernel_name, params, grid, block, tools, report):
        self.kernel = kernel_name
        self.params = params
        self.grid = grid
        self.block = block
        self.tools = tools
        self.report_mode = report
        self.race = "racecheck" in tools
        self.mem = "memcheck" in tools
        self.init = "initcheck" in tools
        self.sync = "synccheck" in tools
        self.findings = {}
        self.regions = {}
        self.shared_views = {}
        self.epochs = {}   # block index -> barriers passed
        self.wcount = {}   # (block index, thread) -> warp collectives passed
        self.gsync = {}    # (block index, thread) -> grid barriers entered

    # -- findings
    def _find(self, key, tool, title, lines, severity="error"):
        f = self.findings.get(key)
        if f is None:
            self.findings[key] = Finding(tool, title, lines, severity)
        else:
            f.count += 1

    # -- regions
    def wrap_args(self, args, kargs):
        from .devicearray import DeviceNDArray, is_freed

        out = []
        for n, (arg, karg) in enumerate(zip(args, kargs)):
            if not isinstance(karg, np.ndarray) or karg.dtype.hasobject:
                out.append(karg)
                continue
            root = karg
            while isinstance(root.base, np.ndarray):
                root = root.base
            region = self.regions.get(id(root))
            if region is None:
                name = self.params[n] if n < len(self.params) else f"argument {n}"
                lo, hi = _byte_bounds(root)
                region = _Region(f"global array {name!r}", "global", lo, hi - lo, False, root)
                self.regions[id(root)] = region
            if isinstance(arg, DeviceNDArray) and is_freed(arg):
                region.freed = True
            out.append(_checked(karg, region))
        return tuple(out)

    def shared(self, ctx, site, arr, dynamic):
        block = ctx.block
        key = ("dyn", arr.dtype) if dynamic else site
        views = self.shared_views.setdefault(block.idx, {})
        view = views.get(key)
        if view is None:
            where, _atomic = _site()
            if dynamic:
                rkey = ("dyn", block.idx)
                region = self.regions.get(rkey)
                if region is None:
                    buf = np.frombuffer(block.dynamic_shared, dtype=np.uint8)
                    lo = buf.__array_interface__["data"][0] if buf.size else 0
                    region = _Region("dynamic shared memory", "shared", lo, buf.size,
                                     True, block.dynamic_shared)
                    self.regions[rkey] = region
            else:
                lo, hi = _byte_bounds(arr)
                region = _Region(f"shared array at {_short(where)}", "shared", lo, hi - lo,
                                 arr.dtype.fields is None, arr)
                self.regions[("shared", block.idx, site)] = region
            view = views[key] = _checked(arr, region)
        return view

    def local(self, arr):
        where, _atomic = _site()
        lo, hi = _byte_bounds(arr)
        region = _Region(f"local array at {_short(where)}", "local", lo, hi - lo,
                         arr.dtype.fields is None, arr)
        self.regions[id(region)] = region
        return _checked(arr, region)

    # -- element accesses
    def _check(self, ary, idx, write):
        """The element offsets of an access, or a string: why it must not happen."""
        region = ary._san_region
        if self.mem and region.freed:
            return "freed"
        try:
            offs = _element_offsets(ary, idx, write)
        except _OutOfBounds as exc:
            return str(exc) if self.mem else None
        if offs and self.mem and ary._san_misaligned:
            return "misaligned"
        return offs

    def _memcheck(self, ary, problem, write, site):
        region = ary._san_region
        ctx = state.current
        what = "write" if write else "read"
        if problem == "freed":
            title = f"use after free: {what} of {region.name}, whose device memory was freed"
        elif problem == "misaligned":
            title = (f"misaligned {what} of {region.name}: a {ary.dtype} element (alignment "
                     f"{ary.dtype.alignment}) at an address that is not a multiple of it")
        else:
            title = f"out-of-bounds {what} of {region.name}: {problem}"
        self._find(("memcheck", problem if problem in ("freed", "misaligned") else "oob",
                    region.name, write, site), "memcheck", title,
                   [f"{what} by {ctx.peer_where()} at {_where(site)}"])

    def load(self, ary, idx, get):
        offs = self._check(ary, idx, False)
        site = None
        if type(offs) is str:
            site, _atomic = _site()
            self._memcheck(ary, offs, False, site)
            return ary.dtype.type(0) if ary.dtype.fields is None else np.zeros((), ary.dtype)[()]
        if offs:
            site, atomic = _site()
            region = ary._san_region
            ctx = state.current
            size = ary.itemsize
            if self.init and region.written is not None:
                written = region.written
                for off in offs:
                    if written.find(0, off, off + size) != -1:
                        self._find(("initcheck", region.name, site), "initcheck",
                                   f"read of uninitialised {region.name}: bytes never written "
                                   f"in this launch", [f"read by {ctx.peer_where()} at "
                                                       f"{_where(site)} (byte offset {off})"])
                        break
            if self.race and region.space != "local":
                for off in offs:
                    self._access(region, off, False, atomic, ctx, site)
        return get(idx)

    def store(self, ary, idx, value, put):
        offs = self._check(ary, idx, True)
        if type(offs) is str:
            site, _atomic = _site()
            self._memcheck(ary, offs, True, site)
            return None
        if offs:
            region = ary._san_region
            site, atomic = _site()
            if region.written is not None:
                size = ary.itemsize
                ones = b"\x01" * size
                for off in offs:
                    region.written[off:off + size] = ones
            if self.race and region.space != "local":
                ctx = state.current
                newval = (ary, idx, value) if len(offs) == 1 else None
                for off in offs:
                    self._access(region, off, True, atomic, ctx, site, newval)
        return put(idx, value)

    def _access(self, region, off, write, atomic, ctx, site, newval=None):
        bidx = ctx.block.idx
        tid = ctx.tid
        epoch = (self.epochs.get(bidx, 0), self.gsync.get((bidx, tid), 0))
        rec = region.shadow.get(off)
        if rec is None or rec[0] != bidx or rec[1] != epoch:
            # [block, epoch, last write, the last write before it by another thread, reads]
            rec = [bidx, epoch, None, None, {}]
            region.shadow[off] = rec
        kind = "atomic" if atomic else ("write" if write else "read")
        me = (tid, ctx.warp, self.wcount.get((bidx, tid), 0), site, (ctx.tx, ctx.ty, ctx.tz),
              bidx, kind)
        for writer in (rec[2], rec[3]):
            if writer is not None and self._conflict(writer, me) and not (
                    write and newval is not None and _same_value(*newval)):
                # (two writes of the same value leave memory as either would: benign)
                self._hazard(region, off, writer, True, me, write)
                break
        if write:
            for reader in rec[4].values():
                if self._conflict(reader, me):
                    self._hazard(region, off, reader, False, me, True)
            last = rec[2]
            if last is not None and last[0] != tid:
                rec[3] = last
            rec[2] = me
            rec[4] = {}
        else:
            rec[4][tid] = me

    @staticmethod
    def _conflict(other, me):
        if other[0] == me[0]:
            return False
        if other[6] == "atomic" and me[6] == "atomic":
            return False
        # two lanes of one warp with a warp collective of both in between are ordered
        return not (other[1] == me[1] and other[2] != me[2])

    def _hazard(self, region, off, first, first_writes, second, second_writes):
        kind = _KIND[(first_writes, second_writes)]
        key = ("racecheck", kind, region.name, first[3], second[3])
        self._find(key, "racecheck",
                   f"{kind} hazard on {region.name} ({region.space} memory, byte offset {off}) "
                   f"between two threads of block {list(first[5])} with no barrier between them",
                   [_who(first), _who(second)])

    # -- barriers and warp collectives (called by .collectives when one completes)
    def barrier(self, waiting):
        blk = waiting[0].block
        bidx = blk.idx
        self.epochs[bidx] = self.epochs.get(bidx, 0) + 1
        if not self.sync:
            return
        exited = [t for t in blk.threads if t.done]
        sites = {}
        for t in waiting:
            sites.setdefault(_suspended_site(t), []).append(t)
        if len(sites) > 1:
            parts = [f"{len(ts)} thread(s) at {_where(s)} (e.g. {ts[0].peer_where()})"
                     for s, ts in sites.items()]
            self._find(("synccheck", "divergent", tuple(sorted(sites))), "synccheck",
                       f"divergent barrier in block {list(bidx)}: the threads wait at different "
                       f"barriers", parts)
        if exited:
            where = sorted(sites)[0]
            self._find(("synccheck", "exited", where), "synccheck",
                       f"barrier at {_where(where)} reached by only part of block {list(bidx)}: "
                       f"{len(waiting)} thread(s) reach it, {len(exited)} exited before it (every "
                       f"thread of a block must reach each syncthreads())",
                       [f"reached by {waiting[0].peer_where()}",
                        f"never reached by {exited[0].peer_where()}"])

    def grid_sync(self, ctx):
        if ctx is not None:  # counted when a thread enters: it accesses nothing until released
            key = (ctx.block.idx, ctx.tid)
            self.gsync[key] = self.gsync.get(key, 0) + 1

    def warp(self, group):
        req = group[0].request
        op = req[0]
        if op == _coll.ACTIVEMASK:
            return
        lead = group[0]
        bidx = lead.block.idx
        wcount = self.wcount
        for t in group:
            key = (bidx, t.tid)
            wcount[key] = wcount.get(key, 0) + 1
        if not self.sync:
            return
        mask = req[1]
        present = 0
        for t in group:
            present |= 1 << t.lane
        absent = mask & ~present
        if not absent:
            return
        lanes = lead.block.warps[lead.warp]
        missing = [lane for lane in range(WARP_SIZE) if absent >> lane & 1]
        gone = [lane for lane in missing if lane not in lanes]
        exited = [lane for lane in missing if lane in lanes]
        why = []
        if gone:
            why.append(f"lane(s) {_lane_list(gone)} do not exist (the block has "
                       f"{len(lead.block.threads)} threads)")
        if exited:
            why.append(f"lane(s) {_lane_list(exited)} have exited")
        where = _suspended_site(lead)
        self._find(("synccheck", "mask", op, where, mask), "synccheck",
                   f"{_coll.NAMES[op]} at {_where(where)} with mask 0x{mask:08x} in warp "
                   f"{lead.warp} of block {list(bidx)}: " + " and ".join(why) + "; the GPU "
                   f"leaves them out (CUDA allows exited lanes in a mask), so this is a "
                   f"warning: the mask does not say which lanes take part",
                   [f"called by {lead.peer_where()}"], "warning")

    # -- the end
    def finish(self, exc):
        global active, _last
        active = None
        _checked_mod.launch = None
        _coll.observer = None
        _mem.observer = None
        report = Report(self.kernel, self.grid, self.block, self.tools,
                        list(self.findings.values()))
        _last = report
        if not report or self.report_mode == "count":
            return
        if self.report_mode == "raise" and report.errors:
            raise SanitizerError(report) from exc
        warnings.warn(str(report), SanitizerWarning, stacklevel=4)


def _same_value(ary, idx, value):
    """Whether storing ``value`` at ``ary[idx]`` leaves the element's bytes as they are."""
    try:
        old = np.ndarray.__getitem__(ary, idx)
        new = np.asarray(value).astype(ary.dtype, casting="unsafe")
        return np.asarray(old).tobytes() == new.tobytes()
    except Exception:  # noqa: BLE001 - a value numpy cannot compare: not known to be the same
        return False


def _lane_list(lanes):
    if len(lanes) > 4 and lanes == list(range(lanes[0], lanes[-1] + 1)):
        return f"{lanes[0]}-{lanes[-1]}"
    return ", ".join(str(x) for x in lanes)


def _suspended_site(t):
    """Where thread ``t`` waits: the line of its innermost suspended kernel frame."""
    gen = t.gen
    frame = None
    if hasattr(gen, "gi_frame"):
        while getattr(gen, "gi_yieldfrom", None) is not None and hasattr(gen.gi_yieldfrom,
                                                                            "gi_frame"):
            gen = gen.gi_yieldfrom
        frame = gen.gi_frame
    else:  # an OS-thread coroutine: the frames of its thread
        thread = getattr(gen, "_thread", None)
        if thread is not None:
            frame = sys._current_frames().get(thread.ident)
    while frame is not None and (frame.f_code.co_filename.startswith(_SIM_DIR)
                                 or frame.f_code.co_filename.startswith(_NUMPY_DIR)):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0)
    return (frame.f_code.co_filename, frame.f_lineno)


# The test at every launch must cost nothing measurable: ``os.environ.get`` of an unset
# variable takes ~1 us (it raises and catches KeyError inside), a tenth of an empty launch.
# ``os.environ`` keeps its items in ``_data`` (encoded keys; updated by every assignment and
# deletion through ``os.environ``), where a membership test is ~50 ns.
_ENV_DATA = getattr(os.environ, "_data", None)
try:
    _ENV_KEY = os.environ.encodekey(ENV_TOOLS)
except AttributeError:  # another Python: the plain lookup
    _ENV_DATA = None


def begin(pyfunc, grid, block):
    """Start a sanitized launch of ``pyfunc`` if the environment asks for one; else None."""
    global active
    if _ENV_DATA is not None and _ENV_KEY not in _ENV_DATA:
        return None
    wanted = settings()
    if wanted is None:
        return None
    import inspect

    try:
        params = list(inspect.signature(pyfunc).parameters)
    except (TypeError, ValueError):
        params = []
    launch = Launch(pyfunc.__qualname__, params, grid, block, *wanted)
    active = launch
    _checked_mod.launch = launch
    _coll.observer = launch
    _mem.observer = launch
    return launch

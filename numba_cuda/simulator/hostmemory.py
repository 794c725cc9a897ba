"""Whether the host memory a CUDA Array Interface pointer names may be touched.

The simulator's "device memory" is host memory: an interface dict's pointer is
read (and written) as a host address.  A wild pointer would crash the process
(SIGSEGV), so before viewing it the simulator checks that the whole byte range
lies in memory mapped into this process, readable, and writable unless the
dict says read-only.

On Linux the mappings come from ``/proc/self/maps`` (re-read only when a range
is not inside the mappings read last time).  Elsewhere, on POSIX systems, the
first and last byte of the range are probed through ``write(2)`` into a pipe,
which fails with ``EFAULT`` instead of crashing; Windows has no such check.
"""

import bisect
import errno
import os
import sys
import threading

_lock = threading.Lock()
_starts = []  # sorted start addresses of merged mappings
_regions = []  # (start, end, readable, writable), parallel to _starts


def _read_maps():
    regions = []
    with open("/proc/self/maps", encoding="ascii", errors="replace") as fh:
        for line in fh:
            span, perms = line.split(None, 2)[:2]
            lo, hi = span.split("-")
            lo, hi = int(lo, 16), int(hi, 16)
            r, w = perms[0] == "r", perms[1] == "w"
            if regions and regions[-1][1] == lo and regions[-1][2:] == (r, w):
                regions[-1] = (regions[-1][0], hi, r, w)
            else:
                regions.append((lo, hi, r, w))
    return regions


def _covered(lo, hi, write):
    """True when [lo, hi) lies in the mappings read last, with the permissions."""
    i = bisect.bisect_right(_starts, lo) - 1
    if i < 0:
        return False
    addr = lo
    while i < len(_regions):
        start, end, r, w = _regions[i]
        if start > addr or not r or (write and not w):
            return False
        if end >= hi:
            return True
        addr = end
        i += 1
    return False


def _linux_problem(lo, hi, write):
    global _starts, _regions
    with _lock:
        if _regions and _covered(lo, hi, write):
            return None
        try:
            regions = _read_maps()
        except OSError:
            return None  # cannot check: accept, as on other systems without a check
        _regions = regions
        _starts = [r[0] for r in regions]
        if _covered(lo, hi, write):
            return None
    need = "readable and writable" if write else "readable"
    return f"are not {need} memory of this process"


def _probe_problem(lo, hi, write):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    rfd, wfd = os.pipe()
    try:
        for addr in {lo, hi - 1}:
            if libc.write(wfd, ctypes.c_void_p(addr), 1) != 1:
                if ctypes.get_errno() == errno.EFAULT:
                    return "are not memory of this process"
                return None
            os.read(rfd, 1)
    finally:
        os.close(rfd)
        os.close(wfd)
    return None


def access_problem(pointer, lo, hi, readonly):
    """Why the bytes ``pointer + lo`` .. ``pointer + hi`` cannot be used (text), or None."""
    if hi <= lo:
        return None
    start, end = pointer + lo, pointer + hi
    if start < 0 or end > 1 << 64:
        return "are outside the address space"
    if sys.platform.startswith("linux"):
        return _linux_problem(start, end, not readonly)
    if os.name == "posix":
        return _probe_problem(start, end, not readonly)
    return None

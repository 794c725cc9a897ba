"""The on-disk cache of one Python function's compiled CUDA code (``cuda.jit(cache=True)``).

Usage by the compiler's dispatcher::

    cache = KernelCache(py_func, options_key=(("fastmath", False), ("opt", True)),
                        toolkit_key=("nvvm", 2, 0, "libdevice-sha..."))
    payload = cache.load(signature, cc)      # None on a miss
    if payload is None:
        payload = compile_it(...)
        cache.save(signature, cc, payload)

The payload is any picklable object: whatever the compiler needs to skip compiling
(PTX/cubin, the entry name, argument types...).  The key of an entry is:

* the source: the whole source file's SHA-256 (any edit in the module invalidates),
  the function's qualified name and first line;
* the code outside the source text (:mod:`.codekey`): bytecode, closure cell contents,
  the values of referenced globals, the device functions called (as Numba's cache keys
  on bytecode and closure contents);
* the signature (``str(signature)``: Numba type names are unique spellings),
* the compute capability,
* ``options_key``: the compile options that change the code (caller-defined, must be
  picklable and comparable),
* ``toolkit_key``: the NVVM/toolkit identity (caller-defined),
* the versions of numba-cuda, Numba and Python.

Each key is its own file (see :mod:`.entryfile`): writes are atomic, there is no
shared index to tear.  A corrupt or truncated entry warns (:class:`CacheWarning`)
and counts as a miss, so the caller recompiles and overwrites it; an entry from
another version or toolkit has another key and is simply never matched.
"""

import errno
import hashlib
import os
import pickle
import re
import sys
import warnings

from numba.core.errors import NumbaWarning

from . import entryfile
from .codekey import code_fingerprint
from .locator import (SourceInfo, cache_locations, configured_cache_dir, first_writable,
                      no_writable_directory_message)

#: File name suffix of cache entries.
SUFFIX = ".nbcu"

# What pickle.dumps raises for a payload it cannot store.
_UNPICKLABLE = (pickle.PicklingError, TypeError, AttributeError)

#: Unwritable cache directories already warned about in this process (one warning each).
_warned_unwritable = set()


def _warn_unwritable_once(unusable, chosen, qualname):
    fresh = [p for p in unusable if p not in _warned_unwritable]
    if not fresh:
        return
    _warned_unwritable.update(fresh)
    if chosen is None:
        message = f"numba-cuda cannot cache {qualname}: {no_writable_directory_message(unusable)}"
    else:
        message = (f"numba-cuda cache directory {fresh[0]!r} is not writable; entries are read from "
                   f"it but written to {chosen!r} (the next cache location).  Make it writable "
                   "or set NUMBA_CACHE_DIR to a writable directory to silence this warning.")
    warnings.warn(message, CacheWarning, stacklevel=4)


#: (cause, directory) pairs of failed reads/writes already warned about in this process.
_warned_causes = set()

_ONCE = " (This warning is shown once per process for this directory and cause.)"


def _warn_once(cause, directory, message):
    if (cause, directory) in _warned_causes:
        return
    _warned_causes.add((cause, directory))
    warnings.warn(message + _ONCE, CacheWarning, stacklevel=4)


def _other_owner(path):
    """The uid owning ``path`` when it is not this process's user, else None."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:  # Windows: no uids
        return None
    try:
        uid = os.stat(path).st_uid
    except OSError:
        return None
    return uid if uid != geteuid() else None


def _unreadable_message(directory, path, exc):
    owner = _other_owner(path)
    if owner is not None:
        why = f"the entries there belong to another user (uid {owner})"
    else:
        why = "the entries there are not readable by this user"
    return (f"numba-cuda cannot read cache entries in {directory!r}: {why} ({exc}; first: "
            f"{os.path.basename(path)!r}).  The kernels they hold are compiled again.  Give this "
            "user read access to them, or set NUMBA_CACHE_DIR to a directory of its own.")


def _write_problem(exc, directory, path):
    """(cause, message) of an OSError from writing the entry ``path`` in ``directory``."""
    code = getattr(exc, "errno", None)
    head = f"numba-cuda cannot write cache entries to {directory!r}: "
    tail = f" ({exc}).  Kernels are compiled and run as usual, just not cached"
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "full", (head + "the disk (or this user's quota) is full" + tail
                        + "; free space there, or set NUMBA_CACHE_DIR to a directory on a disk "
                        "with room.")
    if code == errno.EROFS:
        return "read-only", (head + "the file system is read-only" + tail
                             + "; set NUMBA_CACHE_DIR to a writable directory.")
    if code in (errno.EACCES, errno.EPERM):
        owner = _other_owner(path)
        if owner is not None:
            return "owner", (head + f"its entries belong to another user (uid {owner}), which this "
                             f"user may not replace (first: {os.path.basename(path)!r})" + tail
                             + "; remove them or give them to this user, or set NUMBA_CACHE_DIR "
                             "to a directory of its own.")
        return "denied", (head + "this user may not write there (permission denied: was it made "
                          "read-only while the process ran?)" + tail + "; make it writable again, "
                          "or set NUMBA_CACHE_DIR to a writable directory.")
    return f"errno {code}", (head + "the write failed" + tail
                             + "; fix that directory, or set NUMBA_CACHE_DIR to another one.")


class CacheWarning(NumbaWarning):
    """A cache entry could not be used or written; the code was (or will be) recompiled."""


def _versions():
    from .. import __version__ as ours
    import numba

    return (("numba-cuda", ours), ("numba", numba.__version__), ("python", tuple(sys.version_info[:2])))


def _safe_name(text, limit=80):
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "fn"
    return name[:limit]


class NullCache:
    """The cache of a function compiled without ``cache=True`` (and of the simulator): stores nothing."""

    enabled = False
    directory = None

    def load(self, signature, cc):
        return None

    def save(self, signature, cc, payload):
        return False

    def clear(self):
        return 0


class KernelCache:
    """On-disk compiled code of ``py_func``, one entry per (signature, cc).

    Raises :class:`numba_cuda.errors.CacheError` when the function cannot be cached
    (no source).  Directories are not touched until the first load/save: entries are
    read from every candidate location that has them, written to the first writable
    one (``directory``; None when none is, and saving then warns once and stores
    nothing).  ``toolkit_key`` may be a value or a zero-argument callable (evaluated
    once, on first use, so a cache hit need not be slower than computing it).
    """

    enabled = True

    def __init__(self, py_func, options_key=(), toolkit_key=()):
        self._py_func = py_func
        self._source = SourceInfo.of(py_func)
        self.locations = cache_locations(self._source)
        self._directory = None
        self._unwritable = None  # candidates before the chosen directory, once chosen
        # NUMBA_CACHE_DIR's location: falling back from it warns (from an unwritable __pycache__,
        # e.g. of a read-only installation, it is the normal case and silent).
        self._configured = self.locations[:1] if configured_cache_dir() else []
        self._options_key = options_key
        self._toolkit_key = toolkit_key
        self._toolkit_key_ready = not callable(toolkit_key)
        self._source_digest = hashlib.sha256(self._source.text).hexdigest()
        qualname = getattr(py_func, "__qualname__", py_func.__name__)
        self._qualname = qualname
        if self._source.path is None:
            stem = "interactive"
        else:
            stem = os.path.splitext(os.path.basename(self._source.path))[0]
        # Entries of this function, any source version: <stem>.<qualname>.<src8>.<key16>.nbcu
        self._prefix = f"{_safe_name(stem, 40)}.{_safe_name(qualname)}."
        self.hits = 0
        self.misses = 0
        self.saves = 0
        self._warned_write = False

    @property
    def directory(self):
        """The directory entries are written to: the first writable of ``locations`` (None if
        none is writable)."""
        if self._unwritable is None:
            self._directory, self._unwritable = first_writable(self.locations)
        return self._directory

    # ---- keys --------------------------------------------------------------
    def _toolkit(self):
        if not self._toolkit_key_ready:
            self._toolkit_key = self._toolkit_key()
            self._toolkit_key_ready = True
        return self._toolkit_key

    def key(self, signature, cc):
        """The full key of the entry for ``signature`` and compute capability ``cc``."""
        return (
            ("source", self._source.path, self._source_digest, self._qualname, self._source.lineno),
            # closure cells, referenced globals, called device functions (see codekey)
            ("code", code_fingerprint(self._py_func)),
            ("signature", str(signature)),
            ("cc", tuple(cc) if cc is not None else None),
            ("options", self._options_key),
            ("toolkit", self._toolkit()),
            ("versions", _versions()),
        )

    def _name(self, key):
        digest = hashlib.sha256(repr(key).encode("utf-8")).hexdigest()
        return f"{self._prefix}{self._source_digest[:8]}.{digest[:16]}{SUFFIX}"

    def path(self, signature, cc):
        """The file that holds (or would hold) the entry for ``signature`` and ``cc`` in the
        directory entries are written to (None when there is no writable directory)."""
        directory = self.directory
        if directory is None:
            return None
        return os.path.join(directory, self._name(self.key(signature, cc)))

    # ---- load / save ---------------------------------------------------------
    def load(self, signature, cc):
        """The payload stored for ``signature`` and ``cc``, or None (miss, stale or corrupt).

        Every cache location is looked in, most preferred first."""
        key = self.key(signature, cc)
        name = self._name(key)
        payload = None
        for directory in self.locations:
            path = os.path.join(directory, name)
            try:
                payload = entryfile.read(path, key)
            except entryfile.EntryStale:
                payload = None
            except entryfile.EntryUnreadable as exc:
                _warn_once("unreadable", directory, _unreadable_message(directory, path, exc))
                payload = None
            except entryfile.EntryCorrupt as exc:
                warnings.warn(
                    f"numba-cuda cache entry {path!r} for {self._qualname}{signature} is unusable "
                    f"({exc}); recompiling and replacing it.",
                    CacheWarning,
                    stacklevel=2,
                )
                payload = None
            if payload is not None:
                break
        if payload is None:
            self.misses += 1
        else:
            self.hits += 1
        return payload

    def save(self, signature, cc, payload):
        """Store ``payload`` for ``signature`` and ``cc``; True when written.

        A failed write is otherwise ignored (the compiled code is still used, just not
        cached) and warns: once per process, directory and cause for OSErrors (full disk,
        permissions...), once per function for a payload pickle refuses.
        """
        key = self.key(signature, cc)
        directory = self.directory
        warn_about = [d for d in self._unwritable if d in self._configured] if directory else self._unwritable
        if warn_about:
            _warn_unwritable_once(warn_about, directory, self._qualname)
        if directory is None:
            return False
        path = os.path.join(directory, self._name(key))
        try:
            entryfile.write(path, key, payload)
        except OSError as exc:
            cause, message = _write_problem(exc, directory, path)
            _warn_once(cause, directory, message)
            return False
        except _UNPICKLABLE as exc:
            if not self._warned_write:
                self._warned_write = True
                warnings.warn(
                    f"numba-cuda could not write the cache entry {path!r} for "
                    f"{self._qualname}{signature}: {exc}",
                    CacheWarning,
                    stacklevel=2,
                )
            return False
        self.saves += 1
        self._prune_other_sources()
        return True

    def entries(self):
        """Paths of every entry file of this function in its cache locations (any source version)."""
        found = []
        for directory in self.locations:
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            found += [os.path.join(directory, n) for n in names
                      if n.startswith(self._prefix) and n.endswith(SUFFIX)]
        return sorted(found)

    def clear(self):
        """Remove every entry of this function; returns how many were removed."""
        removed = 0
        for path in self.entries():
            try:
                os.unlink(path)
                removed += 1
            except OSError:
                pass
        return removed

    def _prune_other_sources(self):
        # Entries written for an older version of the source file can never match again.
        current = f"{self._prefix}{self._source_digest[:8]}."
        for path in self.entries():
            if os.path.dirname(path) != self._directory:
                continue  # only the directory written to is pruned (others may be read-only, shared)
            if not os.path.basename(path).startswith(current):
                try:
                    os.unlink(path)
                except OSError:
                    pass

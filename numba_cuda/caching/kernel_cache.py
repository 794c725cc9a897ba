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

import hashlib
import os
import pickle
import re
import sys
import warnings

from numba.core.errors import NumbaWarning

from . import entryfile
from .locator import SourceInfo, cache_directory

#: File name suffix of cache entries.
SUFFIX = ".nbcu"

# What pickle.dumps raises for a payload it cannot store.
_UNPICKLABLE = (pickle.PicklingError, TypeError, AttributeError)


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
    (no source, no writable directory).  ``toolkit_key`` may be a value or a
    zero-argument callable (evaluated once, on first use, so a cache hit need not
    be slower than computing it).
    """

    enabled = True

    def __init__(self, py_func, options_key=(), toolkit_key=()):
        self._py_func = py_func
        self._source = SourceInfo.of(py_func)
        self.directory = cache_directory(self._source)
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
            ("signature", str(signature)),
            ("cc", tuple(cc) if cc is not None else None),
            ("options", self._options_key),
            ("toolkit", self._toolkit()),
            ("versions", _versions()),
        )

    def path(self, signature, cc):
        """The file that holds (or would hold) the entry for ``signature`` and ``cc``."""
        digest = hashlib.sha256(repr(self.key(signature, cc)).encode("utf-8")).hexdigest()
        return os.path.join(
            self.directory, f"{self._prefix}{self._source_digest[:8]}.{digest[:16]}{SUFFIX}"
        )

    # ---- load / save ---------------------------------------------------------
    def load(self, signature, cc):
        """The payload stored for ``signature`` and ``cc``, or None (miss, stale or corrupt)."""
        key = self.key(signature, cc)
        path = self.path(signature, cc)
        try:
            payload = entryfile.read(path, key)
        except entryfile.EntryStale:
            payload = None
        except entryfile.EntryCorrupt as exc:
            warnings.warn(
                f"numba-cuda cache entry {path!r} for {self._qualname}{signature} is unusable "
                f"({exc}); recompiling and replacing it.",
                CacheWarning,
                stacklevel=2,
            )
            payload = None
        if payload is None:
            self.misses += 1
        else:
            self.hits += 1
        return payload

    def save(self, signature, cc, payload):
        """Store ``payload`` for ``signature`` and ``cc``; True when written.

        A failed write warns once per function and is otherwise ignored: the
        compiled code is still used, just not cached.
        """
        key = self.key(signature, cc)
        path = self.path(signature, cc)
        try:
            entryfile.write(path, key, payload)
        except (OSError, *_UNPICKLABLE) as exc:
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
        """Paths of every entry file of this function in the cache directory (any source version)."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        return sorted(
            os.path.join(self.directory, n)
            for n in names
            if n.startswith(self._prefix) and n.endswith(SUFFIX)
        )

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
            if not os.path.basename(path).startswith(current):
                try:
                    os.unlink(path)
                except OSError:
                    pass

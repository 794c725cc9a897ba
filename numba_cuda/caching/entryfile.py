"""One cache entry per file: an integrity-checked container, written atomically.

Layout of an entry file::

    magic (8 bytes) | format version (u32, big endian) | body length (u64) | sha256(body) (32 bytes) | body

where ``body`` is ``pickle.dumps((key, payload))``.  ``key`` is the full key the
entry was stored under; a reader compares it with the key it wants, so a file
name collision or a copied file can never hand back someone else's code.

Entry files get the mode a plain ``open()`` would give them (0o666 less the umask), so a
directory shared by a group (umask 002) is shared by its entries too.

Writers write a temporary file in the same directory and ``os.replace`` it over
the entry: a reader sees either the old complete file or the new complete file,
never a mix, even with many processes writing the same entry at once.  There is
no shared index to tear: each key is its own file.
"""

import hashlib
import os
import pickle
import struct
import tempfile
import threading
import time

MAGIC = b"NBCUDA\x00E"
FORMAT_VERSION = 1
_HEADER = struct.Struct(">8sIQ32s")


class EntryCorrupt(Exception):
    """The file is not a complete, intact entry (truncated, garbled, unreadable)."""


class EntryUnreadable(EntryCorrupt):
    """The file exists but this process may not read it (another user's entry, mode 0600 ...)."""


class EntryStale(Exception):
    """The file is intact but holds another key or an older/newer file format."""


def encode(key, payload):
    """The bytes of an entry file holding ``payload`` under ``key``."""
    body = pickle.dumps((key, payload), protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(MAGIC, FORMAT_VERSION, len(body), hashlib.sha256(body).digest()) + body


def decode(data, key):
    """The payload in ``data`` (an entry file's bytes) if it was stored under ``key``.

    Raises EntryCorrupt or EntryStale (with a reason) otherwise.
    """
    if len(data) < _HEADER.size:
        raise EntryCorrupt(f"truncated: {len(data)} bytes, shorter than the {_HEADER.size}-byte header")
    magic, version, length, digest = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise EntryCorrupt("not a numba-cuda cache entry (bad magic bytes)")
    if version != FORMAT_VERSION:
        raise EntryStale(f"entry format {version}, this numba-cuda reads format {FORMAT_VERSION}")
    body = data[_HEADER.size:]
    if len(body) != length:
        raise EntryCorrupt(f"truncated: body holds {len(body)} of {length} bytes")
    if hashlib.sha256(body).digest() != digest:
        raise EntryCorrupt("checksum mismatch (garbled contents)")
    try:
        stored_key, payload = pickle.loads(body)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means unusable
        raise EntryCorrupt(f"cannot unpickle: {type(exc).__name__}: {exc}") from exc
    if stored_key != key:
        raise EntryStale("entry was stored under a different key")
    return payload


def read(path, key):
    """The payload stored at ``path`` under ``key``; None when there is no such file.

    Raises EntryCorrupt / EntryStale as :func:`decode` does.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):  # no such entry (or no such directory)
        return None
    except PermissionError as exc:
        if not _visible(path):
            # a directory above it cannot be entered (a HOME this user may not enter, with a
            # working NUMBA_CACHE_DIR): no entry this process can see, not a broken one
            return None
        raise EntryUnreadable(f"cannot read: {exc}") from exc
    except OSError as exc:
        raise EntryCorrupt(f"cannot read: {exc}") from exc
    return decode(data, key)


def _visible(path):
    """Whether ``path`` exists as far as this process can tell (``stat`` succeeds)."""
    try:
        os.stat(path)
    except OSError:
        return False
    return True


_umask_lock = threading.Lock()


def current_umask():
    """The process's umask (read from /proc where it can be, without changing it)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:  # elsewhere: the only way to read it is to set it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def file_mode():
    """The mode ``open()`` would give a new file: 0o666 less the umask (``mkstemp`` gives 0o600,
    which would shut a group out of a cache directory it shares)."""
    return 0o666 & ~current_umask()


def write(path, key, payload):
    """Atomically (re)place the entry file at ``path``.

    Returns True on success.  OSErrors (full disk, permissions, a Windows reader
    holding the target open for longer than the retries) leave no partial file
    behind and are re-raised for the caller to report.
    """
    data = encode(key, payload)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".nbcu")
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        _replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def _replace(src, dst, attempts=5):
    # POSIX rename is atomic and never fails because a reader has dst open; on
    # Windows it can, transiently: retry a few times before giving up.
    for attempt in range(attempts):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.01 * (attempt + 1))

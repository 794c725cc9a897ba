"""Where cache entries of a function live on disk.

Entries are read from every one of these directories that exists, and written to the first
that is writable (chosen once per function, on the first write), in this order:

1. ``NUMBA_CACHE_DIR`` (the environment variable, else ``numba.config.CACHE_DIR``)
   when set: ``<NUMBA_CACHE_DIR>/<the source file's directory, as a relative path>``.
2. ``__pycache__`` next to the source file, when it can be created and written.
3. The per-user cache directory (``$XDG_CACHE_HOME/numba-cuda``, ``~/.cache/numba-cuda``;
   ``%LOCALAPPDATA%\\numba-cuda`` on Windows), again mirroring the source directory.

An unusable ``NUMBA_CACHE_DIR`` (a file, a read-only directory) is still read -- a pre-warmed,
read-only cache shipped with an application works -- and writes fall back to the next location,
with one :class:`CacheWarning` per process and directory (see ``kernel_cache``); nothing
about the directories is checked when a function is decorated.

Functions without a source file on disk (notebook cells, ``exec``) but whose source
``inspect`` can still find are cached in ``<cache root>/interactive``.
"""

import inspect
import tokenize
import os
import sys
import tempfile

from ..errors import CacheError

#: Sub-directory of the user cache directory (and of NUMBA_CACHE_DIR for interactive code).
APP_DIR_NAME = "numba-cuda"


def configured_cache_dir():
    """``NUMBA_CACHE_DIR`` as the user set it (environment first, then ``numba.config``), or None."""
    value = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if value:
        return value
    try:
        from numba.core import config
    except ImportError:  # pragma: no cover - numba is a dependency
        return None
    return getattr(config, "CACHE_DIR", "") or None


def user_cache_root():
    """The per-user cache directory for this package."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
        return os.path.join(base, APP_DIR_NAME)
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches", APP_DIR_NAME)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, APP_DIR_NAME)


def _mirror(root, source_dir):
    """``root`` joined with ``source_dir`` made relative (drive and leading separators dropped)."""
    drive, tail = os.path.splitdrive(os.path.abspath(source_dir))
    parts = [drive.rstrip(":\\/").replace(":", "")] if drive else []
    parts.append(tail.lstrip("\\/"))
    return os.path.join(root, *[p for p in parts if p])


def is_writable_dir(path):
    """Create ``path`` if needed and check that a file can be created in it."""
    try:
        os.makedirs(path, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path, prefix=".write-test-")
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(name)
    except OSError:
        pass
    return True


class SourceInfo:
    """What the cache knows about a function's source.

    ``path`` is the source file (None for interactive code), ``text`` its bytes (the
    whole file: a change anywhere in the module invalidates its entries, since a
    kernel can depend on any module global), ``lineno`` the function's first line.
    """

    def __init__(self, path, text, lineno, interactive):
        self.path = path
        self.text = text
        self.lineno = lineno
        self.interactive = interactive

    @classmethod
    def of(cls, py_func):
        code = getattr(py_func, "__code__", None)
        if code is None:
            raise CacheError(
                f"cannot cache {py_func!r}: it is not a Python function. "
                "Remove cache=True for it."
            )
        filename = code.co_filename
        lineno = code.co_firstlineno
        if filename and os.path.isfile(filename):
            try:
                with open(filename, "rb") as f:
                    text = f.read()
            except OSError as exc:
                raise CacheError(
                    f"cannot cache {py_func.__qualname__!r}: its source file {filename!r} "
                    f"cannot be read ({exc}). Remove cache=True or make the file readable."
                ) from exc
            return cls(os.path.abspath(filename), text, lineno, interactive=False)
        try:
            if filename == "<string>":
                # exec()'d or ``python -c`` code: Python 3.13 keeps the ``-c`` program's text
                # in linecache under this name, and inspect then answers with those lines for
                # any function compiled from a string
                raise OSError("source compiled from a string")
            text = inspect.getsource(py_func).encode("utf-8")
        except (OSError, TypeError, SyntaxError, UnicodeDecodeError, tokenize.TokenError) as exc:
            raise CacheError(
                f"cannot cache {py_func.__qualname__!r}: its source ({filename!r}) is neither a "
                "file on disk nor known to the interpreter (defined with exec?). "
                "Define it in a module file or remove cache=True."
            ) from exc
        return cls(None, text, lineno, interactive=True)


def cache_locations(source):
    """The directories that may hold the entries of a function whose source is ``source`` (a
    SourceInfo), most preferred first: ``NUMBA_CACHE_DIR`` when set, then ``__pycache__`` next to
    the source file, then the per-user cache directory.

    Entries are read from every one of them that exists (a read-only, pre-warmed cache shipped
    with an application is used as it is) and written to the first writable one
    (:func:`first_writable`).
    """
    configured = configured_cache_dir()
    if source.interactive:
        roots = [configured] if configured else []
        roots.append(user_cache_root())
        candidates = [os.path.join(root, "interactive") for root in roots]
    else:
        source_dir = os.path.dirname(source.path)
        candidates = [_mirror(configured, source_dir)] if configured else []
        candidates += [os.path.join(source_dir, "__pycache__"), _mirror(user_cache_root(), source_dir)]
    unique = []
    for path in candidates:
        if path not in unique:
            unique.append(path)
    return unique


def first_writable(candidates):
    """The first of ``candidates`` that is (or can be made) a writable directory, and the ones
    before it that are not; ``(None, candidates)`` when none is."""
    unusable = []
    for path in candidates:
        if is_writable_dir(path):
            return path, unusable
        unusable.append(path)
    return None, unusable


def no_writable_directory_message(tried):
    return ("no writable cache directory for cache=True; tried: "
            + ", ".join(repr(p) for p in tried)
            + ". Set NUMBA_CACHE_DIR to a writable directory.")

"""What a cache that cannot be read or written says: one CacheWarning per process, directory and
cause (full disk, another user's entries, a directory made read-only while the process runs),
naming the cause and the fix; and entries this process cannot even see are simply misses.

Tests run as root in CI containers, where permissions do not stop writes: what the permissions
would do is simulated where they do not take effect."""

import errno
import os
import tempfile
import warnings

import pytest

from numba_cuda.caching import CacheWarning, KernelCache, entryfile

CC = (9, 0)
SIGS = ("(float32, float32)", "(int64, int64)", "(float64, float64)")
PAYLOAD = {"ptx": ".version 8.0\n", "entry": "_Z1f"}
MANY = "\n\n".join(f"def f{n}(a, b):\n    return a + b + {n}\n" for n in range(8))


def _caches(mod):
    return [KernelCache(getattr(mod, f"f{n}"), toolkit_key=("nvvm", (2, 0))) for n in range(8)]


def _cache_warnings(caught):
    return [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]


def _save_all(caches):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        saved = [c.save(sig, CC, PAYLOAD) for c in caches for sig in SIGS]
    return saved, _cache_warnings(caught)


def _load_all(caches):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = [c.load(sig, CC) for c in caches for sig in SIGS]
    return loaded, _cache_warnings(caught)


class _FullFile:
    """What os.fdopen gives on a full disk: a file whose writes fail with ENOSPC."""

    def __init__(self, fd):
        self._fd = fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self._fd)

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_warns_once_per_directory(make_module, monkeypatch, tmp_path):
    mod = make_module(MANY)
    caches = _caches(mod)
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullFile(fd))
    saved, messages = _save_all(caches)
    assert not any(saved)
    assert len(messages) == 1, messages
    (message,) = messages
    directory = caches[0].directory
    assert repr(directory) in message
    assert "disk (or this user's quota) is full" in message and "No space left" in message
    assert "free space" in message and "NUMBA_CACHE_DIR" in message
    assert "once per process" in message
    assert not [n for n in os.listdir(directory) if n.startswith(".tmp-")]  # nothing half-written
    # another directory that is full too is a warning of its own
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "central"))
    saved, messages = _save_all(_caches(mod)[:2])
    assert not any(saved)
    assert len(messages) == 1 and str(tmp_path / "central") in messages[0]


def test_directory_made_read_only_mid_run_warns_once(make_module, monkeypatch):
    mod = make_module(MANY)
    caches = _caches(mod)
    # every function has chosen the directory and written to it ...
    assert all(c.save(SIGS[0], CC, PAYLOAD) for c in caches)
    directory = caches[0].directory
    os.chmod(directory, 0o555)  # ... when it turns read-only
    try:
        probe = os.path.join(directory, ".probe")
        try:
            open(probe, "w").close()
        except PermissionError:
            pass
        else:  # root: the mode does not stop writes; what it would do, then
            os.unlink(probe)

            def denied(*args, **kwargs):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), directory)

            monkeypatch.setattr(tempfile, "mkstemp", denied)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            saved = [c.save(sig, CC, PAYLOAD) for c in caches for sig in SIGS[1:]]
        messages = _cache_warnings(caught)
    finally:
        os.chmod(directory, 0o755)
    assert not any(saved)
    assert len(messages) == 1, messages
    assert repr(directory) in messages[0]
    assert "may not write there" in messages[0] and "read-only while the process ran" in messages[0]
    assert "make it writable again" in messages[0]


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX file owners")
def test_another_users_entries_warn_once_for_reading_and_once_for_writing(make_module, monkeypatch):
    mod = make_module(MANY)
    caches = _caches(mod)
    saved, messages = _save_all(caches)
    assert all(saved) and not messages
    directory = caches[0].directory
    # The entries are now another user's, mode 0600: this process may neither read nor replace
    # them (a shared, sticky directory).  As this test's user owns them, "this user" becomes
    # another uid; what the modes would do is simulated where they do not take effect (root).
    me = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: me + 1)
    real_open = open

    def guarded_open(path, mode="r", *args, **kwargs):
        if str(path).endswith(".nbcu") and "r" in mode:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(entryfile, "open", guarded_open, raising=False)

    def no_replace(src, dst, attempts=5):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), dst)

    monkeypatch.setattr(entryfile, "_replace", no_replace)
    fresh = _caches(mod)
    loaded, read_messages = _load_all(fresh)
    assert loaded == [None] * len(loaded)  # misses: the kernels are compiled again
    assert len(read_messages) == 1, read_messages
    assert f"belong to another user (uid {me})" in read_messages[0]
    assert repr(directory) in read_messages[0] and "read access" in read_messages[0]
    saved, write_messages = _save_all(fresh)
    assert not any(saved)
    assert len(write_messages) == 1, write_messages
    assert f"belong to another user (uid {me})" in write_messages[0]
    assert "may not replace" in write_messages[0] and "NUMBA_CACHE_DIR" in write_messages[0]
    assert not [n for n in os.listdir(directory) if n.startswith(".tmp-")]


def test_entries_behind_a_home_this_user_cannot_enter_are_misses(make_module, monkeypatch, tmp_path):
    """``docker --user``, ``sudo -u``: HOME is not this user's, NUMBA_CACHE_DIR works."""
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "central"))
    mod = make_module(MANY)
    caches = _caches(mod)
    assert any(p.startswith(str(home)) for p in caches[0].locations)
    os.chmod(home, 0)
    try:
        try:
            os.stat(home / ".cache")
        except PermissionError:
            pass
        else:  # root: the mode does not stop it; what it would do, then
            real_stat, real_open = os.stat, open
            inside = str(home) + os.sep

            def stat(path, *args, **kwargs):
                if os.fspath(path).startswith(inside):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
                return real_stat(path, *args, **kwargs)

            def guarded_open(path, *args, **kwargs):
                if os.fspath(path).startswith(inside):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
                return real_open(path, *args, **kwargs)

            monkeypatch.setattr(os, "stat", stat)
            monkeypatch.setattr(entryfile, "open", guarded_open, raising=False)
        loaded, messages = _load_all(caches)
        assert loaded == [None] * len(loaded) and messages == []  # plain misses, no warning
        saved, messages = _save_all(caches)
        assert all(saved) and messages == []
        loaded, messages = _load_all(_caches(mod))
        assert loaded == [PAYLOAD] * len(loaded) and messages == []
    finally:
        os.chmod(home, 0o755)


def test_kernels_compiled_on_a_full_disk_give_one_warning(make_module, monkeypatch):
    """Through ``cuda.jit(cache=True)``, as the issue measured it (17 warnings for 24 kernels)."""
    from numba import cuda

    mod = make_module("\n\n".join(f"def k{n}(x):\n    x[0] = {n}\n" for n in range(4)))
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullFile(fd))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernels = [cuda.jit("void(int64[::1])", cache=True)(getattr(mod, f"k{n}")) for n in range(4)]
    assert all(k.stats.cache_misses for k in kernels)  # compiled, not stored
    messages = _cache_warnings(caught)
    assert len(messages) == 1 and "is full" in messages[0], messages

"""KernelCache: keys, locations, corruption and staleness handling (no compiler needed)."""

import os
import stat
import warnings

import pytest

from numba_cuda.caching import CacheWarning, KernelCache, NullCache
from numba_cuda.caching import entryfile, kernel_cache
from numba_cuda.errors import CacheError

SIG = "(float32, float32)"
CC = (9, 0)
PAYLOAD = {"ptx": ".version 8.0\n.target sm_90\n", "cubin": b"\x7fELF" + bytes(range(256)), "entry": "_Z3add"}


def _cache(fn, **kw):
    kw.setdefault("options_key", (("fastmath", False), ("opt", True)))
    kw.setdefault("toolkit_key", ("nvvm", (2, 0)))
    return KernelCache(fn, **kw)


def test_roundtrip_and_miss(make_module):
    mod = make_module()
    cache = _cache(mod.add)
    assert cache.load(SIG, CC) is None
    assert cache.save(SIG, CC, PAYLOAD) is True
    assert cache.load(SIG, CC) == PAYLOAD
    assert (cache.hits, cache.misses, cache.saves) == (1, 1, 1)
    # A fresh cache object (as in a second process) finds the entry too.
    assert _cache(mod.add).load(SIG, CC) == PAYLOAD


def test_default_location_is_pycache_next_to_source(make_module, tmp_path):
    mod = make_module()
    cache = _cache(mod.add)
    assert cache.directory == str(tmp_path / "src" / "__pycache__")
    cache.save(SIG, CC, PAYLOAD)
    (entry,) = cache.entries()
    assert os.path.dirname(entry) == cache.directory
    assert os.path.basename(entry).startswith(mod.__name__ + ".add.")


def test_numba_cache_dir_wins(make_module, tmp_path, monkeypatch):
    mod = make_module()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "central"))
    cache = _cache(mod.add)
    assert cache.directory.startswith(str(tmp_path / "central"))
    # The source directory is mirrored below NUMBA_CACHE_DIR so equal file names don't collide.
    assert cache.directory.endswith(os.path.join("src"))
    cache.save(SIG, CC, PAYLOAD)
    assert not (tmp_path / "src" / "__pycache__").exists()
    assert _cache(mod.add).load(SIG, CC) == PAYLOAD


def test_unwritable_pycache_falls_back_to_user_cache_dir(make_module, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    # A *file* named __pycache__ makes the directory impossible to create (works as root too).
    (src / "__pycache__").write_text("not a directory")
    mod = make_module(directory=src)
    cache = _cache(mod.add)
    assert cache.directory.startswith(str(tmp_path / "xdg-cache" / "numba-cuda"))
    cache.save(SIG, CC, PAYLOAD)
    assert _cache(mod.add).load(SIG, CC) == PAYLOAD


def test_no_writable_directory_warns_once_and_stores_nothing(make_module, tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "__pycache__").write_text("x")
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: nothing can be created below it
    monkeypatch.setattr(kernel_cache, "_warned_unwritable", set())
    mod = make_module(directory=src)
    cache = _cache(mod.add)  # decorating (importing the module) never fails for the directory
    assert cache.directory is None
    with pytest.warns(CacheWarning, match="no writable cache directory.*NUMBA_CACHE_DIR"):
        assert cache.save(SIG, CC, PAYLOAD) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cache(mod.scale).save(SIG, CC, PAYLOAD) is False  # one warning per process
        assert cache.load(SIG, CC) is None


def _read_only(path):
    """Make ``path`` read-only; None when this process can write it anyway (root)."""
    os.chmod(path, 0o555)
    probe = os.path.join(path, ".probe")
    try:
        open(probe, "w").close()
    except OSError:
        return path
    os.unlink(probe)
    os.chmod(path, 0o755)
    return None


@pytest.mark.parametrize("kind", ["file", "read-only"])
def test_unusable_numba_cache_dir_falls_back_with_one_warning(make_module, tmp_path, monkeypatch, kind):
    central = tmp_path / "central"
    if kind == "file":
        central.write_text("not a directory")
    else:
        central.mkdir()
        if _read_only(central) is None:
            pytest.skip("running as a user who can write read-only directories (root)")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(central))
    monkeypatch.setattr(kernel_cache, "_warned_unwritable", set())
    mod = make_module()
    cache = _cache(mod.add)  # no error at decoration
    try:
        with pytest.warns(CacheWarning, match="not writable.*__pycache__") as caught:
            assert cache.save(SIG, CC, PAYLOAD) is True
            assert _cache(mod.scale).save(SIG, CC, PAYLOAD) is True
        assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1
        assert cache.directory == str(tmp_path / "src" / "__pycache__")
        assert _cache(mod.add).load(SIG, CC) == PAYLOAD
    finally:
        if central.is_dir():
            os.chmod(central, 0o755)


def test_read_only_prewarmed_cache_is_read(make_module, tmp_path, monkeypatch):
    central = tmp_path / "site-cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(central))
    mod = make_module()
    warm = _cache(mod.add)
    warm.save(SIG, CC, PAYLOAD)  # an application ships this cache pre-warmed...
    directory = warm.directory
    for d in (directory, *[str(p) for p in central.rglob("*") if p.is_dir()], str(central)):
        os.chmod(d, 0o555)  # ...installed read-only
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cache = _cache(mod.add)
            assert cache.load(SIG, CC) == PAYLOAD
        assert cache.hits == 1
        assert not (tmp_path / "src" / "__pycache__").exists()  # nothing needed writing
    finally:
        for d in [str(p) for p in central.rglob("*") if p.is_dir()] + [str(central)]:
            os.chmod(d, 0o755)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_entry_files_honour_the_umask(make_module, umask):
    mod = make_module()
    old = os.umask(umask)
    try:
        cache = _cache(mod.add)
        cache.save(SIG, CC, PAYLOAD)
    finally:
        os.umask(old)
    (entry,) = cache.entries()
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o666 & ~umask


def test_closure_contents_are_part_of_the_key(make_module):
    mod = make_module(source="""
        def make(c):
            def k(a):
                a[0] = c
            return k
    """)
    one, two = _cache(mod.make(1.0)), _cache(mod.make(2.0))
    one.save(SIG, CC, PAYLOAD)
    assert two.load(SIG, CC) is None
    assert two.path(SIG, CC) != one.path(SIG, CC)
    assert _cache(mod.make(1.0)).load(SIG, CC) == PAYLOAD  # equal contents: equal key


def test_referenced_global_values_are_part_of_the_key(make_module):
    mod = make_module(source="""
        import numpy as np
        import types
        N = 4
        TABLE = np.arange(3.0)
        consts = types.SimpleNamespace()
        def k(a):
            a[0] = N + TABLE[1]
    """)
    base = _cache(mod.k)
    base.save(SIG, CC, PAYLOAD)
    mod.N = 5  # e.g. computed at import from the environment, or set by another module
    assert _cache(mod.k).load(SIG, CC) is None
    mod.N = 4
    assert _cache(mod.k).load(SIG, CC) == PAYLOAD
    mod.TABLE[1] = 7.0
    assert _cache(mod.k).load(SIG, CC) is None


def test_module_attribute_values_are_part_of_the_key(make_module, tmp_path):
    settings = make_module(source="SCALE = 2\n", name="cachesettings_attr")
    mod = make_module(source="""
        import cachesettings_attr as settings
        def k(a):
            a[0] = settings.SCALE
    """)
    _cache(mod.k).save(SIG, CC, PAYLOAD)
    settings.SCALE = 3
    assert _cache(mod.k).load(SIG, CC) is None


def test_called_function_in_another_file_is_part_of_the_key(make_module, tmp_path):
    helper = make_module(source="def twice(v):\n    return v * 2\n", name="cachehelper_other")
    mod = make_module(source="""
        from cachehelper_other import twice
        def k(a):
            a[0] = twice(a[0])
    """)
    _cache(mod.k).save(SIG, CC, PAYLOAD)
    assert _cache(mod.k).load(SIG, CC) == PAYLOAD
    # Edit the helper's file (a kernel compiles its callees into itself).
    path = helper.__file__
    with open(path, "w") as f:
        f.write("def twice(v):\n    return v * 3\n")
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
    assert _cache(mod.k).load(SIG, CC) is None


def test_function_without_source_is_a_clear_error():
    namespace = {}
    exec("def f(x):\n    return x\n", namespace)
    with pytest.raises(CacheError, match="cannot cache 'f'"):
        KernelCache(namespace["f"])


def test_interactive_source_known_to_linecache(make_module, tmp_path):
    import linecache

    filename = "<numba-cuda-test-cell-1>"
    text = "def cell_fn(x):\n    return x + 1\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    try:
        namespace = {}
        exec(compile(text, filename, "exec"), namespace)
        cache = _cache(namespace["cell_fn"])
        assert cache.directory == str(tmp_path / "xdg-cache" / "numba-cuda" / "interactive")
        cache.save(SIG, CC, PAYLOAD)
        assert _cache(namespace["cell_fn"]).load(SIG, CC) == PAYLOAD
    finally:
        linecache.cache.pop(filename, None)


@pytest.mark.parametrize(
    "change",
    ["signature", "cc", "options", "toolkit", "qualname"],
)
def test_every_key_component_separates_entries(make_module, change):
    mod = make_module()
    base = _cache(mod.add)
    base.save(SIG, CC, PAYLOAD)
    sig, cc, fn, kw = SIG, CC, mod.add, {}
    if change == "signature":
        sig = "(float64, float64)"
    elif change == "cc":
        cc = (8, 0)
    elif change == "options":
        kw["options_key"] = (("fastmath", True), ("opt", True))
    elif change == "toolkit":
        kw["toolkit_key"] = ("nvvm", (2, 1))
    elif change == "qualname":
        fn = mod.scale
    other = _cache(fn, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert other.load(sig, cc) is None
    assert other.path(sig, cc) != base.path(SIG, CC)
    other.save(sig, cc, {"other": True})
    assert base.load(SIG, CC) == PAYLOAD
    assert other.load(sig, cc) == {"other": True}


def test_entry_from_another_package_version_is_ignored(make_module, monkeypatch):
    import numba_cuda

    mod = make_module()
    _cache(mod.add).save(SIG, CC, PAYLOAD)
    monkeypatch.setattr(numba_cuda, "__version__", "999.0.0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cache(mod.add).load(SIG, CC) is None


def test_entry_from_another_numba_version_is_ignored(make_module, monkeypatch):
    import numba

    mod = make_module()
    _cache(mod.add).save(SIG, CC, PAYLOAD)
    monkeypatch.setattr(numba, "__version__", "0.1.0")
    assert _cache(mod.add).load(SIG, CC) is None


def test_entry_copied_under_another_key_is_ignored_silently(make_module):
    # Same file name, different key inside (e.g. a directory copied between toolkits):
    # the key stored in the entry is compared, not just the file name.
    mod = make_module()
    old = _cache(mod.add, toolkit_key=("nvvm", (1, 0)))
    new = _cache(mod.add, toolkit_key=("nvvm", (2, 0)))
    old.save(SIG, CC, PAYLOAD)
    os.replace(old.path(SIG, CC), new.path(SIG, CC))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert new.load(SIG, CC) is None


def test_older_entry_format_is_ignored_silently(make_module):
    mod = make_module()
    cache = _cache(mod.add)
    cache.save(SIG, CC, PAYLOAD)
    path = cache.path(SIG, CC)
    data = bytearray(open(path, "rb").read())
    data[8:12] = (entryfile.FORMAT_VERSION + 1).to_bytes(4, "big")
    open(path, "wb").write(bytes(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.load(SIG, CC) is None


def _truncate_half(data):
    return data[: len(data) // 2]


def _truncate_header(data):
    return data[:20]


def _empty(data):
    return b""


def _flip_payload_byte(data):
    data = bytearray(data)
    data[-10] ^= 0xFF
    return bytes(data)


def _bad_magic(data):
    return b"GARBAGE!" + data[8:]


def _random_junk(data):
    return os.urandom(len(data))


def _valid_frame_bad_pickle(data):
    # Header and checksum are consistent, but the body is not a pickle.
    return entryfile._HEADER.pack(
        entryfile.MAGIC, entryfile.FORMAT_VERSION, 5, __import__("hashlib").sha256(b"hello").digest()
    ) + b"hello"


@pytest.mark.parametrize(
    "damage",
    [_truncate_half, _truncate_header, _empty, _flip_payload_byte, _bad_magic, _random_junk,
     _valid_frame_bad_pickle],
)
def test_corrupt_entry_warns_and_is_a_miss_then_is_replaced(make_module, damage):
    mod = make_module()
    cache = _cache(mod.add)
    cache.save(SIG, CC, PAYLOAD)
    path = cache.path(SIG, CC)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(damage(data))
    with pytest.warns(CacheWarning, match="unusable.*recompiling"):
        assert cache.load(SIG, CC) is None
    # The caller recompiles and saves: the entry is whole again.
    cache.save(SIG, CC, PAYLOAD)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.load(SIG, CC) == PAYLOAD


def test_source_edit_invalidates_and_prunes_old_entries(make_module, tmp_path):
    mod = make_module(name="editable")
    cache = _cache(mod.add)
    cache.save(SIG, CC, PAYLOAD)
    (old_entry,) = cache.entries()
    # Edit the module: any change in the file changes the key.
    mod2 = make_module(
        source="def add(a, b):\n    return a - b\n\n\ndef scale(x, k):\n    return x * k\n",
        name="editable",
    )
    cache2 = _cache(mod2.add)
    assert cache2.load(SIG, CC) is None
    cache2.save(SIG, CC, {"new": 1})
    entries = cache2.entries()
    assert len(entries) == 1 and entries[0] != old_entry
    assert not os.path.exists(old_entry)


def test_unpicklable_payload_warns_once_and_does_not_raise(make_module):
    mod = make_module()
    cache = _cache(mod.add)
    with pytest.warns(CacheWarning, match="could not write"):
        assert cache.save(SIG, CC, {"fn": lambda: 1}) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.save(SIG, CC, {"fn": lambda: 2}) is False  # no second warning
    assert cache.entries() == []
    assert not [n for n in os.listdir(cache.directory) if n.startswith(".tmp-")]


def test_toolkit_key_callable_is_evaluated_once_and_lazily(make_module):
    mod = make_module()
    calls = []

    def toolkit_key():
        calls.append(1)
        return ("nvvm", (2, 0))

    cache = KernelCache(mod.add, toolkit_key=toolkit_key)
    assert calls == []
    cache.save(SIG, CC, PAYLOAD)
    assert cache.load(SIG, CC) == PAYLOAD
    assert calls == [1]
    assert _cache(mod.add, options_key=()).load(SIG, CC) == PAYLOAD


def test_clear_removes_only_this_functions_entries(make_module):
    mod = make_module()
    add, scale = _cache(mod.add), _cache(mod.scale)
    add.save(SIG, CC, PAYLOAD)
    add.save(SIG, (8, 0), PAYLOAD)
    scale.save(SIG, CC, PAYLOAD)
    assert add.clear() == 2
    assert add.entries() == []
    assert scale.load(SIG, CC) == PAYLOAD


def test_null_cache_stores_nothing():
    cache = NullCache()
    assert not cache.enabled
    assert cache.save(SIG, CC, PAYLOAD) is False
    assert cache.load(SIG, CC) is None


def test_odd_globals_never_break_the_key(make_module):
    mod = make_module(source="""
        class Shy:
            def __repr__(self):
                raise RuntimeError("no repr")
        LOOP = [1, 2]
        LOOP.append(LOOP)
        ODD = {Shy(), 1}
        def k(a):
            a[0] = len(LOOP) + len(ODD)
    """)
    cache = _cache(mod.k)
    cache.save(SIG, CC, PAYLOAD)
    # the same objects give the same key in this process (an unreadable value keys on its identity)
    assert _cache(mod.k).load(SIG, CC) == PAYLOAD

"""KernelCache: keys, locations, corruption and staleness handling (no compiler needed)."""

import os
import warnings

import pytest

from numba_cuda.caching import CacheWarning, KernelCache, NullCache
from numba_cuda.caching import entryfile
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


def test_no_writable_directory_is_a_clear_error(make_module, tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "__pycache__").write_text("x")
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: nothing can be created below it
    mod = make_module(directory=src)
    with pytest.raises(CacheError, match="NUMBA_CACHE_DIR"):
        _cache(mod.add)


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

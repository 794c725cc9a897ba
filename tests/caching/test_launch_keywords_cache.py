"""``cache=True`` kernels launched with keywords and defaults: binding happens before the cache
is asked, so a keyword launch, a launch relying on defaults and the positional launch of the
same types are one cache entry (fake driver, in process)."""

import struct

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches

SOURCE = '''
from numba import cuda


@cuda.jit(cache=True)
def k(a, n=3, scale=0.5):
    a[0] = n * scale
'''


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def _entries(module):
    from pathlib import Path

    cache = Path(module.__file__).parent / "__pycache__"
    return sorted(p.name for p in cache.iterdir() if p.suffix == ".nbcu") if cache.exists() else []


def test_keyword_default_and_positional_launches_share_one_entry(make_module, fake):
    from numba import cuda

    mod = make_module(source=SOURCE)
    a = cuda.to_device(np.zeros(4, np.float32))
    mod.k[1, 1](a, scale=0.25)
    (argtypes,) = mod.k.overloads
    assert [str(t) for t in argtypes[1:]] == ["int64", "float64"]
    assert sum(mod.k.stats.cache_misses.values()) == 1
    assert len(_entries(mod)) == 1
    first = fake.launches[-1]["params"]

    # fresh dispatchers of the same function, as in a new process: each loads that entry
    for launch in (lambda k: k[1, 1](a, 3, 0.25), lambda k: k[1, 1](a, scale=0.25),
                   lambda k: k[1, 1](scale=0.25, a=a)):
        fresh = cuda.jit(cache=True)(mod.k.py_func)
        launch(fresh)
        (ovl,) = fresh.overloads.values()
        assert type(ovl).__name__ == "CachedKernel"
        assert sum(fresh.stats.cache_hits.values()) == 1
        assert fake.launches[-1]["params"] == first
    defaults_only = cuda.jit(cache=True)(mod.k.py_func)
    defaults_only[1, 1](a)
    assert type(next(iter(defaults_only.overloads.values()))).__name__ == "CachedKernel"
    n, scale = struct.unpack("<qd", b"".join(fake.launches[-1]["params"][-2:]))
    assert (n, scale) == (3, 0.5)
    assert len(_entries(mod)) == 1

"""Fixtures for the caching tests: functions defined in real source files under tmp_path."""

import importlib.util
import itertools
import sys
import textwrap

import pytest

_counter = itertools.count()

SAMPLE_SOURCE = '''
def add(a, b):
    return a + b


def scale(x, k):
    return x * k
'''


def _load_module(directory, source=SAMPLE_SOURCE, name=None):
    name = name or f"cachesample_{next(_counter)}"
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def make_module(tmp_path, monkeypatch):
    """``make_module(source=..., directory=...)``: write a module file and import it.

    NUMBA_CACHE_DIR is cleared and the user cache directory moved under tmp_path, so
    nothing outside tmp_path is written.
    """
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", "", raising=False)

    def make(source=SAMPLE_SOURCE, directory=None, name=None):
        directory = directory or (tmp_path / "src")
        directory.mkdir(parents=True, exist_ok=True)
        return _load_module(directory, source, name)

    return make


@pytest.fixture(autouse=True)
def _fresh_cache_warnings(monkeypatch):
    """Each test starts with no cache warning given yet (they are once per process and cause)."""
    from numba_cuda.caching import kernel_cache

    monkeypatch.setattr(kernel_cache, "_warned_causes", set())

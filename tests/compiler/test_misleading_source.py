"""Where ``inspect`` finds lines that are not a function's source, every reader of kernel sources
answers as for a function without one: a kernel compiled from a string under another file's
name (as ``exec(compile(code, page, "exec"))`` of a documentation page's example), where the
lines found do not even tokenize (Python 3.12+'s tokenizer raises ``TokenError`` for them,
3.11's for an unterminated triple quote), and a function compiled from a string (``<string>``)
while linecache holds other lines under that name (Python 3.13 keeps the ``python -c`` program
there).  The simulator's source transform refuses the first (the launch then takes the
untransformed path) and the debug-info ``def`` line finder finds none; ``cache=True`` of the
second is a clear error instead of a cache keyed by unrelated text."""

import linecache

import numpy as np
import pytest

from numba_cuda.caching.locator import SourceInfo
from numba_cuda.compiler import source_files
from numba_cuda.errors import CacheError
from numba_cuda.simulator import transform


@pytest.fixture
def misnamed(tmp_path):
    """A function whose code names a file whose lines at its first line do not tokenize."""
    other = tmp_path / "page.rst"
    other.write_text('x = """\nnot python\n')
    namespace = {}
    exec(compile("def kernel(a):\n    a[0] = 1\n", str(other), "exec"), namespace)
    linecache.checkcache(str(other))
    return namespace["kernel"]


@pytest.fixture
def from_a_string():
    """A function compiled from a string while linecache holds other lines as ``<string>``."""
    text = "print('a -c program')\nprint('of two lines')\n"
    saved = linecache.cache.get("<string>")
    linecache.cache["<string>"] = (len(text), None, text.splitlines(True), "<string>")
    namespace = {}
    exec("def kernel(a):\n    a[0] = 1\n", namespace)
    yield namespace["kernel"]
    if saved is None:
        linecache.cache.pop("<string>", None)
    else:
        linecache.cache["<string>"] = saved


def test_the_simulator_transform_refuses_it(misnamed):
    with pytest.raises(transform.TransformError, match="source of kernel is not available"):
        transform._parse(misnamed)


def test_the_def_line_finder_finds_none(misnamed):
    assert source_files._function_node(misnamed) is None


def test_caching_it_is_a_clear_error(from_a_string):
    with pytest.raises(CacheError, match="cannot cache 'kernel'"):
        SourceInfo.of(from_a_string)


def test_the_simulator_still_runs_it(misnamed, monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    from numba_cuda.simulator import api as sim

    a = np.zeros(2, np.int64)
    sim.jit(misnamed)[1, 1](a)
    assert a[0] == 1

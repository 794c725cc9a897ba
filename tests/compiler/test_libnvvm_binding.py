"""libNVVM through our ctypes binding (``numba_cuda.toolkit.libnvvm``) against NVIDIA's
``cuda.bindings.nvvm`` on the same library: the same PTX and LTO-IR for every corpus entry, the
same answers and failures; and a process's first compile imports neither ``cuda.bindings`` nor
``cuda.pathfinder`` (~25 ms that every first compile paid)."""

import json

import pytest

from tests.compiler.test_corpus_ptxas import CORPUS


@pytest.fixture(scope="module")
def theirs():
    from numba_cuda import toolkit

    toolkit.load_library("nvvm")  # as before: the bindings then use the library discovery chose
    from cuda.bindings import nvvm

    return nvvm


@pytest.fixture(scope="module")
def ours():
    from numba_cuda.compiler import nvvm

    return nvvm.bindings()


def _compile_with(monkeypatch, binding, *args, **kwargs):
    from numba_cuda.compiler import nvvm

    with monkeypatch.context() as m:
        m.setattr(nvvm, "bindings", lambda: binding)
        return nvvm.compile_ir(*args, **kwargs)


def _recorded_programs(monkeypatch, cuda, fn, sig, device):
    """The ``compile_ir`` calls compiling ``fn`` for sm_90 makes."""
    from numba_cuda.compiler import nvvm

    calls = []
    real = nvvm.compile_ir

    def record(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(nvvm, "compile_ir", record)
        cuda.compile_ptx(fn, sig, device=device, cc=(9, 0))
    assert calls
    return calls


@pytest.mark.parametrize("fn, sig, device", CORPUS)
def test_same_ptx_as_cuda_bindings(cuda, monkeypatch, ours, theirs, fn, sig, device):
    for args, kwargs in _recorded_programs(monkeypatch, cuda, fn, sig, device):
        assert (_compile_with(monkeypatch, ours, *args, **kwargs)
                == _compile_with(monkeypatch, theirs, *args, **kwargs))


def test_same_ltoir_as_cuda_bindings(cuda, monkeypatch, ours, theirs):
    fn, sig, device = CORPUS[0].values
    args, kwargs = _recorded_programs(monkeypatch, cuda, fn, sig, device)[0]
    kwargs = dict(kwargs, gen_lto=True)
    got = _compile_with(monkeypatch, ours, *args, **kwargs)
    assert isinstance(got, bytes) and got
    assert got == _compile_with(monkeypatch, theirs, *args, **kwargs)


def test_same_versions(ours, theirs):
    assert tuple(ours.version()) == tuple(theirs.version())
    assert tuple(ours.ir_version()) == tuple(theirs.ir_version())


BROKEN = [
    pytest.param([("bad", "this is not NVVM IR")], "compute_90", (), id="not-ir"),
    pytest.param(None, "compute_90", ("-no-such-option",), id="bad-option"),
    pytest.param(None, "compute_999", (), id="bad-arch"),
    pytest.param([], "compute_90", (), id="no-module"),
]


def _error_text(monkeypatch, binding, modules, arch, options):
    from numba_cuda.compiler import nvvm
    from numba_cuda.errors import NvvmError

    if modules is None:
        modules = [("empty", nvvm._empty_module_text())]
    with pytest.raises(NvvmError) as info:
        _compile_with(monkeypatch, binding, modules, arch, options)
    return str(info.value)


@pytest.mark.parametrize("modules, arch, options", BROKEN)
def test_same_failures_as_cuda_bindings(monkeypatch, ours, theirs, modules, arch, options):
    text = _error_text(monkeypatch, ours, modules, arch, options)
    assert text == _error_text(monkeypatch, theirs, modules, arch, options)
    assert text.startswith("libNVVM failed ") and "ERROR_" in text


def test_error_names_the_status(ours):
    from numba_cuda.toolkit.libnvvm import nvvmError

    assert str(nvvmError(9)) == "ERROR_COMPILATION (9)"
    assert nvvmError(9).status == 9
    assert ours.nvvmError is nvvmError


def test_arch_probe_same_as_cuda_bindings(monkeypatch, ours, theirs):
    from numba_cuda.compiler import nvvm

    for arch in ("compute_90", "compute_999", "banana"):
        answers = []
        for binding in (ours, theirs):
            nvvm._accepts_arch.cache_clear()
            with monkeypatch.context() as m:
                m.setattr(nvvm, "bindings", lambda b=binding: b)
                answers.append(nvvm.accepts_arch(arch))
        nvvm._accepts_arch.cache_clear()
        assert answers[0] == answers[1], arch
    assert nvvm.accepts_arch("compute_90") is True


def test_first_compile_imports_neither_cuda_bindings_nor_pathfinder(run_python):
    proc = run_python("""
import json, sys
from numba import cuda, float32, void

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

ptx, _ = cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
from numba_cuda.toolkit import get_toolkit
print(json.dumps({"entry": ".entry" in ptx,
                  "loaded": [m for m in ("cuda.bindings.nvvm", "cuda.pathfinder") if m in sys.modules],
                  "version": get_toolkit().components["nvvm"].loaded_version}))
""")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["entry"] is True
    assert out["loaded"] == []
    assert out["version"].startswith("NVVM ")

"""The first compile of a process loads libNVVM and checks the cc before the front end runs, on
the caller's thread (a helper thread running it beside the front end was slower: both hold the
GIL): a bad cc or a missing libNVVM is the error even for a function the front end refuses, and
no thread is started.  Each case runs in a fresh interpreter, where it is the first compile."""

import json

import pytest

PRELUDE = """
import json, threading
from numba import cuda, int64, void

def ok(a):
    a[0] = 1

def untyped(a):
    a[0] = undefined_name

started = []
_start = threading.Thread.start

def _counting_start(self):
    started.append(self.name)
    return _start(self)

threading.Thread.start = _counting_start

def report(**kw):
    kw["threads"] = threading.active_count()
    kw["started"] = started
    print(json.dumps(kw))
"""


def _run(run_python, body):
    proc = run_python(PRELUDE + body)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_first_compile_gives_ptx_and_leaves_no_thread(run_python):
    out = _run(run_python, """
ptx, _ = cuda.compile_ptx(ok, void(int64[::1]), cc=(8, 0))
report(target=".target sm_80" in ptx, entry=".entry" in ptx)
""")
    assert out == {"target": True, "entry": True, "threads": 1, "started": []}


def test_first_compile_default_cc(run_python):
    out = _run(run_python, """
from numba_cuda.compiler import capability
ptx, _ = cuda.compile_ptx(ok, void(int64[::1]))
cc = capability.lowest_supported_cc()
report(ok=f".target sm_{cc[0]}{cc[1]}" in ptx)
""")
    assert out == {"ok": True, "threads": 1, "started": []}


@pytest.mark.parametrize("fn", ["ok", "untyped"])
def test_bad_cc_wins_over_front_end_errors_on_first_compile(run_python, fn):
    out = _run(run_python, f"""
from numba_cuda.compiler.capability import UnsupportedCCError
try:
    cuda.compile_ptx({fn}, void(int64[::1]), cc=(9, 9))
    report(error=None)
except UnsupportedCCError as exc:
    report(error="UnsupportedCCError", text=str(exc))
""")
    assert out["error"] == "UnsupportedCCError"
    assert "9.9 is not supported" in out["text"]
    assert out["threads"] == 1 and out["started"] == []


def test_malformed_cc_fails_before_compiling(run_python):
    out = _run(run_python, """
from numba_cuda.compiler.capability import UnsupportedCCError
from numba_cuda.compiler import nvvm
try:
    cuda.compile_ptx(untyped, void(int64[::1]), cc="banana")
except UnsupportedCCError as exc:
    report(error=str(exc), loaded=nvvm.is_loaded())
""")
    assert "malformed" in out["error"]
    assert out["loaded"] is False


def test_front_end_error_surfaces_when_cc_is_good(run_python):
    out = _run(run_python, """
from numba.core.errors import TypingError
try:
    cuda.compile_ptx(untyped, void(int64[::1]), cc=(8, 0))
except TypingError as exc:
    report(error="TypingError", named="undefined_name" in str(exc))
""")
    assert out == {"error": "TypingError", "named": True, "threads": 1, "started": []}


def test_missing_nvvm_wins_over_front_end_errors(run_python):
    out = _run(run_python, """
import os
os.environ["NUMBA_CUDA_DISABLE_SOURCES"] = "all"
from numba_cuda.errors import ToolkitError
try:
    cuda.compile_ptx(untyped, void(int64[::1]), cc=(8, 0))
except ToolkitError as exc:
    report(error="ToolkitError", nvvm="libNVVM" in str(exc))
""")
    assert out == {"error": "ToolkitError", "nvvm": True, "threads": 1, "started": []}


def test_a_kernel_that_links_nothing_imports_no_linking_module(run_python, tmp_path):
    # the linking package (nvJitLink, NVRTC, file kinds: ~1.5 ms) is imported on the first
    # compile only for a kernel with something to link, where it decides whether to use LTO
    source = tmp_path / "one.cu"
    source.write_text('extern "C" __device__ int one(int *out) { *out = 1; return 0; }\n')
    out = _run(run_python, f"""
import sys
ptx, _ = cuda.compile_ptx(ok, void(int64[::1]), cc=(8, 0))
before = sorted(m for m in sys.modules if m.startswith("numba_cuda.linking"))
from numba_cuda.compiler.kernel import CompiledKernel
from numba_cuda.compiler.pipeline import CompileOptions, compile_cuda
one = cuda.declare_device("one", "int32()", link={str(source)!r})

def calls(a):
    a[0] = one()

cres = compile_cuda(calls, None, (int64[::1],), CompileOptions.from_user())
kernel = CompiledKernel(cres, CompileOptions.from_user())
report(before=before, linked="numba_cuda.linking" in sys.modules, lto=kernel.lto,
       files=len(kernel.link_files))
""")
    assert out["before"] == []
    assert out["linked"] is True and out["files"] == 1 and out["lto"] is False

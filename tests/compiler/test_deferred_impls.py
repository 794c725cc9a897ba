"""Numba's array/string/inlining implementation modules imported on demand
(``compiler.deferred_impls``): the tables are what Numba's modules register; a first compile
that needs none of them does not import them; and every compile -- the whole corpus, kernels
that need them, extensions registered before and after the first compile, user code importing
them -- gives the same NVVM IR and PTX as importing them eagerly.  Each side runs in a fresh
interpreter, where the first refresh is the eager point."""

import json
import pathlib

import pytest

from numba_cuda.compiler.deferred_impls import DEFERRED_MODULES

TESTS_ROOT = pathlib.Path(__file__).resolve().parents[1]

RECORD = """
import json, sys
from numba_cuda.compiler import deferred_impls, nvvm
deferred_impls.ENABLED = {enabled}
_programs = []
_real_compile_ir = nvvm.compile_ir

def _recording(modules, *args, **kwargs):
    out = _real_compile_ir(modules, *args, **kwargs)
    _programs.append({{"ir": [[n, t if isinstance(t, str) else t.decode()] for n, t in modules],
                       "ptx": out if isinstance(out, str) else out.hex()}})
    return out

nvvm.compile_ir = _recording

def _loaded():
    return [m for m in deferred_impls.DEFERRED_MODULES if m in sys.modules]

def _done(**extra):
    print("RESULT" + json.dumps(dict(extra, programs=_programs)))
"""


def _run(run_python, body, enabled):
    # (constant strings are named after their hash(): the same seed on both sides)
    proc = run_python(RECORD.format(enabled=enabled) + body, timeout=600,
                      env={"PYTHONHASHSEED": "0"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


def _both(run_python, body):
    deferred = _run(run_python, body, True)
    eager = _run(run_python, body, False)
    assert len(deferred["programs"]) == len(eager["programs"])
    for got, want in zip(deferred["programs"], eager["programs"]):
        assert got["ir"] == want["ir"]
        assert got["ptx"] == want["ptx"]
    return deferred, eager


def test_tables_are_what_numba_registers(run_python):
    proc = run_python("""
import json
from numba import cuda
from numba.core.target_extension import target_override
from numba_cuda.compiler import deferred_impls, _deferred_impls_table as table
from numba_cuda.compiler.target import cuda_target
cuda.compile_ptx  # the dispatch layer, as every compile has it
with target_override("cuda"):
    cuda_target.target_context.refresh()  # the eager point
assert not deferred_impls.any_imported()
tables, unnamed = deferred_impls.describe_registrations()
def named(spec):
    try:
        deferred_impls.resolve(spec)
    except (LookupError, AttributeError, ImportError):
        return False
    return True
# (a key naming what this NumPy lacks -- numpy.row_stack, gone in 2.5 -- Numba does not register)
expected = {"MODULES": tuple(sorted(deferred_impls.DEFERRED_MODULES)),
            "LOWERING": table.LOWERING,
            "TYPING_KEYS": tuple(k for k in table.TYPING_KEYS if named(k)),
            "ATTRIBUTES": table.ATTRIBUTES}
def norm(name, value):
    if name == "LOWERING":
        return {k: sorted(map(repr, v)) for k, v in value.items()}
    return sorted(map(repr, value))
print(json.dumps({
    "differ": [n for n in expected if norm(n, tables[n]) != norm(n, expected[n])],
    "unnamed_outside": sorted({str(u[2]) for u in unnamed} - set(deferred_impls.DEFERRED_MODULES)),
    "resolved": len(deferred_impls.tables().typing_keys),
}))
""")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # regenerate numba_cuda/compiler/_deferred_impls_table.py if Numba changed what it registers
    assert out["differ"] == []
    # a key only a deferred module can name cannot be looked up before it is imported
    assert out["unnamed_outside"] == []
    assert out["resolved"] > 30


def test_first_compile_imports_none_of_them(run_python):
    out = _run(run_python, """
from numba import cuda, float32, float64, int64, void

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

def over_length(a, m):  # len() of arrays: array_access's, not numba.np.arrayobj's
    for i in range(len(a)):
        a[i] = m[i, 0] + len(m)

def views(dst, src, m, i, step):  # basic slicing: array_access's views
    s = src[1:-1:2]
    d = dst[:s.size]
    d[0] = s[i] + m[i][0] + m[:, i][0] + m[i, 1:][0] + src[::step][0] + m[1:, ::-1][0, 0]
    d[1:][0] = len(m[i])

def iteration(out, a, m):  # iterating over arrays: array_access's iterators
    s = 0.0
    for v in a:
        s += v
    for k, v in enumerate(a):
        s += k * v
    for row in m:
        for v in row:
            s += v
    out[0] = s

cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
cuda.compile_ptx(over_length, void(float32[::1], float32[:, :]), cc=(9, 0))
cuda.compile_ptx(views, void(float32[::1], float32[:], float32[:, ::1], int64, int64), cc=(9, 0))
cuda.compile_ptx(iteration, void(float64[::1], float32[::1], float64[:, :]), cc=(9, 0))
_done(loaded=_loaded(),
      cffi=[m for m in ("cffi", "numba.core.typing.cffi_utils") if m in sys.modules])
""", True)
    assert out["loaded"] == []
    # typeof() is not asked about the ``cuda`` module or the stubs (it imports cffi_utils, and
    # cffi when installed, before failing for them)
    assert out["cffi"] == []


def test_corpus_same_ir_and_ptx_as_eager(run_python):
    deferred, eager = _both(run_python, f"""
from numba import cuda
sys.path.insert(0, {str(TESTS_ROOT.parent)!r})
from tests.support import corpus
entries = corpus.entries("bench")
failed = []
for name, fn, sig, dev in entries:
    try:
        cuda.compile_ptx(fn, sig, device=dev, cc=(9, 0))
    except Exception as exc:
        failed.append([name, type(exc).__name__, str(exc)])
_done(failed=failed, count=len(entries))
""")
    assert deferred["count"] >= 40
    assert deferred["failed"] == eager["failed"]


KERNELS = """
import numpy as np
from numba import cuda, float32, float64, int32, int64, void, types

def slicing(a):
    b = a[1:]
    b[0] = a.ndim + a.itemsize + len(a)

def iterate(a, out):
    s = 0.0
    for x in a:
        s += x
    out[0] = s

def transpose_read(a, out):
    out[0] = a.T[0, 1]

def shared(a):
    sm = cuda.shared.array(32, float32)
    sm[cuda.threadIdx.x] = a[cuda.threadIdx.x]
    cuda.syncthreads()
    a[cuda.threadIdx.x] = sm[31 - cuda.threadIdx.x]

def strided(a):
    a[::2][0] = 1

def not_typed(a):
    a[0] = a.nonexistent_attribute

def allocates(a):
    b = np.empty(3)
    a[0] = b[0]

@cuda.jit(device=True, inline="always")
def dev_inline(x):
    return x * 2

def inlines(a):
    a[0] = dev_inline(a[1])

def plain(a):
    a[0] = 1

def tuple_contains(a, i):
    a[0] = 1 if i in (2, 3) else 3   # Numba's in_seq (numba.cpython.listobj)

def string_length(a):
    a[0] = len("abc")

def string_compare(a, i):
    s = "ab" if i > 0 else "cd"
    a[0] = 1 if s == "ab" else 0

CASES = [(tuple_contains, void(int32[::1], int32)), (string_length, void(int64[::1])), (string_compare, void(int64[::1], int64)),
         (slicing, void(float32[::1])), (iterate, void(float64[::1], float64[::1])),
         (transpose_read, void(float32[:, ::1], float32[::1])), (shared, void(float32[::1])),
         (strided, void(int32[::1])), (not_typed, void(int32[::1])),
         (allocates, void(float64[::1])), (inlines, void(int64[::1])), (plain, void(int64[::1]))]

def compile_all(order):
    errors = []
    for fn, sig in order:
        try:
            cuda.compile_ptx(fn, sig, cc=(9, 0))
            errors.append(None)
        except Exception as exc:
            errors.append([type(exc).__name__, str(exc)])
    return errors
"""


@pytest.mark.parametrize("first", ["plain", "slicing", "not_typed", "inlines", "shared"])
def test_kernels_needing_them_same_as_eager(run_python, first):
    deferred, eager = _both(run_python, KERNELS + f"""
order = [c for c in CASES if c[0].__name__ == {first!r}] + CASES
errors = compile_all(order)
_done(errors=errors, loaded=_loaded())
""")
    assert deferred["errors"] == eager["errors"]
    assert deferred["errors"][-4] is not None  # not_typed: a typing error ...
    assert "nonexistent_attribute" in deferred["errors"][-4][1]
    assert deferred["errors"][-3] is not None  # ... and np.empty without the NRT


def test_lowering_registered_after_the_first_compile_wins_as_in_eager(run_python):
    # Numba's arrayobj registers lower_getattr(types.Array, "itemsize"); one registered later
    # (after the eager point) takes precedence, with the deferral as without it
    deferred, eager = _both(run_python, KERNELS + """
from numba.core.imputils import lower_getattr
cuda.compile_ptx(plain, void(int64[::1]), cc=(9, 0))

@lower_getattr(types.Array, "itemsize")
def itemsize_42(context, builder, typ, value):
    return context.get_constant(types.intp, 42)

def uses_itemsize(a):
    a[0] = a.itemsize

cuda.compile_ptx(uses_itemsize, void(int64[::1]), cc=(9, 0))
_done(loaded=_loaded())
""")
    assert ", 42;" in deferred["programs"][-1]["ptx"]  # the later registration's value


def test_user_imports_numba_modules_after_the_first_compile(run_python):
    deferred, eager = _both(run_python, KERNELS + """
cuda.compile_ptx(plain, void(int64[::1]), cc=(9, 0))
import numba.np.arrayobj  # noqa: F401  (user code importing Numba's modules itself)
import numba.cpython.unicode  # noqa: F401
errors = compile_all(CASES)
_done(errors=errors)
""")
    assert deferred["errors"] == eager["errors"]


@pytest.mark.parametrize("module", ["numba.cpython.unicode", "numba.np.arrayobj"])
def test_user_imports_numba_modules_before_the_first_compile(run_python, module):
    # (numba.np.arrayobj: extension code importing make_array; cffi's lowering imports it too)
    out = _run(run_python, KERNELS + f"""
import {module}  # noqa: F401
errors = compile_all(CASES)
from numba_cuda.compiler.target import cuda_target
_done(errors=errors, deferral=cuda_target.target_context._deferral is not None,
      loaded=_loaded())
""", True)
    assert out["deferral"] is False  # already imported at the eager point: nothing deferred
    # ... and everything the deferred load imports is imported, as at the eager point:
    # tuple_contains needs numba.cpython.listobj, which only inline_closurecall imports
    assert out["errors"][0] is None, out["errors"][0]
    assert sorted(out["loaded"]) == sorted(DEFERRED_MODULES)


def test_cuda_overloads_for_arrays_same_as_eager(run_python):
    deferred, eager = _both(run_python, KERNELS + """
from numba.core.extending import overload, overload_method
cuda.compile_ptx(plain, void(int64[::1]), cc=(9, 0))

@overload_method(types.Array, "take", target="cuda")
def array_take(a, i):
    def impl(a, i):
        return a[i] * 3
    return impl

def my_abs(x):
    pass

@overload(my_abs, target="cuda")
def my_abs_impl(x):
    def impl(x):
        return -x if x < 0 else x
    return impl

def uses_them(a):
    a[0] = a.take(1) + my_abs(a[2])

cuda.compile_ptx(uses_them, void(int64[::1]), cc=(9, 0))
_done()
""")
    assert len(deferred["programs"]) == 2


def test_deferral_does_not_change_the_cpu_target(run_python):
    proc = run_python("""
import numba, numpy as np
from numba import cuda, int64, void

def plain(a):
    a[0] = 1

cuda.compile_ptx(plain, void(int64[::1]), cc=(9, 0))

@numba.njit
def f(a):
    return a[1:].sum() + len(a), "x".upper()

print(f(np.arange(4)))
""")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "(10, 'X')"


def test_lowering_registered_before_the_first_compile_loses_as_in_eager(run_python):
    # registered before the eager point, the same signature is then registered again by
    # Numba's arrayobj, which takes precedence: with the deferral too
    deferred, eager = _both(run_python, KERNELS + """
from numba.core.imputils import lower_getattr

@lower_getattr(types.Array, "itemsize")
def itemsize_42(context, builder, typ, value):
    return context.get_constant(types.intp, 42)

def uses_itemsize(a):
    a[0] = a.itemsize

cuda.compile_ptx(uses_itemsize, void(int64[::1]), cc=(9, 0))
_done()
""")
    assert ", 42;" not in deferred["programs"][-1]["ptx"]  # Numba's: the array's itemsize field

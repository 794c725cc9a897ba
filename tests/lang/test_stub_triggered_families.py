"""The families of ``lang.STUB_TRIGGERED_FAMILIES`` are imported only when a kernel names one of
their stubs (``typing_context.DEFERRED_FAMILIES``).  That is safe only while nothing reaches
their registrations without typing such a stub first; the first tests check it against the
registries themselves, the last one compiles a kernel per family in a process that defers them
and in one that imported them all at start, and compares the PTX."""

import importlib
import json
import re
import types as pytypes

import pytest

from numba_cuda.compiler import typing_context
from numba_cuda.lang import FAMILY_MODULES, STUB_TRIGGERED_FAMILIES

FAMILIES = sorted(STUB_TRIGGERED_FAMILIES)


def _is_family_private(value, family):
    """A type (class or instance) that ``family`` itself defines: only its templates make one."""
    cls = value if isinstance(value, type) else type(value)
    return getattr(cls, "__module__", None) == family


def test_every_family_is_listed_and_deferred():
    for family in FAMILIES:
        assert family in FAMILY_MODULES, family
        assert typing_context.DEFERRED_FAMILIES[family] == family


@pytest.mark.parametrize("family", FAMILIES)
def test_registrations_are_keyed_by_the_trigger_stubs(family):
    module = importlib.import_module(family)
    triggers = {id(v) for v in typing_context.stub_trigger_values(family)}
    typing_registry, lowering_registry = module.typing_registry, module.lowering_registry
    registered = set()
    for value, _ty in typing_registry.globals:
        assert id(value) in triggers, f"{family} types {value!r}, which is not a trigger"
        registered.add(id(value))
    for template in typing_registry.functions:
        assert id(template.key) in triggers, f"{family}: template {template} keyed by {template.key!r}"
    for template in typing_registry.attributes:
        assert _is_family_private(template.key, family), (
            f"{family}: attribute template on {template.key!r}, a type other code can make")
    for _impl, key, sig in lowering_registry.functions:
        if isinstance(key, str):  # a method ("GridGroup.sync"): lowered for its receiver's type
            assert sig and _is_family_private(sig[0], family), (family, key, sig)
        else:
            assert id(key) in triggers, f"{family} lowers {key!r}, which is not a trigger"
    for _impl, attr, sig in (*lowering_registry.getattrs, *lowering_registry.setattrs):
        assert _is_family_private(sig[0], family), (family, attr, sig)
    for _impl, sig in (*lowering_registry.casts, *lowering_registry.constants):
        assert all(_is_family_private(t, family) for t in (sig if isinstance(sig, tuple) else (sig,))), (
            family, sig)
    # and the table names no stub another family types (a namespace is typed by Numba as a
    # module; a member no family types, such as ``cuda.cg.GridGroup``, is an error either way)
    named = {id(v) for v in typing_context.stub_trigger_values(family)
             if not isinstance(v, pytypes.ModuleType)}
    assert registered <= named
    for other in (*typing_context.COMPILER_FAMILIES, *FAMILY_MODULES):
        if other == family or other == "numba_cuda.lang.cffi_buffers":  # (needs cffi)
            continue
        others = {id(v) for v, _ty in importlib.import_module(other).typing_registry.globals}
        assert not (named - registered) & others, f"{family}'s triggers include {other}'s stubs"


def _context_hooks():
    """The names the compiler's contexts look up in the installed family modules
    (``getattr(module, "make_constant_array", None)`` ...), read from the compiler's sources."""
    import pathlib

    import numba_cuda.compiler

    names = set()
    for path in pathlib.Path(numba_cuda.compiler.__file__).parent.glob("*.py"):
        names.update(re.findall(r'getattr\(module, "(\w+)"', path.read_text()))
    return names


def test_no_deferred_family_defines_a_context_hook():
    """A hook is looked for in the families installed when it is needed (a global array read in
    a kernel asks for ``make_constant_array``, the data model manager runs every
    ``register_data_models`` once, when built): a deferred family's would be missed."""
    hooks = _context_hooks()
    assert {"make_constant_array", "register_data_models", "lower_value_stub"} <= hooks
    for family in FAMILIES:
        module = importlib.import_module(family)
        assert not [name for name in hooks if hasattr(module, name)], family


IMPORT_SIDE_EFFECTS = """
import importlib, json, sys
from numba import cuda
import numba_cuda.dispatch.api
from numba.core import imputils
from numba.core.datamodel import registry as datamodels
from numba.core.typing import templates
from numba.core.typing.typeof import typeof_impl

def state():
    return {"typing": [len(getattr(templates.builtin_registry, n))
                       for n in ("functions", "attributes", "globals")],
            "lowering": [len(getattr(imputils.builtin_registry, n))
                         for n in ("functions", "getattrs", "setattrs", "casts", "constants")],
            "typeof": len(typeof_impl.registry),
            "models": set(datamodels.default_manager._handlers)}

before = state()
family = sys.argv[1] if len(sys.argv) > 1 else {family!r}
importlib.import_module(family)
after = state()
new_models = [getattr(t, "__module__", None) for t in after.pop("models") - before.pop("models")]
print(json.dumps({"same": before == after, "before": before, "after": after,
                  "new_model_modules": new_models}))
"""


@pytest.mark.parametrize("family", FAMILIES)
def test_importing_a_family_registers_nothing_global(run_python, family):
    """Deferring the import must not defer anything other code relies on: the family adds nothing
    to Numba's global typing and lowering registries or ``typeof``, and data models only for its
    own types."""
    proc = run_python(IMPORT_SIDE_EFFECTS.replace("{family!r}", repr(family)))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["same"], out
    assert all(m == family for m in out["new_model_modules"]), out


KERNELS = """
import json, re, sys
import numpy as np
{eager}
from numba import cuda, float32, int32, uint32, void
from numba.types import float16
from numba.cuda import atomic

FAMILIES = {families!r}
CONST = np.arange(8, dtype=np.float32)

def loaded():
    return sorted(f for f in FAMILIES if f in sys.modules)

def plain(a, b):
    a[0] = b[0] + 1

def memory(a):
    s = cuda.shared.array(32, float32)
    t = cuda.local.array(4, float32)
    c = cuda.const.array_like(CONST)
    i = cuda.threadIdx.x
    s[i] = a[i]
    t[0] = c[i % 8]
    a[i] = s[31 - i] + t[0]

def global_array(a):
    a[0] = CONST[3]  # constant memory from a global array (memory's make_constant_array hook)

def sync(a):
    cuda.syncthreads()
    n = cuda.syncthreads_count(a[0] > 0)
    cuda.syncwarp()
    cuda.threadfence()
    cuda.nanosleep(100)
    a[1] = n

def atomics(a, h):
    atomic.add(a, 0, 1.0)
    cuda.atomic.max(a, 1, a[2])
    cuda.atomic.add(h, 0, float16(1.0))

@cuda.jit(device=True)
def bump(a):
    return cuda.atomic.add(a, 0, 1)

def through_a_device_function(a):
    a[1] = bump(a)

def bits(a):
    i = int32(a[0])
    a[1] = cuda.popc(i) + cuda.clz(i) + cuda.ffs(i) + cuda.brev(uint32(i))
    a[2] = cuda.fma(a[3], a[4], a[5]) + cuda.cbrt(a[6]) + cuda.selp(i > 0, a[7], a[8])

def warp(a):
    v = cuda.shfl_down_sync(0xffffffff, a[cuda.threadIdx.x], 1)
    a[0] = v + cuda.ballot_sync(0xffffffff, v > 0) + cuda.activemask()

def cg(a):
    g = cuda.cg.this_grid()
    a[g.thread_rank()] = 1
    g.sync()

def cache_hints(a):
    cuda.stcs(a, 0, cuda.ldcg(a, 1))

def wmma(a, b, c):
    fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
    fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.col_major)
    fc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
    cuda.wmma.fill_fragment(fc, 0)
    cuda.wmma.load_matrix_sync(fa, a, 16)
    cuda.wmma.load_matrix_sync(fb, b, 16)
    cuda.wmma.mma_sync(fc, fa, fb, fc)
    cuda.wmma.store_matrix_sync(c, fc, 16, cuda.wmma.mem_row_major)

f32, i32, f16 = float32[::1], int32[::1], float16[::1]
out = {"ptx": {}, "loaded": {}}
cuda.compile_ptx(plain, void(f32, f32), cc=(8, 0))
out["loaded"]["plain"] = loaded()
for fn, sig in ((global_array, (f32,)), (memory, (f32,)), (sync, (i32,)), (atomics, (f32, f16)),
                (through_a_device_function, (i32,)), (bits, (f32,)), (warp, (f32,)),
                (cg, (i32,)), (cache_hints, (f32,)), (wmma, (f16, f16, f32))):
    ptx, _ = cuda.compile_ptx(fn, void(*sig), cc=(8, 0))
    out["ptx"][fn.__name__] = re.sub(r"B\\d+v\\d+", "Bv", ptx)
    out["loaded"][fn.__name__] = loaded()
print(json.dumps(out))
"""


def test_each_family_is_installed_when_a_kernel_names_it(run_python):
    """A plain kernel imports none of them; each kernel imports what it names (by attribute, by
    an imported name, in a device function); the PTX is what an eager process makes."""
    code = KERNELS.replace("{families!r}", repr(FAMILIES))
    eager = "\n".join(f"import {f}" for f in FAMILIES)
    results = []
    for imports in ("", eager):
        proc = run_python(code.replace("{eager}", imports), timeout=300)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    deferred, eager_out = results
    assert deferred["loaded"]["plain"] == []
    assert eager_out["loaded"]["plain"] == FAMILIES
    short = {f.rsplit(".", 1)[1]: f for f in FAMILIES}
    for kernel, family in (("sync", "sync"), ("atomics", "atomics"),
                           ("bits", "bits"), ("warp", "warp"), ("cg", "cg"),
                           ("cache_hints", "cache_hints"), ("wmma", "wmma")):
        assert short[family] in deferred["loaded"][kernel], (kernel, deferred["loaded"])
    assert set(deferred["ptx"]) == set(eager_out["ptx"])
    for name, ptx in deferred["ptx"].items():
        assert ".entry" in ptx, name
        assert ptx == eager_out["ptx"][name], name

"""``CUDATargetContext.refresh`` batches the refreshes Numba asks for while one runs (every
template it initialises asks for one): the contexts must end up with exactly what Numba's nested
refreshes install (once Numba's have caught up: its last nested refresh leaves a few for the next
one) -- the same lowering implementations, attribute and cast implementations
and typing templates, in the same order -- and compile the same PTX.  Each side is built in a
fresh interpreter, where the first refresh is the one that installs everything."""

import json

SNAPSHOT = """
import json, sys
from numba_cuda.compiler.target_context import CUDATargetContext
from numba_cuda.compiler import target_context
from numba.core import base
from numba.core.typing import templates

CUDATargetContext.batch_nested_refreshes = {batch}
refreshes = [0]
numbas_refresh = base.BaseContext.refresh
def counting(self):
    refreshes[0] += 1
    return numbas_refresh(self)
base.BaseContext.refresh = counting

from numba import cuda, float32, void
import numba_cuda.dispatch  # registers the target (and its dispatcher) with Numba
from numba_cuda.compiler.target import cuda_target
from numba.core.target_extension import target_override

def name(obj):
    return getattr(obj, "__qualname__", None) or repr(obj)

def kernel(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = max(b[i], 1.0) + len(a.shape)

def selector_keys(ctx):
    return sorted(name(key) for key in ctx._defns)

with target_override("cuda"):
    ctx = cuda_target.target_context
    ctx.refresh()
    first_keys = selector_keys(ctx)
    ctx.refresh()  # installs what was registered during the first one, if anything
    second_keys = selector_keys(ctx)
    selectors = {{}}
    for label, table in (("defns", ctx._defns), ("getattrs", ctx._getattrs),
                         ("setattrs", ctx._setattrs)):
        for key, selector in table.items():
            selectors[label + ":" + name(key)] = [[str(sig), name(impl)]
                                                  for sig, impl in selector.versions]
    selectors["casts"] = [[str(sig), name(impl)] for sig, impl in ctx._casts.versions]
    selectors["constants"] = [[str(sig), name(impl)]
                              for sig, impl in ctx._get_constants.versions]
    typing = ctx.typing_context
    functions = {{name(key): [type(t).__name__ + ":" + name(t.key) for t in tmpls]
                  for key, tmpls in typing._functions.items()}}
    attributes = {{name(key): [name(type(t)) for t in tmpls]
                   for key, tmpls in typing._attributes.items()}}
ptx, _ = cuda.compile_ptx(kernel, void(float32[::1], float32[::1]), cc=(8, 0))
print(json.dumps({{"selectors": selectors, "functions": functions, "attributes": attributes,
                  "ptx": ptx, "refreshes": refreshes[0],
                  "complete_after_first": first_keys == second_keys}}))
"""


def _snapshot(run_python, batch):
    # Numba's registration order within a key depends on set iteration: fix the hash seed
    proc = run_python(SNAPSHOT.format(batch=batch), env={"PYTHONHASHSEED": "7"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_batched_refresh_installs_what_nested_refreshes_install(run_python):
    batched = _snapshot(run_python, True)
    nested = _snapshot(run_python, False)
    # the snapshot sees the real registrations: Numba's operators, the compiler's own families
    # and the kernel-language families installed with the contexts
    # (keys by qualname: operator.add, cuda.grid, math.sin)
    for key in ("defns:add", "defns:<numba.cuda kernel-language object numba.cuda.grid>",
                "defns:sin"):
        assert batched["selectors"].get(key), key
    assert batched["selectors"] == nested["selectors"]
    assert batched["functions"] == nested["functions"]
    assert batched["attributes"] == nested["attributes"]
    assert batched["ptx"] == nested["ptx"]
    # everything is installed by the time the outermost refresh returns
    assert batched["complete_after_first"]
    # and it is a batch: Numba's refresh ran a handful of times instead of once per template
    assert batched["refreshes"] * 4 < nested["refreshes"], (batched["refreshes"],
                                                             nested["refreshes"])

"""``numba.cuda.models`` (the peers' module of CUDA-only data models, which nvmath-python's device
APIs import ``register_model`` and ``StructModel`` from): a model registered there is the CUDA
target's and not the CPU target's, before the CUDA contexts exist (at a library's import) and
after."""

import json

from tests.support.subprocesses import run_python

CODE = """
import json
from numba import cuda, float32, int32, void
from numba.core import cgutils, types
from numba.core.datamodel import default_manager
from numba.cuda.extending import intrinsic
from numba.cuda.models import StructModel, register_model, models

{setup}

class PairType(types.Type):
    def __init__(self):
        super().__init__(name="Pair")

pair = PairType()

@register_model(PairType)
class PairModel(StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("a", types.int32), ("b", types.float32)])

@intrinsic
def make_pair(typingctx, a, b):
    def codegen(context, builder, sig, args):
        value = cgutils.create_struct_proxy(pair)(context, builder)
        value.a = context.cast(builder, args[0], sig.args[0], types.int32)
        value.b = context.cast(builder, args[1], sig.args[1], types.float32)
        return value._getvalue()
    return pair(a, b), codegen

@intrinsic
def pair_sum(typingctx, p):
    def codegen(context, builder, sig, args):
        value = cgutils.create_struct_proxy(pair)(context, builder, value=args[0])
        return builder.fadd(builder.sitofp(value.a, context.get_value_type(types.float32)),
                            value.b)
    return types.float32(p), codegen

def kernel(out, a, b):
    out[0] = pair_sum(make_pair(a[0], b[0]))

out = {"models_is_numbas": models.StructModel is StructModel}
try:
    default_manager.lookup(pair)
    out["cpu_has_it"] = True
except KeyError:
    out["cpu_has_it"] = False
ptx, _ = cuda.compile_ptx(kernel, void(float32[::1], int32[::1], float32[::1]), cc=(8, 0))
out["ptx_adds"] = "add.f32" in ptx or "add.rn.f32" in ptx
from numba.cuda.models import cuda_data_manager
out["cuda_model"] = type(cuda_data_manager.lookup(pair)).__name__
print(json.dumps(out))
"""


def _run(setup):
    proc = run_python(CODE.replace("{setup}", setup), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_registered_before_the_cuda_contexts_exist():
    out = _run("")
    assert out == {"models_is_numbas": True, "cpu_has_it": False, "ptx_adds": True,
                   "cuda_model": "PairModel"}


def test_registered_after_a_compile():
    setup = ("def first(a):\n    a[0] = 1.0\n"
             "cuda.compile_ptx(first, void(float32[::1]), cc=(8, 0))")
    out = _run(setup)
    assert out == {"models_is_numbas": True, "cpu_has_it": False, "ptx_adds": True,
                   "cuda_model": "PairModel"}

"""``numba.cuda.vector_types.vector_types`` maps names to what NVIDIA's numba-cuda maps them to:
Numba types on the GPU target (code generators put them in signatures and weak-reference
them), the simulator's classes in the simulator."""

import json
import os
import subprocess
import sys
import weakref

import pytest

CHECK = r"""
import json, weakref
from numba import cuda
from numba.cuda.vector_types import vector_types
out = {"n": len(vector_types)}
vt = vector_types["float32x4"]
out["is_class_of_cuda_float4"] = vt.user_facing_object is cuda.float4
out["fields"] = [vt.name, vt.num_elements, list(vt.attr_names), str(vt.base_type)]
weakref.ref(vt)  # weak-referenceable
out["aliases_left_out"] = "float4" not in vector_types
print("JSON" + json.dumps(out))
"""


@pytest.mark.parametrize("sim", ["0", "1"], ids=["gpu-target", "simulator"])
def test_table_entries(sim):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM=sim)
    proc = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("JSON")[-1])
    assert out == {"n": 40, "is_class_of_cuda_float4": True,
                   "fields": ["float32x4", 4, ["x", "y", "z", "w"], "float32" if sim == "0" else
                              "<class 'numpy.float32'>"],
                   "aliases_left_out": True}


def test_gpu_entries_are_the_numba_types_kernels_use():
    import numpy as np
    from numba import cuda, types
    from numba.cuda.vector_types import vector_types

    f2 = vector_types["float32x2"]
    assert isinstance(f2, types.Type) and f2.base_type is types.float32
    weakref.ref(f2)

    def add(v, w):
        return cuda.float32x2(v.x + w.x, v.y + w.y)

    # the table's type in a signature is the type of cuda.float32x2 values
    ptx, resty = cuda.compile_ptx(add, (f2, f2), device=True)
    assert resty is f2
    assert cuda.float32x2(np.float32(1), np.float32(2))._numba_type_ is f2

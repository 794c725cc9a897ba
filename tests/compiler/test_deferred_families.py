"""Deferred kernel-language families (typing_context.DEFERRED_FAMILIES): cuda.libdevice's 347
functions are installed only once numba_cuda.libdevice is imported, which resolving
``cuda.libdevice`` in a kernel does before any of its functions is typed."""

import json

import pytest

CODE = """
import json, sys
from numba import cuda, float64, void

def plain(a):
    a[0] = 1.0

def uses_libdevice(a):
    i = cuda.grid(1)
    a[i] = cuda.libdevice.sin(a[i]) + cuda.libdevice.cbrt(a[i])

out = {}
if {plain_first}:
    cuda.compile_ptx(plain, void(float64[::1]), cc=(8, 0))
    out["loaded_after_plain"] = "numba_cuda.lang.libdevice_calls" in sys.modules
ptx, _ = cuda.compile_ptx(uses_libdevice, void(float64[::1]), cc=(8, 0))
out["entry"] = ".entry" in ptx
out["no_external_call"] = "__nv_sin" not in ptx
ptx, _ = cuda.compile_ptx(plain, void(float64[::1]), cc=(8, 0))
out["plain_after"] = ".entry" in ptx
print(json.dumps(out))
"""


@pytest.mark.parametrize("plain_first", [True, False])
def test_libdevice_family_installed_when_first_used(run_python, plain_first):
    proc = run_python(CODE.replace("{plain_first}", str(plain_first)))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if plain_first:
        assert out.pop("loaded_after_plain") is False
    assert out == {"entry": True, "no_external_call": True, "plain_after": True}


def test_imported_libdevice_module_is_installed_from_the_start(run_python):
    proc = run_python("""
from numba import cuda, float32, void
from numba.cuda.libdevice import sinf

def k(a):
    a[0] = sinf(a[0])

ptx, _ = cuda.compile_ptx(k, void(float32[::1]), cc=(8, 0))
print(".entry" in ptx)
""")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("True")

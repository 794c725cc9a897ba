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


BF16_CODE = """
import json, re, sys
{eager}
from numba import cuda, float32, int16, int32, void
from numba.cuda.bf16 import float2bfloat16_rz

def plain(a):
    a[0] = 1.0

def by_attribute(a, out):
    i = cuda.grid(1)
    out[i] = cuda.bf16.bfloat16_as_short(cuda.bf16.float32_to_bfloat16_rd(a[i]))

def by_imported_name(a, out):
    i = cuda.grid(1)
    out[i] = cuda.bf16.bfloat162int_ru(float2bfloat16_rz(a[i]))

@cuda.jit(device=True)
def convert(x):
    return cuda.bf16.bfloat16_as_ushort(cuda.bf16.int2bfloat16_rn(x))

def through_a_device_function(a, out):
    i = cuda.grid(1)
    out[i] = convert(int32(a[i]))

out = {"ptx": {}}
cuda.compile_ptx(plain, void(float32[::1]), cc=(8, 0))
out["loaded_after_plain"] = "numba_cuda.lang.bf16_conversions" in sys.modules
for fn, res in ((by_attribute, int16), (by_imported_name, int32), (through_a_device_function, int32)):
    ptx, _ = cuda.compile_ptx(fn, void(float32[::1], res[::1]), cc=(8, 0))
    out["ptx"][fn.__name__] = re.sub(r"B\\d+v\\d+", "Bv", ptx)
print(json.dumps(out))
"""


def test_bf16_conversions_installed_when_a_kernel_names_one(run_python):
    """``cuda.bf16``'s conversions with a rounding mode are installed at the first kernel that
    names one (by attribute, by an imported name, in a device function); their PTX is what a
    process that imported them from the start makes."""
    results = []
    for eager in ("", "import numba_cuda.lang.bf16_conversions"):
        proc = run_python(BF16_CODE.replace("{eager}", eager))
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    deferred, eager = results
    assert deferred["loaded_after_plain"] is False
    assert eager["loaded_after_plain"] is True
    assert set(deferred["ptx"]) == {"by_attribute", "by_imported_name",
                                    "through_a_device_function"}
    for name, ptx in deferred["ptx"].items():
        assert ".entry" in ptx and "call" not in ptx.split(".entry", 1)[1], name
        assert ptx == eager["ptx"][name], name

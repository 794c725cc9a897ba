"""numba.cuda.kernels.transpose (Numba's old ready-made kernel, NVIDIA's too) and the simulator's
cudadrv.devicearray.from_record_like."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda

RECORD = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

SIM = textwrap.dedent("""
    import json, sys
    import numpy as np
    from numba import cuda
    from numba.cuda.kernels.transpose import transpose
    out = {}
    for dtype, shape in (("float32", (33, 47)), ("int64", (1, 5)), ("bool", (17, 16)),
                         ("float64", (16, 16))):
        x = (np.arange(np.prod(shape)) % 7 == 3) if dtype == "bool" else \\
            np.arange(np.prod(shape)).astype(dtype)
        x = x.reshape(shape)
        dx = cuda.to_device(x)
        dy = cuda.device_array((shape[1], shape[0]), dtype=dtype)
        transpose(dx, dy)
        new = transpose(dx).copy_to_host()
        out[dtype] = bool(np.array_equal(dy.copy_to_host(), x.T) and np.array_equal(new, x.T))
    rec = np.zeros((3, 4), dtype=np.dtype([("a", np.int32), ("b", np.float64)], align=True))
    rec["a"] = np.arange(12).reshape(3, 4)
    rec["b"] = -rec["a"]
    got = transpose(cuda.to_device(rec)).copy_to_host()
    out["record"] = bool(np.array_equal(got, rec.T))
    view = np.arange(64.0).reshape(8, 8)[::2, 1::3]  # a strided view
    out["view"] = bool(np.array_equal(transpose(view).copy_to_host(), view.T))
    try:
        transpose(cuda.to_device(np.zeros((2, 3))), cuda.device_array((2, 3)))
    except ValueError as exc:
        out["wrong_out"] = str(exc)
    print("JSON" + json.dumps(out))
""")


def test_transpose_in_the_simulator():
    import json
    import os

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SIM], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.split("JSON")[-1])
    assert out.pop("wrong_out").startswith("transpose() of a 2x3 float64 array needs an output of shape (3, 2)")
    assert out == {"float32": True, "int64": True, "bool": True, "float64": True, "record": True,
                   "view": True}


@pytest.mark.parametrize("dtype", ["float32", "bool", RECORD])
def test_transpose_kernel_compiles_for_the_gpu(dtype):
    from numba import cuda as gpu
    from numba.np.numpy_support import from_dtype

    from numba_cuda.kernels.transpose import _kernel
    from tests.support.ptx_helpers import assemble

    _kernel.cache_clear()
    kernel = _kernel(np.dtype(dtype))
    arr = from_dtype(np.dtype(dtype))[:, :]
    ptx, _ = gpu.compile_ptx(kernel.py_func, (arr, arr), cc=(7, 5))
    assemble(ptx, (7, 5))
    assert "bar.sync" in ptx or "barrier.sync" in ptx


def test_from_record_like_in_the_simulator():
    from numba_cuda.simulator.cudadrv.devicearray import DeviceRecord, from_record_like

    rec = np.zeros((), dtype=RECORD)[()]
    devrec = from_record_like(rec)
    assert isinstance(devrec, DeviceRecord) and devrec.dtype == RECORD
    assert devrec.copy_to_host()["a"] == 0
    with pytest.raises(cuda.NotAvailableInSimulator, match="gpu_data"):
        from_record_like(rec, gpu_data=object())

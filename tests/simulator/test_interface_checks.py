"""The simulator checks a CUDA Array Interface dict as the real target does, and never
touches memory that is not this process's (each case runs in a fresh interpreter, so a
crash fails the test instead of killing the test run)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from numba_cuda.common.cuda_array_interface import parse_cuda_array_interface
from numba_cuda.simulator import hostmemory

CASES = {
    "object items": 'dict(ok, typestr="|O8")',
    "wild pointer": "dict(ok, data=(0xdead0000000, False))",
    "pointer past the mappings": "dict(ok, data=(2**47 - 16, True))",
    "stream 0": "dict(ok, stream=0)",
    "null pointer": "dict(ok, data=(0, False))",
    "missing key": '{k: v for k, v in ok.items() if k != "typestr"}',
    "bad typestr": 'dict(ok, typestr="not a type")',
    "bad descr": 'dict(ok, typestr="|V8", descr=[("a",)])',
}


def run_sim(code):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("entry", ["from_cuda_array_interface", "kernel argument"])
def test_the_simulator_refuses_like_the_real_target(case, entry):
    proc = run_sim(f"""
        import json
        import numpy as np
        from numba import cuda

        a = np.arange(4.0)
        ok = {{"shape": (4,), "typestr": "<f8", "data": (a.ctypes.data, False), "version": 3}}
        desc = {CASES[case]}

        class Producer:
            __cuda_array_interface__ = desc

        @cuda.jit
        def k(x):
            x[0] = 1.0

        try:
            if {entry!r} == "kernel argument":
                k[1, 1](Producer())
            else:
                cuda.from_cuda_array_interface(desc, owner=a).copy_to_host()
            print(json.dumps(["accepted"]))
        except Exception as exc:
            print(json.dumps([type(exc).__name__, str(exc)]))
        """)
    assert proc.returncode == 0, f"the simulator crashed (status {proc.returncode}): {proc.stderr}"
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got[0] == "ValueError", got
    assert got[1].startswith("invalid __cuda_array_interface__"), got
    # the real target's validator gives the same verdict
    if case not in ("wild pointer", "pointer past the mappings"):
        a = np.arange(4.0)
        ok = {"shape": (4,), "typestr": "<f8", "data": (a.ctypes.data, False), "version": 3}
        with pytest.raises(ValueError, match="invalid __cuda_array_interface__") as info:
            parse_cuda_array_interface(eval(CASES[case]))  # noqa: S307 - the table above
        assert str(info.value) == got[1]


def test_valid_interfaces_still_view_host_memory():
    proc = run_sim("""
        import json
        import numpy as np
        from numba import cuda

        a = np.arange(6, dtype=np.int32)
        rec = np.zeros(2, np.dtype([("x", np.int16), ("y", np.float64)]))
        desc = {"shape": (3,), "typestr": "<i4", "data": (a.ctypes.data + 4, False),
                "strides": (8,), "version": 3, "stream": 1}
        v = cuda.from_cuda_array_interface(desc, owner=a)
        r = cuda.from_cuda_array_interface(rec.__array_interface__ | {"version": 3}, owner=rec)
        empty = cuda.from_cuda_array_interface(
            {"shape": (0,), "typestr": "<f4", "data": (0, False), "version": 3})
        ro = np.arange(3.0)
        ro.flags.writeable = False
        d = cuda.from_cuda_array_interface(
            {"shape": (3,), "typestr": "<f8", "data": (ro.ctypes.data, True), "version": 3},
            owner=ro)
        print(json.dumps([v.copy_to_host().tolist(), str(r.dtype), empty.shape,
                          d.copy_to_host().tolist()]))
        """)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [
        [1, 3, 5], "[('x', '<i2'), ('y', '<f8')]", [0], [0.0, 1.0, 2.0]]


def test_the_mapping_check_follows_permissions():
    a = np.zeros(1024, np.uint8)
    p = a.ctypes.data
    assert hostmemory.access_problem(p, 0, a.nbytes, readonly=False) is None
    assert hostmemory.access_problem(0x10, 0, 8, readonly=True) is not None
    assert hostmemory.access_problem(p, -(2**62), 8, readonly=True) is not None


@pytest.mark.skipif(os.name != "posix", reason="the probe uses write(2) into a pipe (POSIX)")
def test_the_posix_probe_used_where_there_is_no_proc_maps():
    a = np.zeros(64, np.uint8)
    assert hostmemory._probe_problem(a.ctypes.data, a.ctypes.data + 64, False) is None
    assert hostmemory._probe_problem(0x10, 0x18, False) == "are not memory of this process"

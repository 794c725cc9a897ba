"""datetime64 / timedelta64 in kernels: Numba's lowering (numba.np.npdatetime), as both peers'
CUDA targets have it, installed when a function computing with them is first lowered."""

import numpy as np
import pytest
from numba import cuda, from_dtype
from numba.core import types

from numba_cuda.simulator import api as sim

DT = from_dtype(np.dtype("datetime64[s]"))
DT_MS = from_dtype(np.dtype("datetime64[ms]"))
TD = from_dtype(np.dtype("timedelta64[s]"))
ONE_S = np.timedelta64(1, "s")   # (a global: np.timedelta64(1, "s") in a kernel is refused, as by both peers)
FIVE_MS = np.timedelta64(5, "ms")


def dates(out_td, out_b, out_dt, out_ms, a, b, d):
    i = cuda.grid(1)
    if i < a.size:
        out_td[i] = a[i] - b[i]
        out_b[i, 0] = a[i] < b[i]
        out_b[i, 1] = a[i] == b[i]
        out_dt[i] = a[i] + d[i] * 2
        out_ms[i] = a[i] + FIVE_MS   # the sum's unit: milliseconds
        if d[i] > ONE_S:
            out_td[i] = d[i] // 2 + abs(-d[i])


SIG = (TD[::1], types.boolean[:, ::1], DT[::1], DT_MS[::1], DT[::1], DT[::1], TD[::1])


def inputs():
    a = np.array(["2020-01-01T00:00:00", "NaT", "2021-06-01T12:00:00", "1969-12-31T23:59:59"],
                 dtype="datetime64[s]")
    b = np.array(["2019-01-01T00:00:00", "2020-01-01", "NaT", "1969-12-31T23:59:59"],
                 dtype="datetime64[s]")
    d = np.array([1, 2, 3, -7], dtype="timedelta64[s]")
    return a, b, d


def expected(a, b, d):
    td = a - b
    td = np.where(d > np.timedelta64(1, "s"), d // 2 + np.abs(-d), td)
    flags = np.stack([a < b, a == b], axis=1)
    return td, flags, a + d * 2, a + np.timedelta64(5, "ms")


def outputs(n):
    return (np.zeros(n, "timedelta64[s]"), np.zeros((n, 2), bool), np.zeros(n, "datetime64[s]"),
            np.zeros(n, "datetime64[ms]"))


def test_datetime_arithmetic_compiles_and_assembles(ptx_for, code):
    for cc, ptx in ptx_for(dates, SIG).items():
        body = code(ptx)
        assert "st.global.u64" in body or "st.global.b64" in body, cc
        # NaT (the int64 minimum) is tested for: comparisons and arithmetic propagate it
        assert "-9223372036854775808" in body, cc


def test_datetime_device_function_result_types():
    def sub(a, b):
        return a - b

    def shift(a, d):
        return a + d

    _, resty = cuda.compile_ptx(sub, (DT, DT), device=True, cc=(8, 0))
    assert resty == TD
    _, resty = cuda.compile_ptx(shift, (DT, TD), device=True, cc=(8, 0))
    assert resty == DT


def test_a_kernel_without_dates_does_not_import_numbas_datetime_lowering(run_python):
    proc = run_python(
        "import sys\nfrom numba import cuda, float32\n"
        "cuda.compile_ptx(lambda a: None, (float32[::1],), cc=(8, 0))\n"
        "print('numba.np.npdatetime' in sys.modules)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-1] == "False"


def test_a_first_compile_with_dates_in_a_fresh_process(run_python):
    proc = run_python(
        "import numpy as np\nfrom numba import cuda, from_dtype\n"
        "dt = from_dtype(np.dtype('datetime64[s]'))\n"
        "def f(a, b):\n    return a - b\n"
        "ptx, resty = cuda.compile_ptx(f, (dt, dt), device=True, cc=(8, 0))\n"
        "print(resty)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-1] == "timedelta64[s]"


def test_simulator_dates_match_numpy():
    a, b, d = inputs()
    outs = outputs(a.size)
    sim.jit(dates)[1, 8](*outs, a, b, d)
    for got, want in zip(outs, expected(a, b, d)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
def test_gpu_dates_match_numpy():
    a, b, d = inputs()
    outs = outputs(a.size)
    cuda.jit(SIG)(dates)[1, 8](*outs, a, b, d)
    for got, want in zip(outs, expected(a, b, d)):
        np.testing.assert_array_equal(got, want)


def test_the_simulator_does_not_take_timedelta64_for_an_integer_class():
    # NumPy makes np.timedelta64 a subclass of np.signedinteger; the simulator's typed integer
    # constructors (np.int32(x) ...) must not wrap it (it takes a unit, and is no integer)
    from numba_cuda.simulator.transform import _NUMPY_INT_TYPES, is_numpy_int_class

    assert np.timedelta64 not in _NUMPY_INT_TYPES
    assert not is_numpy_int_class(np.timedelta64)
    assert is_numpy_int_class(np.int8) and is_numpy_int_class(np.uint64)

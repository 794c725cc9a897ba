"""cuda.libdevice: the whole libdevice function table callable by name."""

import math

import numpy as np
import pytest
from numba import cuda, float32, float64, int16, int32, int64, uint32, uint64
from numba.core.errors import TypingError

from numba_cuda import libdevice
from numba_cuda.lang import libdevice_functions as table

ARGUMENTS = {"f32": "xf", "f64": "xd", "i16": "h", "i32": "n", "u32": "u", "i64": "ln", "u64": "lu"}


def _all_calls_kernel():
    """A kernel calling every cuda.libdevice function once and storing each result."""
    lines = [
        "def k(out, fa, da, ia, la):",
        "    xf = fa[0]; xd = da[0]; n = ia[0]; u = uint32(ia[1]); ln = la[0]; lu = uint64(la[1])",
        "    h = int16(ia[2])",
    ]
    for slot, name in enumerate(libdevice.__all__):
        _, args = table.FUNCTIONS[name]
        call_args = ", ".join(ARGUMENTS[a] for a in args if not a.startswith("p"))
        lines.append(f"    r = cuda.libdevice.{name}({call_args})")
        lines.append(f"    out[{slot}] = _first(r)")
    namespace = {"cuda": cuda, "uint32": uint32, "uint64": uint64, "int16": int16, "_first": _first}
    exec(compile("\n".join(lines), "<libdevice-all>", "exec"), namespace)
    return namespace["k"]


def _first(r):  # replaced inside kernels by the overload below
    raise NotImplementedError


from numba.core.extending import overload  # noqa: E402


@overload(_first, target="cuda")
def _first_overload(r):
    from numba.core import types

    if isinstance(r, types.BaseTuple):
        return lambda r: float64(r[0])
    if r == types.none:
        return lambda r: 0.0
    return lambda r: float64(r)


def test_table_covers_libdevice():
    assert len(libdevice.__all__) == 347
    assert {"sin", "sinf", "sincos", "popc", "umulhi", "fast_expf", "j0", "erfcinv"} <= set(libdevice.__all__)


@pytest.mark.slow
def test_every_function_compiles_for_both_ir_readers(ptx_for, ccs):
    # The oldest and newest target: libNVVM's LLVM-7 reader and its modern one (the whole
    # table at every cc would take a minute for no extra coverage).
    kernel = _all_calls_kernel()
    both = (ccs[0], ccs[-1])
    for ptx in ptx_for(kernel, (float64[:], float32[:], float64[:], int32[:], int64[:]), ccs=both).values():
        assert ".extern .func" not in ptx


def test_out_pointer_functions_return_tuples():
    def f(x, y):
        return cuda.libdevice.sincos(x), cuda.libdevice.frexpf(y), cuda.libdevice.modf(x), cuda.libdevice.remquo(x, x)

    _, resty = cuda.compile_ptx(f, (float64, float32), device=True, cc=(7, 5))
    assert str(resty) == ("Tuple(UniTuple(float64 x 2), Tuple(float32, int32), UniTuple(float64 x 2), "
                          "Tuple(float64, int32))")


def test_wrong_argument_count_is_a_typing_error():
    def f(x):
        return cuda.libdevice.atan2(x)

    with pytest.raises(TypingError):
        cuda.compile_ptx(f, (float64,), device=True, cc=(7, 5))


def test_stubs_refuse_host_calls():
    from numba_cuda.lang.stubs import KernelOnlyError

    with pytest.raises(KernelOnlyError, match="numba.cuda.libdevice.sin"):
        libdevice.sin(1.0)


@pytest.mark.gpu
def test_gpu_libdevice_values():
    @cuda.jit
    def k(out, x):
        out[0] = cuda.libdevice.sin(x[0])
        s, c = cuda.libdevice.sincos(x[0])
        out[1] = s * s + c * c
        out[2] = cuda.libdevice.popc(255)
        out[3] = cuda.libdevice.j0(x[0])
        m, e = cuda.libdevice.frexp(x[0])
        out[4] = m * 2.0 ** e

    out = cuda.device_array(5, dtype=np.float64)
    k[1, 1](out, cuda.to_device(np.array([0.75])))
    got = out.copy_to_host()
    assert got[0] == pytest.approx(math.sin(0.75), rel=1e-15)
    assert got[1] == pytest.approx(1.0, rel=1e-15)
    assert got[2] == 8
    assert got[3] == pytest.approx(0.8642945213174899, rel=1e-12)   # J0(0.75)
    assert got[4] == 0.75

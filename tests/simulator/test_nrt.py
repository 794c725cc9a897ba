"""The device NRT in the simulator: with NUMBA_CUDA_ENABLE_NRT arrays made in kernels and
returned by device functions work (they are NumPy's); without it they are refused with the
compiler's error, before any thread runs, so code that passes here passes on the GPU."""

import numpy as np
import pytest
from numba.core import config, errors

from numba_cuda.simulator import api as sim


@pytest.fixture(params=[True, False], ids=["nrt", "no-nrt"])
def nrt(request, monkeypatch):
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", request.param, raising=False)
    return request.param


def test_arrays_made_in_kernels_and_device_functions(nrt):
    @sim.jit(device=True)
    def tail(x):
        return x[5:]

    @sim.jit(device=True)
    def fresh(n):
        return np.ones(n, np.int32)

    @sim.jit
    def kernel(out):
        x = np.zeros(10, np.int64)
        x[5] = 3
        i = sim.grid(1)
        out[i] = tail(x)[0] + fresh(4)[3] + np.empty(2).size

    out = np.zeros(8, np.int64)
    if nrt:
        kernel[2, 4](out)
        assert out.tolist() == [6] * 8
    else:
        with pytest.raises(errors.TypingError, match="NUMBA_CUDA_ENABLE_NRT=1") as info:
            kernel[2, 4](out)
        assert "np.zeros()" in str(info.value) and "line" in str(info.value)
        assert out.tolist() == [0] * 8  # refused before any thread ran


def test_the_refusal_is_the_compilers(monkeypatch):
    import numba_cuda as real

    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", False, raising=False)

    def kernel(out):
        out[0] = np.arange(3)[1]

    with pytest.raises(errors.TypingError) as on_sim:
        sim.jit(kernel)[1, 1](np.zeros(1))
    with pytest.raises(errors.TypingError) as on_gpu:
        real.compile_ptx(kernel, "void(float64[:])")
    from numba_cuda.common.unsupported import no_nrt_message

    fix = no_nrt_message().split(": ", 1)[1]
    assert fix in str(on_sim.value) and fix in str(on_gpu.value)

"""Simulator behaviours the peers' test suites check (Numba 0.68's and NVIDIA's simulators)."""

import math

import numpy as np
import pytest
from numba import float32, float64, int32, void

from numba_cuda.simulator import api as cuda
from numba_cuda.simulator import devices
from numba_cuda.simulator.cudadrv.runtime import runtime


@pytest.mark.parametrize("nptype, nbtype", [(np.float32, float32), (np.float64, float64)])
def test_ldexp_with_an_int32_exponent(nptype, nbtype):
    @cuda.jit(void(nbtype[:], nbtype, int32))
    def k(out, x, e):
        out[0] = math.ldexp(x, e)
        out[1] = math.ldexp(x, np.int32(3))

    out = np.zeros(2, nptype)
    k[1, 1](out, 0.785375, 2)
    assert out[0] == nptype(3.1415) and out[1] == nptype(6.283)


def test_round_of_a_float32_rounds_its_exact_value():
    # NumPy scales in float32 and gives 0.342; the GPU (and Python) give 0.343
    @cuda.jit(void(float32[:], float32, int32))
    def k(out, x, n):
        out[0] = round(x, n)
        out[1] = round(x)

    out = np.zeros(2, np.float32)
    k[1, 1](out, 0.3425, 3)
    assert out[0] == np.float32(0.343)
    assert out[1] == 0.0


def test_print_of_thread_and_block_index_prints_a_triple(capsys):
    @cuda.jit
    def k():
        print(cuda.threadIdx, cuda.blockIdx)

    k[2, 2]()
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(["(0, 0, 0) (0, 0, 0)", "(1, 0, 0) (0, 0, 0)",
                                    "(0, 0, 0) (1, 0, 0)", "(1, 0, 0) (1, 0, 0)"])
    assert repr(cuda.threadIdx) == "<numba.cuda.threadIdx (simulator)>"  # outside a kernel


def test_gpus_current_is_none_before_any_context_and_after_close():
    cuda.close()
    assert cuda.gpus.current is None
    with cuda.gpus[0]:
        assert int(cuda.gpus.current.id) == 0
    cuda.close()
    cuda.current_context()
    assert cuda.gpus.current is not None
    cuda.close()

    @cuda.jit
    def k():
        pass

    k[1, 1]()
    assert cuda.gpus.current is not None
    devices.close()


def test_runtime_versions_are_the_peers_simulated_ones():
    assert runtime.get_version() == (-1, -1)
    assert runtime.supported_versions == ((-1, -1),)
    assert runtime.is_supported_version()


def test_division_by_zero_raises_in_debug_kernels():
    @cuda.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    # ZeroDivisionError as on the GPU, FloatingPointError as in Numba's simulator
    with pytest.raises(ZeroDivisionError) as info:
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert isinstance(info.value, FloatingPointError)
    assert r[1] == 0  # execution stopped at the division

    @cuda.jit
    def g(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    g[1, 1](r, np.zeros(1), np.ones(1))
    assert np.isinf(r[0]) and r[1] == 1


def test_external_stream_is_refused():
    with pytest.raises(RuntimeError, match="External streams are unsupported in the simulator"):
        cuda.external_stream(0x12345678)


def test_driver_module_copy_functions():
    from numba_cuda.simulator.cudadrv import driver

    host = np.arange(10, dtype=np.uint32)
    dev = cuda.to_device(host)
    driver.device_memset(dev, 0xAB, driver.device_memory_size(dev) // 2)
    back = np.empty_like(host)
    driver.device_to_host(back, dev, back.nbytes)
    assert (back[:5] == 0xABABABAB).all() and (back[5:] == host[5:]).all()
    other = cuda.device_array_like(host)
    driver.host_to_device(other, host, host.nbytes)
    dev2 = cuda.device_array_like(host)
    driver.device_to_device(dev2, other, host.nbytes)
    assert (dev2.copy_to_host() == host).all()
    mapped = cuda.mapped_array(4, dtype=np.uint32)
    driver.device_memset(mapped, 0, driver.device_memory_size(mapped))
    assert (mapped == 0).all()
    with pytest.raises(ValueError, match="contiguous"):
        driver.device_memset(cuda.to_device(np.zeros((4, 4)))[:, ::2], 0, 8)
    with pytest.raises(RuntimeError, match="not available in the simulator"):
        driver.launch_kernel()


def test_gpus_lst_as_on_the_real_target():
    assert len(cuda.gpus.lst) == 1 and cuda.gpus.lst[0].id == 0


def test_context_memalloc_and_memhostalloc_work_with_the_driver_copies():
    from numba_cuda.simulator.cudadrv import driver

    ctx = cuda.current_context()
    dev = ctx.memalloc(40)
    host = np.arange(10, dtype=np.uint32)
    driver.host_to_device(dev, host, 40)
    back = np.zeros(10, dtype=np.uint32)
    driver.device_to_host(back, dev, 40)
    assert (back == host).all()
    mem = ctx.memhostalloc(8, mapped=True)
    view = np.ndarray(shape=8, dtype=np.uint8, buffer=mem)
    driver.device_memset(mem, 0xAB, 8)
    assert (view == 0xAB).all()


def test_division_by_zero_raises_in_debug_kernels_on_os_threads_too():
    namespace = {"cuda": cuda}
    exec(  # noqa: S102 - no source: the simulator runs it on OS threads
        "def f(r, x, y):\n"
        "    cuda.syncthreads()\n"
        "    r[0] = y[0] / x[0]\n",
        namespace,
    )
    r = np.zeros(1)
    with pytest.raises(ZeroDivisionError):
        cuda.jit(debug=True, opt=False)(namespace["f"])[1, 2](r, np.zeros(1), np.ones(1))
    cuda.jit(namespace["f"])[1, 2](r, np.zeros(1), np.ones(1))
    assert np.isinf(r[0])

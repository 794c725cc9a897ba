"""``NUMBA_ENABLE_CUDASIM=1`` swaps the simulator in for the whole ``numba.cuda`` API."""

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

from numba_cuda import _exports
from numba_cuda.simulator import api


def _run(code, simulator=True):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "sim_script.py")  # a file, so kernels have source
        with open(script, "w") as f:
            f.write(textwrap.dedent(code))
        proc = subprocess.run([sys.executable, script], env=env, cwd=tmp,
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_public_name_of_the_real_target_exists_in_the_simulator():
    missing = [name for name in _exports.GPU if not hasattr(api, name)]
    assert missing == []


def test_every_public_name_of_the_simulator_exists_on_the_real_target():
    import types

    import numba_cuda

    simulator_names = {name for name, value in vars(api).items()
                       if not name.startswith("_") and (not isinstance(value, types.ModuleType)
                                                        or name in _exports.GPU)}
    # USE_SIMULATOR is a package global of numba_cuda on both targets; numba.cuda.runtime is
    # the numba_cuda.runtime package on the GPU target, which answers Numba's runtime queries
    missing = sorted(simulator_names - set(_exports.GPU) - {"USE_SIMULATOR", "runtime"})
    assert missing == []
    assert numba_cuda.USE_SIMULATOR is False
    assert callable(numba_cuda.runtime.get_version) and callable(api.runtime.get_version)
    assert callable(numba_cuda.runtime.is_supported_version)


def test_numba_cuda_uses_the_simulator_when_the_flag_is_set():
    out = _run(
        """
        import numpy as np
        from numba import cuda
        from numba.cuda import threadIdx, shared
        import numba_cuda
        from numba_cuda.simulator import api
        from numba_cuda._exports import GPU

        @cuda.jit(sim_mode="python")  # the Python path, whatever the default or NUMBA_CUDASIM_MODE says
        def reverse(a):
            s = shared.array(8, np.int64)
            t = threadIdx.x
            s[t] = a[t]
            cuda.syncthreads()
            a[t] = s[7 - t]

        d = cuda.to_device(np.arange(8))
        reverse[1, 8](d)
        print(d.copy_to_host().tolist())
        print(numba_cuda.USE_SIMULATOR, cuda.jit is api.jit, reverse.sim_mode)
        print(all(getattr(cuda, name) is getattr(api, name) for name in GPU))
        """
    )
    lines = out.splitlines()
    assert lines[0] == str(list(range(7, -1, -1)))
    assert lines[1] == "True True coroutines"
    assert lines[2] == "True"


def test_cudadrv_modules_resolve_to_the_simulator():
    out = _run(
        """
        from numba import cuda
        import numba.cuda.cudadrv.devicearray as devicearray
        from numba.cuda.cudadrv import driver, runtime, libs
        from numba.cuda.cudadrv.error import CudaSupportError
        d = cuda.device_array(3)
        print(isinstance(d, devicearray.DeviceNDArray), devicearray.is_cuda_ndarray(d))
        print(driver.driver.get_device_count(), runtime.runtime.get_version() == (-1, -1))
        print(libs.test())
        """
    )
    assert out.splitlines()[:2] == ["True True", "1 True"]
    assert out.splitlines()[-1] == "True"


def test_without_the_flag_the_real_stubs_are_used():
    out = _run(
        """
        import numba_cuda
        from numba_cuda.lang import stubs
        print(numba_cuda.USE_SIMULATOR, numba_cuda.threadIdx is stubs.threadIdx)
        """,
        simulator=False,
    )
    assert out.strip() == "False True"


def test_kernel_written_against_the_real_stubs_runs_in_the_simulator():
    from numba_cuda.lang import stubs

    @api.jit
    def k(a):
        a[stubs.grid(1)] = stubs.threadIdx.x + stubs.atomic.add(a, 0, 0) * 0

    import numpy as np

    a = np.zeros(4, np.int64)
    k[1, 4](a)
    assert list(a) == [0, 1, 2, 3]


@pytest.mark.parametrize("value", ["0", "", "false"])
def test_false_values_of_the_flag(value):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM=value)
    proc = subprocess.run([sys.executable, "-c", "import numba_cuda; print(numba_cuda.USE_SIMULATOR)"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False"


def test_reloading_a_replaced_module_keeps_the_simulators_module():
    import json

    code = textwrap.dedent("""
        import importlib, json, sys
        import numba.cuda
        import numba.cuda.cudadrv.devicearray as d
        sim = sys.modules["numba_cuda.compat.simulator.cudadrv.devicearray"]
        again = importlib.reload(d)
        print(json.dumps([d is sim, again is sim, sim.__spec__.name,
                          sys.modules["numba.cuda.cudadrv.devicearray"] is sim]))
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [
        True, True, "numba_cuda.compat.simulator.cudadrv.devicearray", True]

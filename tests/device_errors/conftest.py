"""Fixtures for the device-exception tests (debug=True / boundscheck=True kernels)."""

import os
import subprocess
import tempfile

import pytest

WANTED_CCS = ((7, 5), (8, 0), (9, 0), (10, 0), (12, 0))


@pytest.fixture(scope="session")
def ccs():
    """The compute capabilities among WANTED_CCS that the installed libNVVM accepts."""
    from numba_cuda.compiler import capability

    supported = set(capability.supported_ccs())
    return [cc for cc in WANTED_CCS if cc in supported]


@pytest.fixture(scope="session")
def ptxas():
    """``ptxas(ptx, cc)`` -> CompletedProcess, with the toolkit's ptxas."""
    from numba_cuda import toolkit

    path = toolkit.ptxas_path()
    if path is None:
        pytest.skip("ptxas is not installed in this toolkit (install nvidia-cuda-nvcc)")

    def run(ptx, cc):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "k.ptx")
            with open(src, "w") as fh:
                fh.write(ptx)
            return subprocess.run([path, f"-arch=sm_{cc[0]}{cc[1]}", "-o", os.devnull, src],
                                  capture_output=True, text=True, timeout=120)

    return run


@pytest.fixture(scope="session")
def kernels():
    """The module device_error_kernels.py (kernel code, so not rewritten by pytest)."""
    import importlib.util
    import pathlib
    import sys

    path = pathlib.Path(__file__).with_name("device_error_kernels.py")
    name = "numba_cuda_tests_device_error_kernels"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module

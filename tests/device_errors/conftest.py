"""Fixtures for the device-exception tests (debug=True / boundscheck=True kernels)."""


import pytest

from tests.support.ptx_helpers import ptxas_or_skip

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
    return ptxas_or_skip()


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

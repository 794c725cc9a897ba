"""Names both peers' modules offer that code imports from them: ``numba.cuda.errors``
(``LoweringError``, ``CudaLoweringError``, ``normalize_kernel_dimensions``,
``missing_launch_config_msg``), ``numba.cuda.api``'s type-support queries and
``numba.cuda.extending.core_models`` (NVIDIA's extension test helpers import it)."""

import pytest

from tests.support.subprocesses import run_python


@pytest.mark.parametrize("simulator", [False, True])
def test_errors_names(simulator):
    proc = run_python("""
        from numba import cuda
        from numba.core.errors import LoweringError as numbas
        from numba.cuda.errors import (CudaLoweringError, LoweringError,
                                       missing_launch_config_msg, normalize_kernel_dimensions)
        assert LoweringError is numbas and issubclass(CudaLoweringError, numbas)
        assert normalize_kernel_dimensions(4, (2, 3)) == ((4, 1, 1), (2, 3, 1))
        assert normalize_kernel_dimensions((1, 2, 3), 32) == ((1, 2, 3), (32, 1, 1))
        try:
            normalize_kernel_dimensions(None, 32)
        except ValueError as exc:
            assert "launch configuration was not specified" in str(exc)
        else:
            raise AssertionError("no error")
        for bad, error in ((((1, 2, 3, 4)), ValueError), ((1.5,), TypeError)):
            try:
                normalize_kernel_dimensions(bad, 1)
            except error:
                pass
            else:
                raise AssertionError(bad)
        print("ok")
    """, env={"NUMBA_ENABLE_CUDASIM": "1" if simulator else "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok"]


@pytest.mark.parametrize("simulator", [False, True])
def test_api_type_support_queries(simulator):
    proc = run_python("""
        from numba import cuda
        from numba.cuda.api import is_bfloat16_supported, is_float16_supported, is_fp8_supported
        print(is_float16_supported(), is_bfloat16_supported(), is_fp8_supported(),
              is_fp8_supported is cuda.is_fp8_supported)
    """, env={"NUMBA_ENABLE_CUDASIM": "1" if simulator else "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "True", "True"]


def test_extending_core_models_is_numbas_models_module():
    from numba.core.datamodel import models

    from numba.cuda.extending import core_models

    assert core_models is models

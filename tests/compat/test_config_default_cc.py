"""numba.cuda.config_default_cc (NVIDIA's name): Numba's configured default compute capability."""

import os
import subprocess
import sys

import pytest

from tests.support.subprocesses import run_python


@pytest.mark.parametrize("simulator", [False, True])
@pytest.mark.parametrize("setting, expected", [(None, "(5, 0)"), ("8.6", "(8, 6)")])
def test_config_default_cc_is_numbas_setting(simulator, setting, expected):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CUDA_DEFAULT_PTX_CC", "NUMBA_ENABLE_CUDASIM")}
    if setting:
        env["NUMBA_CUDA_DEFAULT_PTX_CC"] = setting
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    code = ("from numba import cuda; from numba.core import config; "
            "assert cuda.config_default_cc == tuple(config.CUDA_DEFAULT_PTX_CC); "
            "print(cuda.config_default_cc)")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


def test_nvidias_derived_debug_settings_exist_and_say_no_variant_part():
    # NVIDIA's debug-info tests read config.CUDA_DEBUG_POLY at class definition; here debug
    # info never describes a polymorphic variable as a DWARF variant_part
    proc = run_python("""
        import numba.cuda
        from numba.cuda.core import config
        print(config.CUDA_DEBUG_POLY, config.CUDA_DEBUG_POLY_USE_TYPED_CONST)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]

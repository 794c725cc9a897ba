"""The same seed gives the same numbers as Numba's built-in target: every state (host seeding,
subsequence jumps, the states after drawing) and every uniform bit for bit, normals to the
rounding of the float32 logarithm (Numba's simulator takes it in float64; ours and the GPU in
float32).  Numba's implementation runs in a subprocess (``NUMBA_CUDA_REDIRECT=0``) in the
simulator, ours in the simulator and, when there is one, on the GPU."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("numba_streams.py")
sys.path.insert(0, str(SCRIPT.parent))
import numba_streams  # noqa: E402  (the constants of the script)


def _draws(tmp_path_factory, redirect, simulator):
    path = tmp_path_factory.mktemp("streams") / "draws.npz"
    env = dict(os.environ, NUMBA_CUDA_REDIRECT="1" if redirect else "0",
               PYTHONWARNINGS="ignore")  # Numba's simulator wraps uint64 with NumPy warnings
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, str(SCRIPT), str(path)], env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(np.load(path))


@pytest.fixture(scope="module")
def numbas(tmp_path_factory):
    return _draws(tmp_path_factory, redirect=False, simulator=True)


@pytest.fixture(scope="module", params=[
    pytest.param("simulator", marks=pytest.mark.slow),
    pytest.param("gpu", marks=pytest.mark.gpu),
])
def ours(request, tmp_path_factory):
    return _draws(tmp_path_factory, redirect=True, simulator=request.param == "simulator")


def test_same_keys(numbas, ours):
    assert sorted(numbas) == sorted(ours)
    assert len(numbas) == len(numba_streams.SEEDS) * 10


@pytest.mark.parametrize("seed", numba_streams.SEEDS)
def test_states_and_uniforms_are_bit_equal(numbas, ours, seed):
    for key in (f"host_{seed}", f"u32_{seed}", f"u64_{seed}", f"u64_{seed}_start",
                *(f"{n}_{seed}_after" for n in ("u32", "u64", "n32", "n64"))):
        assert numbas[key].dtype == ours[key].dtype, key
        np.testing.assert_array_equal(ours[key], numbas[key], err_msg=key)


@pytest.mark.parametrize("seed", numba_streams.SEEDS)
def test_normals_are_numbas_to_the_float32_log_rounding(numbas, ours, seed):
    np.testing.assert_allclose(ours[f"n32_{seed}"], numbas[f"n32_{seed}"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours[f"n64_{seed}"], numbas[f"n64_{seed}"], rtol=2e-7, atol=2e-7)
    assert ours[f"n32_{seed}"].dtype == np.float32 and ours[f"n64_{seed}"].dtype == np.float64


HOST_DRAWS = """
import json
import numpy as np
from numba.cuda import random as rng
states = np.empty(5, dtype=rng.xoroshiro128p_dtype)
rng.init_xoroshiro128p_states_cpu(states, 2024, 1)
out = []
for i in range(5):
    out += [int(rng.xoroshiro128p_next(states, i)), float(rng.xoroshiro128p_uniform_float32(states, i)),
            float(rng.xoroshiro128p_uniform_float64(states, i)),
            float(rng.xoroshiro128p_normal_float32(states, i)),
            float(rng.xoroshiro128p_normal_float64(states, i))]
print("RESULT", json.dumps(out))
"""


def test_generator_functions_run_on_the_host_as_numbas_do():
    """Numba's are CPU @jit functions too: host code may draw from a NumPy array of states."""
    results = []
    for redirect in ("0", "1"):
        env = dict(os.environ, NUMBA_CUDA_REDIRECT=redirect, NUMBA_ENABLE_CUDASIM="0")
        proc = subprocess.run([sys.executable, "-c", HOST_DRAWS], env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
        results.append(__import__("json").loads(line[7:]))
    numbas, ours = results
    assert ours == numbas

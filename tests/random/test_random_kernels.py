"""xoroshiro128+ in kernels: exact against the reference, statistically sound, reproducible,
independent per thread -- in the simulator (CI) and on a GPU (marked ``gpu``)."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

THREADS, DRAWS, SEED = 512, 64, 20260501

# Runs in a fresh interpreter (simulator or GPU); writes every result to an .npz file.
DRAW_SCRIPT = r'''
import sys
import numpy as np
from numba import cuda
from numba_cuda.random import (
    create_xoroshiro128p_states, init_xoroshiro128p_states,
    xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
)

THREADS, DRAWS, SEED = {threads}, {draws}, {seed}


def make(draw):
    @cuda.jit
    def kernel(states, out):
        i = cuda.grid(1)
        if i < states.shape[0]:
            for d in range(out.shape[1]):
                out[i, d] = draw(states, i)
    return kernel


kernels = {{
    "u32": (make(xoroshiro128p_uniform_float32), np.float32),
    "u64": (make(xoroshiro128p_uniform_float64), np.float64),
    "n32": (make(xoroshiro128p_normal_float32), np.float32),
    "n64": (make(xoroshiro128p_normal_float64), np.float64),
}}
results = {{}}
blocks = (THREADS + 63) // 64
for name, (kernel, dtype) in kernels.items():
    states = create_xoroshiro128p_states(THREADS, seed=SEED)
    out = cuda.device_array((THREADS, DRAWS), dtype=dtype)
    kernel[blocks, 64](states, out)
    results[name] = out.copy_to_host()
    results[name + "_states_after"] = states.copy_to_host().view(np.uint64).reshape(THREADS, 2)

# Reproducibility: same seed again (re-initialising an existing array), another seed.
states = create_xoroshiro128p_states(THREADS, seed=SEED + 1)
init_xoroshiro128p_states(states, SEED)
out = cuda.device_array((THREADS, DRAWS), dtype=np.float64)
kernels["u64"][0][blocks, 64](states, out)
results["u64_again"] = out.copy_to_host()
states = create_xoroshiro128p_states(THREADS, seed=SEED + 1)
kernels["u64"][0][blocks, 64](states, out)
results["u64_other_seed"] = out.copy_to_host()

# Subsequences: thread k with subsequence_start=s draws what thread k+s draws with 0.
states = create_xoroshiro128p_states(8, seed=SEED, subsequence_start=5)
out = cuda.device_array((8, DRAWS), dtype=np.float64)
kernels["u64"][0][1, 8](states, out)
results["u64_start5"] = out.copy_to_host()

np.savez(sys.argv[1], **results)
'''


def _draw(tmp_path_factory, simulator):
    path = str(tmp_path_factory.mktemp("rng") / "draws.npz")
    env = dict(os.environ)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    script = DRAW_SCRIPT.format(threads=THREADS, draws=DRAWS, seed=SEED)
    proc = subprocess.run([sys.executable, "-c", script, path], env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    return dict(np.load(path))


@pytest.fixture(scope="module", params=[
    pytest.param("simulator", marks=pytest.mark.slow),
    pytest.param("gpu", marks=pytest.mark.gpu),
])
def draws(request, tmp_path_factory):
    return _draw(tmp_path_factory, simulator=request.param == "simulator")


def _reference_outputs(ref, thread, count):
    s = list(ref.states(thread + 1, SEED)[thread])
    return [ref.next(s) for _ in range(count)]


@pytest.mark.parametrize("thread", [0, 1, 63, 64, THREADS - 1])
def test_uniforms_are_bit_exact(draws, ref, thread):
    raw = _reference_outputs(ref, thread, DRAWS)
    assert draws["u64"][thread].tolist() == [ref.uniform_float64(x) for x in raw]
    assert draws["u32"][thread].tolist() == [float(ref.uniform_float32(x)) for x in raw]


@pytest.mark.parametrize("thread", [0, THREADS - 1])
def test_normals_follow_box_muller_of_the_reference(draws, ref, thread):
    raw = _reference_outputs(ref, thread, 2 * DRAWS)
    pairs = list(zip(raw[0::2], raw[1::2]))
    # the float32 log/cos of the GPU's libdevice and of NumPy differ by a few ulps at most
    expected = [ref.normal_float64(a, b) for a, b in pairs]
    np.testing.assert_allclose(draws["n64"][thread], expected, rtol=1e-6, atol=1e-6)
    expected32 = [float(ref.normal_float32(a, b)) for a, b in pairs]
    np.testing.assert_allclose(draws["n32"][thread], expected32, rtol=2e-6, atol=2e-6)


def test_states_advance_by_the_number_of_draws(draws, ref):
    for name, per_draw in (("u64", 1), ("n64", 2)):
        s = list(ref.states(1, SEED)[0])
        for _ in range(DRAWS * per_draw):
            ref.next(s)
        assert draws[name + "_states_after"][0].tolist() == s


@pytest.mark.parametrize("name", ["u32", "u64"])
def test_uniform_statistics(draws, ref, name):
    x = draws[name].astype(np.float64).ravel()
    n = x.size
    assert x.min() >= 0.0 and x.max() < 1.0
    # mean 1/2 and variance 1/12, within 5 standard errors
    assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    assert abs(x.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / n)
    d, p = ref.ks(x, ref.uniform_cdf)
    assert p > 1e-3, f"KS D={d:.5f} p={p:.2e}"
    counts, _ = np.histogram(x, bins=32, range=(0.0, 1.0))
    chi2 = ((counts - n / 32) ** 2 / (n / 32)).sum()
    assert chi2 < 70, chi2  # 31 degrees of freedom: P(chi2 > 70) ~ 1e-4


@pytest.mark.parametrize("name", ["n32", "n64"])
def test_normal_statistics(draws, ref, name):
    x = draws[name].astype(np.float64).ravel()
    n = x.size
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 5 / math.sqrt(n)
    assert abs(x.var() - 1.0) < 5 * math.sqrt(2.0 / n)
    skew = ((x - x.mean()) ** 3).mean() / x.std() ** 3
    kurt = ((x - x.mean()) ** 4).mean() / x.var() ** 2 - 3.0
    assert abs(skew) < 5 * math.sqrt(6.0 / n) and abs(kurt) < 5 * math.sqrt(24.0 / n)
    d, p = ref.ks(x, ref.normal_cdf)
    assert p > 1e-3, f"KS D={d:.5f} p={p:.2e}"


def test_reproducible_for_a_seed(draws):
    np.testing.assert_array_equal(draws["u64_again"], draws["u64"])
    assert not np.array_equal(draws["u64_other_seed"], draws["u64"])


def test_subsequences_are_jumps(draws):
    np.testing.assert_array_equal(draws["u64_start5"], draws["u64"][5:13])


def test_threads_are_independent(draws):
    x = draws["u64"]
    n = x.size
    # Pairs of neighbouring threads, and consecutive draws of one thread, are uncorrelated.
    neighbours = np.corrcoef(x[:-1].ravel(), x[1:].ravel())[0, 1]
    lagged = np.corrcoef(x[:, :-1].ravel(), x[:, 1:].ravel())[0, 1]
    assert abs(neighbours) < 5 / math.sqrt(n) and abs(lagged) < 5 / math.sqrt(n)
    # Non-overlapping subsequences: no 53-bit value repeats across all threads' draws.
    assert np.unique(x).size == n
    # Thread means are spread as independent samples would be (not all equal, not too spread).
    per_thread = x.mean(axis=1)
    expected_sd = math.sqrt(1 / 12 / x.shape[1])
    assert 0.8 * expected_sd < per_thread.std() < 1.2 * expected_sd

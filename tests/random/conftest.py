"""Fixtures for the random-number tests: a pure-Python xoroshiro128+ reference, statistics,
running code in the simulator (a fresh interpreter with NUMBA_ENABLE_CUDASIM=1) and ptxas."""

import math
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from tests.support.ptx_helpers import assemble

MASK = (1 << 64) - 1


# ---- reference implementation, Python ints ---------------------------------------------

def ref_splitmix64(z):
    """One splitmix64 step from state ``z``: ``(next state, output)``."""
    z = (z + 0x9E3779B97F4A7C15) & MASK
    r = z
    r = ((r ^ (r >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    r = ((r ^ (r >> 27)) * 0x94D049BB133111EB) & MASK
    return z, r ^ (r >> 31)


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def ref_next(s):
    """Advance the two-word state list ``s`` in place; return the output."""
    s0, s1 = s
    result = (s0 + s1) & MASK
    s1 ^= s0
    s[0] = _rotl(s0, 55) ^ s1 ^ ((s1 << 14) & MASK)
    s[1] = _rotl(s1, 36)
    return result


def ref_jump(s):
    t0 = t1 = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for bit in range(64):
            if word >> bit & 1:
                t0 ^= s[0]
                t1 ^= s[1]
            ref_next(s)
    s[0], s[1] = t0, t1


def ref_states(n, seed, start=0):
    """Numba's seeding: the first splitmix64 output of the seed is both words of state 0."""
    _, z = ref_splitmix64(seed & MASK)
    s = [z, z]
    for _ in range(start):
        ref_jump(s)
    out = []
    for _ in range(n):
        out.append(tuple(s))
        ref_jump(s)
    return out


def ref_uniform_float64(x):
    return (x >> 11) * (1.0 / 9007199254740992.0)


def ref_uniform_float32(x):
    """The float64 uniform rounded to float32 (Numba's definition)."""
    import numpy as np

    return np.float32(ref_uniform_float64(x))


def ref_normal_float32(x1, x2):
    """Box-Muller in float32 arithmetic on two float32 uniforms (NumPy's float32 log/cos)."""
    import numpy as np

    u1, u2 = ref_uniform_float32(x1), ref_uniform_float32(x2)
    with np.errstate(divide="ignore"):
        return (np.sqrt(np.float32(-2.0) * np.log(u1))
                * np.cos(np.float32(2 * math.pi) * u2))


def ref_normal_float64(x1, x2):
    """Box-Muller in float64 on two float32 uniforms, with the float32 log of ``u1``."""
    import numpy as np

    u1, u2 = ref_uniform_float32(x1), ref_uniform_float32(x2)
    with np.errstate(divide="ignore"):
        return (math.sqrt(-2.0 * float(np.log(u1)))
                * math.cos(float(np.float64(2 * math.pi) * np.float64(u2))))


# ---- statistics ----------------------------------------------------------------------------

def ks_statistic(samples, cdf):
    """Kolmogorov-Smirnov D of ``samples`` against the continuous ``cdf`` and its p-value
    (Kolmogorov's asymptotic distribution with Stephens' small-sample correction)."""
    import numpy as np

    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = x.size
    f = np.array([cdf(v) for v in x])
    i = np.arange(1, n + 1)
    d = max(np.max(i / n - f), np.max(f - (i - 1) / n))
    en = math.sqrt(n)
    lam = (en + 0.12 + 0.11 / en) * d
    p = 2.0 * sum((-1) ** (k - 1) * math.exp(-2.0 * k * k * lam * lam) for k in range(1, 101))
    return d, min(max(p, 0.0), 1.0)


def uniform_cdf(v):
    return min(max(v, 0.0), 1.0)


def normal_cdf(v):
    return 0.5 * (1.0 + math.erf(v / math.sqrt(2.0)))


@pytest.fixture(scope="session")
def ref():
    return SimpleNamespace(
        splitmix64=ref_splitmix64, next=ref_next, jump=ref_jump, states=ref_states,
        uniform_float64=ref_uniform_float64, uniform_float32=ref_uniform_float32,
        normal_float32=ref_normal_float32, normal_float64=ref_normal_float64,
        ks=ks_statistic, uniform_cdf=uniform_cdf, normal_cdf=normal_cdf,
    )


# ---- processes and tools -------------------------------------------------------------------

def run_simulated(code, timeout=600):
    """Run ``code`` in a fresh interpreter with the simulator on; return stdout (fails on error)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"simulated run failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="session")
def tools():
    return SimpleNamespace(run_simulated=run_simulated, assemble=assemble)

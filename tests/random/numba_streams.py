"""Draws of every ``numba.cuda.random`` function for a few seeds, written to an .npz file.

Run by ``test_numba_streams`` in a fresh interpreter, once under Numba's built-in target
(``NUMBA_CUDA_REDIRECT=0``) and once under ours, both in the simulator (or on a GPU):
``python numba_streams.py OUT.npz``.  Only the public API is used, so the same code runs on both.
"""

import sys

import numpy as np
from numba import cuda
from numba.cuda import random as rng

THREADS, DRAWS = 40, 6
SEEDS = (0, 1, 12345, 2**63 + 7)
START = 3


def make(draw):
    @cuda.jit
    def kernel(states, out):
        i = cuda.grid(1)
        if i < states.shape[0]:
            for d in range(out.shape[1]):
                out[i, d] = draw(states, i)

    return kernel


def main(path):
    kernels = {
        "u32": (make(rng.xoroshiro128p_uniform_float32), np.float32),
        "u64": (make(rng.xoroshiro128p_uniform_float64), np.float64),
        "n32": (make(rng.xoroshiro128p_normal_float32), np.float32),
        "n64": (make(rng.xoroshiro128p_normal_float64), np.float64),
    }
    results = {}
    for seed in SEEDS:
        host = np.empty(THREADS, dtype=rng.xoroshiro128p_dtype)
        rng.init_xoroshiro128p_states_cpu(host, seed, START)
        results[f"host_{seed}"] = host.view(np.uint64).reshape(THREADS, 2)
        for name, (kernel, dtype) in kernels.items():
            states = rng.create_xoroshiro128p_states(THREADS, seed=seed)
            out = cuda.device_array((THREADS, DRAWS), dtype=dtype)
            kernel[1, THREADS](states, out)
            results[f"{name}_{seed}"] = out.copy_to_host()
            results[f"{name}_{seed}_after"] = (
                states.copy_to_host().view(np.uint64).reshape(THREADS, 2))
        states = cuda.device_array(THREADS, dtype=rng.xoroshiro128p_dtype)
        rng.init_xoroshiro128p_states(states, seed, subsequence_start=START)
        out = cuda.device_array((THREADS, DRAWS), dtype=np.float64)
        kernels["u64"][0][1, THREADS](states, out)
        results[f"u64_{seed}_start"] = out.copy_to_host()
    np.savez(path, **results)


if __name__ == "__main__":
    main(sys.argv[1])

"""Kernels using the generator compile to PTX that ptxas accepts, for each target cc."""

import re

import pytest
from numba import cuda, float32, float64, uint64

from numba_cuda.random import (
    xoroshiro128p_jump,
    xoroshiro128p_next,
    xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64,
    xoroshiro128p_type,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)

CCS = [(7, 5), (8, 0), (9, 0)]
STATES = xoroshiro128p_type[::1]


def all_draws(states, o32, o64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        o32[i] = xoroshiro128p_uniform_float32(states, i) + xoroshiro128p_normal_float32(states, i)
        o64[i] = xoroshiro128p_uniform_float64(states, i) + xoroshiro128p_normal_float64(states, i)


def raw_bits(states, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        xoroshiro128p_jump(states, i)
        out[i] = xoroshiro128p_next(states, i)


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_every_distribution_compiles_and_assembles(tools, cc):
    ptx, _ = cuda.compile_ptx(all_draws, (STATES, float32[::1], float64[::1]), cc=cc)
    tools.assemble(ptx, cc)
    assert "cvt.rn.f64.u64" in ptx  # 53 random bits to float64
    assert "sqrt.rn.f32" in ptx and "sqrt.rn.f64" in ptx  # Box-Muller radius, both precisions


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_integer_core_stays_in_64_bit_integers(tools, cc):
    # next() and jump() must be pure uint64 arithmetic: Numba types uint64 op int64 as float64,
    # which would silently ruin the generator; no floating-point instruction may appear.
    ptx, _ = cuda.compile_ptx(raw_bits, (STATES, uint64[::1]), cc=cc)
    tools.assemble(ptx, cc)
    body = ptx.split(".entry", 1)[1]
    assert not re.search(r"\.f(16|32|64)\b", body), "floating point in the integer generator"
    assert "shf.l" in body or "shl.b64" in body  # the rotations


def test_states_argument_must_be_records():
    with pytest.raises(Exception, match="s0|getitem|Record|record"):
        cuda.compile_ptx(raw_bits, (uint64[::1], uint64[::1]), cc=(9, 0))

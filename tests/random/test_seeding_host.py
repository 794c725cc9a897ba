"""Host-side seeding of xoroshiro128+ states: exact against a Python reference, reproducible,
subsequences separated by jumps."""

import numpy as np
import pytest

from numba_cuda.random import (
    init_xoroshiro128p_states_cpu,
    xoroshiro128p_dtype,
    xoroshiro128p_type,
)


def _host(n, seed, start=0):
    states = np.empty(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(states, seed, start)
    return [(int(a), int(b)) for a, b in zip(states["s0"], states["s1"])]


def test_dtype_is_two_uint64_words():
    assert xoroshiro128p_dtype.names == ("s0", "s1")
    assert xoroshiro128p_dtype.itemsize == 16
    assert all(xoroshiro128p_dtype[f] == np.uint64 for f in ("s0", "s1"))
    assert xoroshiro128p_type.size == 16


@pytest.mark.parametrize("seed", [0, 1, 1234, 2**63 + 5, 2**64 - 1])
def test_states_match_the_reference(ref, seed):
    assert _host(6, seed) == ref.states(6, seed)


def test_first_state_is_splitmix64_of_the_seed_in_both_words(ref):
    """Numba's seeding (and NVIDIA's): s0 = s1 = the first splitmix64 output of the seed."""
    _, a = ref.splitmix64(99)
    assert _host(1, 99) == [(a, a)]
    # Known splitmix64 value (first output for seed 0).
    assert ref.splitmix64(0)[1] == 0xE220A8397B1DCDAF


def test_reproducible_and_seed_dependent():
    assert _host(64, 7) == _host(64, 7)
    assert _host(64, 7) != _host(64, 8)
    assert len(set(_host(1000, 7))) == 1000  # every thread gets its own state


def test_subsequence_start_shifts_by_whole_subsequences():
    base = _host(10, 2024)
    assert _host(7, 2024, start=3) == base[3:10]


def test_jump_matches_2_to_the_64_steps_structure(ref):
    # The jump is linear over GF(2): jump(a ^ b) == jump(a) ^ jump(b).
    a, b = [0x123456789ABCDEF0, 0x0FEDCBA987654321], [0x1111, 0x2222]
    ab = [a[0] ^ b[0], a[1] ^ b[1]]
    for s in (a, b, ab):
        ref.jump(s)
    assert ab == [a[0] ^ b[0], a[1] ^ b[1]]
    # and the host implementation agrees with the reference for consecutive states
    s = list(ref.states(1, 5)[0])
    ref.jump(s)
    assert tuple(s) == _host(2, 5)[1]


def test_negative_and_numpy_seeds_wrap_to_64_bits():
    assert _host(3, -1) == _host(3, 2**64 - 1)
    assert _host(3, np.uint64(77)) == _host(3, 77)


def test_bad_arguments():
    with pytest.raises(TypeError, match="xoroshiro128p_dtype"):
        init_xoroshiro128p_states_cpu(np.zeros(4, np.uint64), 1)
    with pytest.raises(TypeError, match="seed must be an integer"):
        init_xoroshiro128p_states_cpu(np.empty(4, xoroshiro128p_dtype), "x")
    with pytest.raises(ValueError, match="subsequence_start"):
        init_xoroshiro128p_states_cpu(np.empty(4, xoroshiro128p_dtype), 1, -1)


def test_empty_array_is_fine():
    assert _host(0, 1) == []

"""``numba.cuda.random``: random numbers in kernels with xoroshiro128+, one state per thread.

Host side::

    states = cuda.random.create_xoroshiro128p_states(n_threads, seed=1234)

Device side (inside a ``@cuda.jit`` kernel, ``i`` the thread's state index)::

    x = xoroshiro128p_uniform_float32(states, i)     # [0, 1)
    z = xoroshiro128p_normal_float64(states, i)      # N(0, 1)

The generator is xoroshiro128+ with the (55, 14, 36) shift/rotate constants of
Blackman and Vigna's reference implementation, and every stream is the one Numba's
built-in target and NVIDIA's package produce for the same seed:

* seeding: the first splitmix64 output ``z`` of the 64-bit ``seed`` is both words of
  the first state (``s0 = s1 = z``); state ``k`` is that state advanced by
  ``subsequence_start + k`` jumps of 2**64 steps (the jump polynomial), so every thread
  draws from its own non-overlapping subsequence of length 2**64;
* ``uniform_float64``: the top 53 bits of an output times 2**-53;
* ``uniform_float32``: that float64 rounded to float32 (to nearest: it can round up
  to 1.0 when the 53 bits are within 2**-25 of it);
* ``normal_float32`` / ``normal_float64``: Box-Muller on two float32 uniforms ``u1``,
  ``u2``: ``sqrt(-2 log(u1)) cos(2 pi u2)``, in float32 arithmetic for ``float32``; for
  ``float64`` with ``log(u1)`` of the float32 ``u1`` and the rest in float64.  A ``u1`` of
  0 gives an infinite value, as in Numba.

The states are computed on the host (a Numba-compiled CPU loop) and copied to the
device.

The generator's functions are CPU ``@njit`` functions, as in Numba: callable on the
host with a NumPy array of states, and from kernels, where the CUDA target compiles
them as device functions.  In the simulator (``NUMBA_ENABLE_CUDASIM=1``) they are
simulated device functions.
"""

import math

import numpy as np
from numba import float32, float64, from_dtype, int64, njit, uint32, uint64

import numba_cuda as _cuda

#: The state of one generator: two 64-bit words.
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
#: The Numba type of one state (a record).
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)

# The jump polynomial: advancing by it equals 2**64 calls of next().
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0
#: 2 pi in each precision (the names Numba's module has).
TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# ---- the generator's functions ------------------------------------------------------


def _generator_function(fn):
    """As in Numba: a CPU ``@njit`` function, callable on the host with a NumPy array of states
    and from kernels, where it compiles as a device function.  In the simulator: a simulated
    device function (its fixed-width integer arithmetic wraps as the GPU's does)."""
    if _cuda.USE_SIMULATOR:
        return _cuda.jit(device=True)(fn)
    return njit(fn)



@_generator_function
def rotl(x, k):
    """``x`` (uint64) rotated left by ``k`` (uint32, 0 < k < 64) bits."""
    return (x << k) | (x >> (uint32(64) - k))


@_generator_function
def init_xoroshiro128p_state(states, index, seed):
    """Seed generator ``index`` from ``seed``: both state words are splitmix64(seed)."""
    index = int64(index)
    z = uint64(seed) + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
    z = z ^ (z >> uint32(31))
    states[index]["s0"] = z
    states[index]["s1"] = z


@_generator_function
def xoroshiro128p_next(states, index):
    """Advance generator ``index`` by one step; return the 64-bit output (uint64)."""
    index = int64(index)
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = uint64(rotl(s0, uint32(55))) ^ s1 ^ (s1 << uint32(14))
    states[index]["s1"] = uint64(rotl(s1, uint32(36)))
    return result


@_generator_function
def xoroshiro128p_jump(states, index):
    """Advance generator ``index`` by 2**64 steps (what separates two threads' subsequences)."""
    index = int64(index)
    t0 = uint64(0)
    t1 = uint64(0)
    for word in (uint64(0xBEAC0467EBA5FACB), uint64(0xD86B048B86AA9922)):
        for bit in range(64):
            if word & (uint64(1) << uint32(bit)):
                t0 ^= states[index]["s0"]
                t1 ^= states[index]["s1"]
            xoroshiro128p_next(states, index)
    states[index]["s0"] = t0
    states[index]["s1"] = t1


@_generator_function
def uint64_to_unit_float64(x):
    """The top 53 bits of ``x`` (uint64) as a float64 in [0, 1)."""
    return float64(uint64(x) >> uint32(11)) * float64(_TWO_POW_MINUS_53)


@_generator_function
def uint64_to_unit_float32(x):
    """``uint64_to_unit_float64(x)`` rounded to float32 (to nearest)."""
    return float32(uint64_to_unit_float64(x))


@_generator_function
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniformly distributed in [0, 1) (53 random bits)."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@_generator_function
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniformly distributed in [0, 1]: the float64 uniform rounded to float32."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@_generator_function
def xoroshiro128p_normal_float64(states, index):
    """A float64 from the standard normal distribution (Box-Muller on two float32 uniforms,
    advancing the generator by two steps)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


@_generator_function
def xoroshiro128p_normal_float32(states, index):
    """A float32 from the standard normal distribution (Box-Muller in float32 arithmetic,
    advancing the generator by two steps)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


# ---- host: seeding ------------------------------------------------------------------

_fill_states = None


def _host_fill():
    """The Numba-compiled (CPU) seeding loop, built on first use."""
    global _fill_states
    if _fill_states is not None:
        return _fill_states

    @njit(nogil=True)
    def splitmix64(seed):
        z = seed + uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
        return z ^ (z >> uint32(31))

    @njit(nogil=True)
    def step(s0, s1):
        s1 ^= s0
        r0 = ((s0 << uint32(55)) | (s0 >> uint32(9))) ^ s1 ^ (s1 << uint32(14))
        r1 = (s1 << uint32(36)) | (s1 >> uint32(28))
        return r0, r1

    @njit(nogil=True)
    def jump(s0, s1, j0, j1):
        t0 = uint64(0)
        t1 = uint64(0)
        for word in (j0, j1):
            for bit in range(64):
                if word & (uint64(1) << uint32(bit)):
                    t0 ^= s0
                    t1 ^= s1
                s0, s1 = step(s0, s1)
        return t0, t1

    @njit(nogil=True)
    def fill(out_s0, out_s1, seed, start, j0, j1):
        s0 = s1 = splitmix64(seed)
        for _ in range(start):
            s0, s1 = jump(s0, s1, j0, j1)
        for i in range(out_s0.shape[0]):
            out_s0[i] = s0
            out_s1[i] = s1
            s0, s1 = jump(s0, s1, j0, j1)

    _fill_states = fill
    return fill


def _as_uint64(value, what):
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    return np.uint64(value & 0xFFFFFFFFFFFFFFFF)


def init_xoroshiro128p_states_cpu(states, seed, subsequence_start=0):
    """Fill the host (NumPy) array ``states`` of ``xoroshiro128p_dtype`` for ``seed``."""
    states = np.asarray(states)
    if states.dtype != xoroshiro128p_dtype or states.ndim != 1:
        raise TypeError(
            f"states must be a 1-d array of xoroshiro128p_dtype, not {states.ndim}-d {states.dtype}"
        )
    seed = _as_uint64(seed, "seed")
    if int(subsequence_start) < 0:
        raise ValueError(f"subsequence_start must be >= 0, not {subsequence_start}")
    fill = _host_fill()
    fill(states["s0"], states["s1"], seed, int(subsequence_start),
         np.uint64(_JUMP[0]), np.uint64(_JUMP[1]))
    return states


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialise the device array ``states`` (of ``xoroshiro128p_dtype``) for ``seed``.

    State ``k`` starts ``subsequence_start + k`` subsequences (of 2**64 draws) into
    the stream of ``seed``.  The copy to the device is queued on ``stream``.
    """
    host = np.empty(states.shape[0], dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(host, seed, subsequence_start)
    states.copy_to_device(host, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of ``n`` initialised xoroshiro128+ states (see
    :func:`init_xoroshiro128p_states`)."""
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    states = _cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


__all__ = [
    "xoroshiro128p_dtype",
    "xoroshiro128p_type",
    "create_xoroshiro128p_states",
    "init_xoroshiro128p_states",
    "init_xoroshiro128p_states_cpu",
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
    "xoroshiro128p_next",
    "xoroshiro128p_jump",
    "init_xoroshiro128p_state",
    "uint64_to_unit_float64",
    "uint64_to_unit_float32",
]

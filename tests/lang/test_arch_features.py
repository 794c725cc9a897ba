"""Every architecture-dependent kernel-language feature, for every compute capability the installed
libNVVM accepts (CUDA 12: 5.0 .. 12.x, CUDA 13: 7.5 .. 12.x): it either lowers to PTX that ptxas
accepts for that cc, or compiling it for that cc raises a TypingError naming the feature, the
compute capability it needs and the source line.  (Other kernel-language tests compile for a
handful of ccs from 7.5; this one walks all of them, the oldest included.)"""

import math

import numpy as np
import pytest
from numba import cuda, float32, float64, int32, int64, uint32, uint64
from numba.core.errors import TypingError
from numba.core.types import float16

from numba.cuda.random import xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32

from tests.support.ptx_helpers import assemble


@pytest.fixture(scope="module")
def every_cc():
    from numba_cuda.compiler import capability

    found = capability.supported_ccs()
    assert found and found[0] <= (7, 5), found
    return found


def _library(fn, sig, **options):
    from numba_cuda.compiler.api import compile_to_library
    from numba_cuda.compiler.pipeline import CompileOptions

    library, _ = compile_to_library(fn, sig, CompileOptions.from_user(**options), device=False)
    return library


# ---- features with a lowering for every cc ------------------------------------------------------

def atomics_float64(a, s_out):
    s = cuda.shared.array(4, float64)
    s[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(a, 0, 1.5)
    cuda.atomic.sub(a, 1, 2.5)
    cuda.atomic.add(s, 0, 1.0)
    cuda.atomic.max(a, 2, 3.0)
    cuda.atomic.min(a, 3, 3.0)
    cuda.atomic.nanmax(a, 4, 3.0)
    cuda.atomic.nanmin(a, 5, 3.0)
    cuda.atomic.exch(a, 6, 3.0)
    cuda.syncthreads()
    s_out[0] = s[0]


def atomics_float32(a):
    cuda.atomic.add(a, 0, 1.5)
    cuda.atomic.sub(a, 1, 2.5)
    cuda.atomic.max(a, 2, 3.0)
    cuda.atomic.min(a, 3, 3.0)
    cuda.atomic.nanmax(a, 4, 3.0)
    cuda.atomic.nanmin(a, 5, 3.0)
    cuda.atomic.exch(a, 6, 3.0)


def atomics_integer(a):
    cuda.atomic.add(a, 0, 1)
    cuda.atomic.sub(a, 1, 1)
    cuda.atomic.and_(a, 2, 1)
    cuda.atomic.or_(a, 3, 1)
    cuda.atomic.xor(a, 4, 1)
    cuda.atomic.exch(a, 5, 1)
    cuda.atomic.max(a, 6, 1)
    cuda.atomic.min(a, 7, 1)
    cuda.atomic.cas(a, 8, 1, 2)
    cuda.atomic.compare_and_swap(a, 1, 2)


def atomics_unsigned(a):
    cuda.atomic.inc(a, 0, 10)
    cuda.atomic.dec(a, 1, 10)


def sleeping(a):
    cuda.nanosleep(100)  # MARK-NANOSLEEP
    a[0] = 1


def half_precision(a, out):
    x = a[0]
    y = a[1]
    r = cuda.fp16.hadd(x, y) * cuda.fp16.hmul(x, y) - cuda.fp16.hdiv(x, y)
    r = cuda.fp16.hfma(r, x, y) + abs(-r) + cuda.fp16.hsqrt(x) + cuda.fp16.hexp(x)
    r = cuda.fp16.hmax(r, x) + cuda.fp16.hmin(r, y) + cuda.fp16.hneg(r) + cuda.fp16.habs(r)
    cuda.atomic.add(a, 2, r)
    cuda.atomic.sub(a, 3, r)
    out[0] = float32(r)


B = cuda.bf16.bfloat16


def brain_float(a, out):
    x = B(a[0])
    y = B(a[1])
    r = (x + y) * x - y / x
    r = cuda.bf16.hfma(-abs(r), x, y) + cuda.bf16.htanh_approx(x) + cuda.bf16.hsqrt(r)
    out[0] = np.float32(r) + np.float32(B(float64(a[2])))


def warp_primitives(out, x, f, d):
    i = cuda.threadIdx.x
    out[i, 0] = cuda.shfl_sync(0xFFFFFFFF, x[i], 0) + cuda.shfl_down_sync(0xFFFFFFFF, x[i], 1)
    out[i, 1] = uint64(cuda.shfl_xor_sync(0xFFFFFFFF, f[i], 1) + cuda.shfl_up_sync(0xFFFFFFFF, d[i], 1))
    out[i, 2] = cuda.ballot_sync(0xFFFFFFFF, x[i] > 0) + cuda.all_sync(0xFFFFFFFF, x[i] > 0)
    out[i, 3] = cuda.any_sync(0xFFFFFFFF, x[i] > 1) + cuda.eq_sync(0xFFFFFFFF, x[i] > 2)
    out[i, 4] = cuda.activemask() + cuda.lanemask_lt() + cuda.laneid
    cuda.syncwarp()
    cuda.syncwarp(0xFFFF)


def barriers_and_fences(a):
    i = cuda.threadIdx.x
    n = cuda.syncthreads_count(a[i] > 0) + cuda.syncthreads_and(a[i] > 0) + cuda.syncthreads_or(a[i] > 0)
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    a[i] = n


def bits_and_math(a, b, out):
    i = cuda.threadIdx.x
    out[i] = (cuda.popc(b[i]) + cuda.brev(b[i]) + cuda.clz(b[i]) + cuda.ffs(b[i])
              + int64(cuda.fma(a[i], a[i], a[i]) + cuda.cbrt(a[i]) + math.tanh(a[i])))


def fast_math(a):
    i = cuda.threadIdx.x
    a[i] = math.tanh(a[i]) + math.sin(a[i]) / a[i] + math.exp(a[i]) + math.sqrt(a[i])


def printing_and_random(states, out):
    i = cuda.grid(1)
    out[i] = xoroshiro128p_uniform_float32(states, i) + xoroshiro128p_normal_float64(states, i)
    print("thread", i, out[i])


def _states_type():
    from numba import from_dtype

    from numba_cuda.random import xoroshiro128p_dtype

    return from_dtype(xoroshiro128p_dtype)[::1]


LOWERED_EVERYWHERE = [
    ("atomics_float64", atomics_float64, (float64[::1], float64[::1]), {}),
    ("atomics_float32", atomics_float32, (float32[::1],), {}),
    ("atomics_int32", atomics_integer, (int32[::1],), {}),
    ("atomics_uint32", atomics_integer, (uint32[::1],), {}),
    ("atomics_int64", atomics_integer, (int64[::1],), {}),
    ("atomics_uint64", atomics_integer, (uint64[::1],), {}),
    ("atomics_inc_dec_uint32", atomics_unsigned, (uint32[::1],), {}),
    ("atomics_inc_dec_uint64", atomics_unsigned, (uint64[::1],), {}),
    ("float16", half_precision, (float16[::1], float32[::1]), {}),
    ("bfloat16", brain_float, (float32[::1], float32[::1]), {}),
    ("warp", warp_primitives, (uint64[:, ::1], int32[::1], float32[::1], float64[::1]), {}),
    ("barriers_fences", barriers_and_fences, (int32[::1],), {}),
    ("bits_math", bits_and_math, (float32[::1], uint64[::1], int64[::1]), {}),
    ("fastmath", fast_math, (float32[::1],), {"fastmath": True}),
    ("print_random", printing_and_random, (_states_type(), float64[::1]), {}),
    ("float64_atomics_debug", atomics_float64, (float64[::1], float64[::1]), {"debug": True, "opt": False}),
]


@pytest.mark.parametrize("fn, sig, options", [pytest.param(f, s, o, id=n) for n, f, s, o in LOWERED_EVERYWHERE])
def test_lowered_and_assembled_for_every_cc(fn, sig, options, every_cc):
    library = _library(fn, sig, **options)
    for cc in every_cc:
        ptx = library.get_ptx(cc)
        assert f".target sm_{cc[0]}{cc[1]}" in ptx
        assemble(ptx, cc)


def test_float64_atomic_add_is_native_from_sm60_and_a_cas_loop_below(every_cc):
    import re

    library = _library(atomics_float64, (float64[::1], float64[::1]))
    for cc in every_cc:
        ptx = library.get_ptx(cc)
        native = re.findall(r"atom(?:\.\w+)*\.add\.f64", ptx)
        cas = re.findall(r"atom(?:\.\w+)*\.cas\.b64", ptx)
        if cc >= (6, 0):
            assert len(native) == 3 and len(cas) == 4, (cc, native, cas)  # add, sub, shared add
        else:
            # the four max/min loops, and one compare-and-swap loop per add/sub
            assert not native and len(cas) == 4 + 3, (cc, native, cas)


def test_nanosleep_is_the_instruction_from_sm70(every_cc):
    library = _library(sleeping, (int32[::1],))
    for cc in every_cc:
        if cc >= (7, 0):
            assert "nanosleep.u32" in library.get_ptx(cc), cc


# ---- features some ccs cannot have: a TypingError naming the feature, the cc and the line -------

def matching_any(out, x):
    i = cuda.threadIdx.x
    out[i] = cuda.match_any_sync(0xFFFFFFFF, x[i])  # MARK-MATCH-ANY


def matching_all(out, x):
    i = cuda.threadIdx.x
    lanes, same = cuda.match_all_sync(0xFFFFFFFF, x[i])  # MARK-MATCH-ALL
    out[i] = lanes + same


def grid_sync(a):
    g = cuda.cg.this_grid()
    a[cuda.grid(1)] = 1
    g.sync()  # MARK-GRID-SYNC


@cuda.jit(device=True)
def _device_matching(x):
    return cuda.match_any_sync(0xFFFFFFFF, x)  # MARK-DEVICE-MATCH


def matching_in_device_function(out, x):
    i = cuda.threadIdx.x
    out[i] = _device_matching(x[i])


NEEDS_CC = [
    ("match_any_sync", matching_any, (uint32[::1], int32[::1]), (7, 0), "MARK-MATCH-ANY"),
    ("match_all_sync", matching_all, (uint32[::1], int64[::1]), (7, 0), "MARK-MATCH-ALL"),
    ("grid group sync", grid_sync, (int32[::1],), (6, 0), "MARK-GRID-SYNC"),
    ("cuda.nanosleep", sleeping, (int32[::1],), (7, 0), "MARK-NANOSLEEP"),
    ("match_any_sync", matching_in_device_function, (uint32[::1], int32[::1]), (7, 0), "MARK-DEVICE-MATCH"),
]


def _line_of(marker):
    import inspect

    for number, line in enumerate(inspect.getsourcelines(inspect.getmodule(_line_of))[0], start=1):
        if marker in line:
            return number
    raise AssertionError(marker)


@pytest.mark.parametrize("feature, fn, sig, needed, marker",
                         [pytest.param(*p, id=f"{p[1].__name__}") for p in NEEDS_CC])
def test_feature_below_its_cc_is_a_typing_error_naming_it(feature, fn, sig, needed, marker, every_cc):
    library = _library(fn, sig)
    for cc in every_cc:
        if cc >= needed:
            assemble(library.get_ptx(cc), cc)
            continue
        with pytest.raises(TypingError) as info:
            library.get_ptx(cc)
        text = str(info.value)
        assert feature in text, text
        assert f"compute capability {needed[0]}.{needed[1]}" in text, text
        assert f"{cc[0]}.{cc[1]}" in text, text
        assert f"test_arch_features.py:{_line_of(marker)}" in text or f"line {_line_of(marker)}" in text, text


def test_compile_ptx_below_the_cc_raises_too(every_cc):
    if every_cc[0] >= (7, 0):
        pytest.skip(f"the installed libNVVM accepts no compute capability below 7.0 (lowest: {every_cc[0]})")
    with pytest.raises(TypingError, match=r"match_any_sync.*compute capability 7\.0"):
        cuda.compile_ptx(matching_any, (uint32[::1], int32[::1]), cc=every_cc[0])
    with pytest.raises(TypingError, match=r"cuda\.nanosleep needs compute capability 7\.0"):
        cuda.compile_ptx(sleeping, (int32[::1],), cc=(5, 0))

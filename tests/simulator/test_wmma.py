"""cuda.wmma in the simulator: warp-wide fragments with the GPU's results where CUDA defines them
(integers: exact, wrapping), the correctly rounded sum for floating point, tf32/bf16 rounding
as the compiled code does it, and errors where the GPU would misbehave."""

import math
from fractions import Fraction

import numpy as np
import pytest

from numba_cuda.simulator import api as cuda
from numba_cuda.simulator import wmma as sim

W = cuda.wmma


def _tiled_gemm(kind_a, kind_acc, m, n, k, a_layout, b_layout):
    @cuda.jit
    def gemm(a, b, c):
        # one warp per (m x n) tile of c; a is M x K, b is K x N, both row-major in memory
        row = cuda.blockIdx.y * m
        col = cuda.blockIdx.x * n
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, m, n, k, kind_a, a_layout)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, m, n, k, kind_a, b_layout)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, m, n, k, kind_acc)
        cuda.wmma.fill_fragment(acc, 0)
        for kk in range(0, a.shape[1], k):
            if a_layout is cuda.wmma.row_major:
                cuda.wmma.load_matrix_sync(fa, a[row:, kk:], a.shape[1])
            else:   # a given transposed: at[K, M]
                cuda.wmma.load_matrix_sync(fa, a[kk:, row:], a.shape[1])
            if b_layout is cuda.wmma.row_major:
                cuda.wmma.load_matrix_sync(fb, b[kk:, col:], b.shape[1])
            else:   # b given transposed: bt[N, K]
                cuda.wmma.load_matrix_sync(fb, b[col:, kk:], b.shape[1])
            cuda.wmma.mma_sync(acc, fa, fb, acc)
        cuda.wmma.store_matrix_sync(c[row:, col:], acc, c.shape[1], cuda.wmma.mem_row_major)

    return gemm


def _exact_tile_steps(a, b, kstep, out_type):
    """Reference: per k step, the exact sum of products and accumulator rounded once (Fractions)."""
    M, K = a.shape
    N = b.shape[1]
    acc = np.zeros((M, N), dtype=out_type)
    for k0 in range(0, K, kstep):
        nxt = np.empty_like(acc)
        for i in range(M):
            for j in range(N):
                total = Fraction(float(acc[i, j]))
                for kk in range(k0, k0 + kstep):
                    total += Fraction(float(a[i, kk])) * Fraction(float(b[kk, j]))
                nxt[i, j] = _round_fraction(total, out_type)
        acc = nxt
    return acc


def _round_fraction(value, out_type):
    """The out_type value nearest ``value``, ties to even (by bracketing with nextafter)."""
    guess = out_type(float(value))
    best = None
    for cand in (np.nextafter(guess, out_type(-np.inf)), guess, np.nextafter(guess, out_type(np.inf))):
        err = abs(Fraction(float(cand)) - value)
        key = (err, int(np.array(cand).view(np.uint16 if out_type == np.float16 else np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1]


@pytest.mark.parametrize("shape", [(16, 16, 16), (32, 8, 16), (8, 32, 16)], ids=str)
def test_f16_tiled_gemm_is_the_correctly_rounded_sum_per_step(shape):
    m, n, k = shape
    M, N, K = 2 * m, 2 * n, 2 * k
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    _tiled_gemm(np.float16, np.float32, m, n, k, W.row_major, W.row_major)[(N // n, M // m), 32](a, b, c)
    assert np.allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)
    if shape == (16, 16, 16):
        assert np.array_equal(c, _exact_tile_steps(a, b, k, np.float32))


def test_layouts_address_memory_as_the_gpu():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    expected = np.zeros((32, 32), np.float32)
    _tiled_gemm(np.float16, np.float32, 16, 16, 16, W.row_major, W.row_major)[(2, 2), 32](a, b, expected)
    got = np.zeros((32, 32), np.float32)
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    _tiled_gemm(np.float16, np.float32, 16, 16, 16, W.col_major, W.col_major)[(2, 2), 32](at, bt, got)
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("kind", [np.int8, np.uint8])
def test_int8_is_exact_and_wraps_like_the_gpu(kind):
    rng = np.random.default_rng(3)
    lo, hi = (-128, 128) if kind == np.int8 else (0, 256)
    a = rng.integers(lo, hi, (32, 64)).astype(kind)
    b = rng.integers(lo, hi, (64, 32)).astype(kind)
    c = np.zeros((32, 32), np.int32)
    _tiled_gemm(kind, np.int32, 16, 16, 16, W.row_major, W.row_major)[(2, 2), 32](a, b, c)
    assert np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
    # wrap-around: c starts near the int32 limit
    big = np.full((16, 16), 2**31 - 100, np.int32)
    tile_a = np.full((16, 16), 127 if kind == np.int8 else 255, kind)
    out = sim.multiply_accumulate(tile_a, tile_a, big, "s32")
    exact = tile_a.astype(np.int64) @ tile_a.astype(np.int64) + big
    assert np.array_equal(out, ((exact + 2**31) % 2**32 - 2**31).astype(np.int32))


def test_tf32_rounds_loads_to_nearest_ties_away():
    one = np.float32(1.0)
    ulp_tf32 = 2.0 ** -10
    values = np.array([1 + ulp_tf32 / 2, 1 + ulp_tf32 / 4, -(1 + ulp_tf32 / 2), 1 + 3 * ulp_tf32 / 2,
                       np.inf, -np.inf, np.finfo(np.float32).max], np.float32)
    got = sim.round_tf32(values)
    assert got[0] == one + ulp_tf32          # a tie rounds away from zero (rna), not to even
    assert got[1] == one
    assert got[2] == -(one + ulp_tf32)
    assert got[3] == one + 2 * ulp_tf32
    assert np.isinf(got[4]) and np.isinf(got[5]) and got[5] < 0
    assert np.isinf(got[6])                  # rounds past the largest tf32

    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    c = np.zeros((16, 16), np.float32)
    _tiled_gemm(W.tf32, np.float32, 16, 16, 8, W.row_major, W.row_major)[(1, 1), 32](a, b, c)
    ra, rb = sim.round_tf32(a), sim.round_tf32(b)
    assert np.array_equal(c, _exact_tile_steps(ra, rb, 8, np.float32))
    assert not np.array_equal(c, _exact_tile_steps(a, b, 8, np.float32))


def _to_bf16_bits(x):
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def test_bf16_loads_bit_patterns_from_uint16_arrays():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 16))
    b = rng.standard_normal((16, 16))
    abits, bbits = _to_bf16_bits(a), _to_bf16_bits(b)
    c = np.zeros((16, 16), np.float32)
    _tiled_gemm(W.bf16, np.float32, 16, 16, 16, W.row_major, W.row_major)[(1, 1), 32](abits, bbits, c)
    av = (abits.astype(np.uint32) << 16).view(np.float32)
    bv = (bbits.astype(np.uint32) << 16).view(np.float32)
    assert np.array_equal(c, _exact_tile_steps(av, bv, 16, np.float32))


def test_a_tie_of_float32_in_float64_is_rounded_by_the_exact_sum():
    # 1 + 2**-24 is a float32 tie; the extra 2**-60 (exact in the sum, lost in float64) decides
    terms = [1.0, 2.0 ** -24, 2.0 ** -60]
    assert sim._round_sum(terms, np.float32) == np.nextafter(np.float32(1), np.float32(2))
    assert sim._round_sum([1.0, 2.0 ** -24], np.float32) == np.float32(1)        # ties to even
    assert sim._round_sum([1.0, 2.0 ** -24, -(2.0 ** -60)], np.float32) == np.float32(1)
    assert math.isnan(sim._round_sum([math.inf, -math.inf], np.float32))


def test_f16_accumulators_round_once_to_half():
    a = np.full((16, 16), 1.0, np.float16)
    b = np.full((16, 16), 2.0 ** -11, np.float16)   # 16 * 2**-11 = 2**-7 exactly
    c = np.full((16, 16), 1.0, np.float16)
    out = sim.multiply_accumulate(a, b, c, "f16")
    assert out.dtype == np.float16 and np.all(out == np.float16(1 + 2.0 ** -7))


# ---- errors where the GPU would misbehave --------------------------------------------------

def test_every_lane_must_take_part():
    @cuda.jit
    def k(a, c):
        if cuda.threadIdx.x == 5:
            return
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        cuda.wmma.load_matrix_sync(fa, a, 16)

    with pytest.raises(RuntimeError, match=r"every lane of the warp must call it.*\[5\]"):
        k[1, 32](np.zeros(256, np.float16), None)
    with pytest.raises(RuntimeError, match=r"lane\(s\) \[5, 16, 17"):
        k[1, 16](np.zeros(256, np.float16), None)


def test_out_of_bounds_misaligned_and_bad_ldm_tiles_are_errors():
    @cuda.jit
    def k(a, start, ldm):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        cuda.wmma.load_matrix_sync(fa, a[start:], ldm)

    a = np.zeros(16 * 16, np.float16)
    k[1, 32](a, 0, 16)
    with pytest.raises(IndexError, match="past the end of the array's memory"):
        k[1, 32](a, 16, 16)
    # the allocation bounds the tile, not the view (as on the GPU, which sees a pointer)
    k[1, 32](np.zeros(400, np.float16)[:256], 0, 24)
    with pytest.raises(IndexError, match="past the end"):
        k[1, 32](np.zeros(300, np.float16)[:256], 0, 24)
    with pytest.raises(ValueError, match="not a multiple of 16"):
        k[1, 32](np.zeros(1024, np.float16), 4, 16)
    k[1, 32](np.zeros(1024, np.float16), 8, 16)
    with pytest.raises(ValueError, match="ldm must be a positive multiple of 8 for f16"):
        k[1, 32](np.zeros(1024, np.float16), 0, 20)
    with pytest.raises(TypeError, match="arrays of float16, not float32"):
        k[1, 32](np.zeros(1024, np.float32), 0, 16)


def test_lanes_must_agree_on_the_tile_and_on_filled_values():
    @cuda.jit
    def different_tiles(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        cuda.wmma.load_matrix_sync(fa, a[(cuda.threadIdx.x % 2) * 256:], 16)

    with pytest.raises(RuntimeError, match="lane 1 .* passes a different tile address"):
        different_tiles[1, 32](np.zeros(1024, np.float16))

    @cuda.jit
    def different_fill(c):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.fill_fragment(fa, cuda.threadIdx.x)
        cuda.wmma.fill_fragment(fb, 1)
        cuda.wmma.fill_fragment(acc, 0)
        cuda.wmma.mma_sync(acc, fa, fb, acc)

    with pytest.raises(RuntimeError, match="fragment a of lane 1 .* holds other values"):
        different_fill[1, 32](np.zeros(256, np.float32))

    @cuda.jit
    def uninitialised(c):
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_row_major)

    with pytest.raises(ValueError, match="used before load_matrix_sync or fill_fragment"):
        uninitialised[1, 32](np.zeros(256, np.float32))


def test_fragment_arguments_are_checked_as_in_compiled_code():
    with pytest.raises(TypeError, match="f16 fragments come in the shapes"):
        W.fragment(W.matrix_a, 16, 16, 8, np.float16, W.row_major)
    with pytest.raises(TypeError, match="needs a layout"):
        W.fragment(W.matrix_b, 16, 16, 16, np.float16)
    with pytest.raises(TypeError, match="accumulator fragment holds f32"):
        W.fragment(W.accumulator, 16, 16, 16, np.float64)
    fa = W.fragment(W.matrix_a, 16, 16, 16, np.int8, W.row_major)
    fb = W.fragment(W.matrix_b, 16, 16, 16, np.int8, W.row_major)
    acc = W.fragment(W.accumulator, 16, 16, 16, np.float32)
    with pytest.raises(TypeError, match="s8 inputs accumulate into s32, not f32"):
        sim.request_mma_sync(acc, fa, fb, acc)
    with pytest.raises(TypeError, match="only accumulator fragments are stored"):
        sim.request_store_matrix_sync(np.zeros(256, np.int8), fa, 16, W.mem_row_major)


def test_a_warp_of_a_larger_block_works_on_its_own_tile():
    """Two warps of one block, each with its own 16x16 tile of c, from shared memory."""
    @cuda.jit
    def k(a, b, c):
        warp = cuda.threadIdx.x // 32
        sa = cuda.shared.array((32, 16), np.float16, alignment=32)
        for i in range(cuda.threadIdx.x, 32 * 16, 64):
            sa[i // 16, i % 16] = a[i // 16, i % 16]
        cuda.syncthreads()
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.fill_fragment(acc, 0.5)
        cuda.wmma.load_matrix_sync(fa, sa[warp * 16:], 16)
        cuda.wmma.load_matrix_sync(fb, b, 16)
        cuda.wmma.mma_sync(acc, fa, fb, acc)
        cuda.wmma.store_matrix_sync(c[warp * 16:], acc, 16, cuda.wmma.mem_col_major)

    rng = np.random.default_rng(6)
    a = rng.integers(-4, 5, (32, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    c = np.zeros((32, 16), np.float32)
    k[1, 64](a, b, c)
    expected = a.astype(np.float64) @ b.astype(np.float64) + 0.5
    for w in range(2):   # column-major tiles: c[w*16:] holds each tile transposed
        tile = c[w * 16:(w + 1) * 16].reshape(-1).reshape(16, 16).T
        assert np.array_equal(tile, expected[w * 16:(w + 1) * 16])


def test_accumulators_load_and_store_in_either_memory_layout():
    @cuda.jit
    def transpose(src, dst):
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 32, 8, 16, np.int32)
        cuda.wmma.load_matrix_sync(acc, src, 32, cuda.wmma.mem_col_major)
        cuda.wmma.store_matrix_sync(dst, acc, 8, cuda.wmma.mem_row_major)

    src = np.arange(256, dtype=np.int32)      # column-major 32 x 8, ldm 32
    dst = np.zeros(256, np.int32)
    transpose[1, 32](src, dst)
    assert np.array_equal(dst.reshape(32, 8), src.reshape(8, 32).T)


def test_the_compiled_targets_objects_work_also_from_variables():
    """Kernels written against numba.cuda (the compiled target's stubs), with the layout and
    dtype in closure variables the transformer does not rewrite."""
    from numba_cuda.lang import stubs

    layout, precision = stubs.wmma.row_major, stubs.wmma.tf32

    @cuda.jit
    def k(a, c):
        fa = stubs.wmma.fragment(stubs.wmma.matrix_a, 16, 16, 8, precision, layout)
        fb = stubs.wmma.fragment(stubs.wmma.matrix_b, 16, 16, 8, precision, layout)
        acc = stubs.wmma.fragment(stubs.wmma.accumulator, 16, 16, 8, np.float32)
        stubs.wmma.fill_fragment(acc, 0)
        stubs.wmma.load_matrix_sync(fa, a, 8)
        stubs.wmma.load_matrix_sync(fb, a, 16)
        stubs.wmma.mma_sync(acc, fa, fb, acc)
        stubs.wmma.store_matrix_sync(c, acc, 16, stubs.wmma.mem_row_major)

    a = np.ones(256, np.float32)
    c = np.zeros(256, np.float32)
    k[1, 32](a, c)
    assert np.all(c == 8)

"""cuda.wmma (tensor cores) in compiled kernels: every supported fragment combination lowers to
PTX that ptxas accepts for each compute capability the toolkit has from sm_70 (CUDA 12) or
sm_75 (CUDA 13) on, is refused below the cc it needs with a TypingError naming it, and the
typing refuses what does not go together.  A GPU-marked test compares results with NumPy."""

import numpy as np
import pytest
from numba import cuda
from numba.core import types
from numba.core.errors import TypingError

from numba_cuda.lang import wmma_shapes as shapes
from tests.support.ptx_helpers import assemble
from tests.support.typing_errors import expect_typing_error, line_of

W = cuda.wmma
#: the ccs checked, where the installed libNVVM accepts them (sm_70 and sm_72: CUDA 12 only)
WMMA_CCS = ((6, 1), (7, 0), (7, 2), (7, 5), (8, 0), (9, 0), (10, 0), (12, 0))
DTYPES = {"f16": np.float16, "bf16": W.bf16, "tf32": W.tf32, "s8": np.int8, "u8": np.uint8,
          "f32": np.float32, "s32": np.int32}
MEMORY = {"float16": types.float16, "uint16": types.uint16, "float32": types.float32,
          "int8": types.int8, "uint8": types.uint8, "int32": types.int32}
LAYOUT = {"row": W.row_major, "col": W.col_major}
MEM_LAYOUT = {"row": W.mem_row_major, "mem": W.mem_col_major, "col": W.mem_col_major}


@pytest.fixture(scope="module")
def wmma_ccs():
    from numba_cuda.compiler import capability

    supported = set(capability.supported_ccs())
    found = tuple(cc for cc in WMMA_CCS if cc in supported)
    assert (8, 0) in found and (9, 0) in found, found
    return found


def _combinations():
    """(kind, shape, accumulator, a layout, b layout, memory layout): every shape and
    accumulator of every kind, the layouts varied between them."""
    layouts = [("row", "col", "row"), ("col", "row", "col"), ("row", "row", "row"), ("col", "col", "col")]
    out, i = [], 0
    for kind, (shape_list, accumulators, _cc) in shapes.INPUTS.items():
        for shape in shape_list:
            for acc in accumulators:
                out.append((kind, shape, acc) + layouts[i % len(layouts)])
                i += 1
    return out


COMBINATIONS = _combinations()


def _kernel(kind, shape, acc, la, lb, lc):
    m, n, k = shape
    ta, tc = DTYPES[kind], DTYPES[acc]
    fa_layout, fb_layout, mem = LAYOUT[la], LAYOUT[lb], MEM_LAYOUT[lc]

    def kernel(a, b, c, d):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, m, n, k, ta, fa_layout)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, m, n, k, ta, fb_layout)
        fc = cuda.wmma.fragment(cuda.wmma.accumulator, m, n, k, tc)
        cuda.wmma.load_matrix_sync(fa, a, 32)  # MARK-FIRST-OP
        cuda.wmma.load_matrix_sync(fb, b[16:, :], 32)
        cuda.wmma.load_matrix_sync(fc, c, 32, mem)
        cuda.wmma.mma_sync(fc, fa, fb, fc)
        cuda.wmma.fill_fragment(fa, 1)
        cuda.wmma.mma_sync(fc, fa, fb, fc)
        cuda.wmma.store_matrix_sync(d, fc, 32, mem)

    in_t = MEMORY[shapes.MEMORY_DTYPES[kind][0]]
    acc_t = MEMORY[shapes.MEMORY_DTYPES[acc][0]]
    return kernel, (in_t[:, ::1], in_t[:, ::1], acc_t[:, ::1], acc_t[:, ::1])


def _expected_instructions(kind, shape, acc, la, lb, lc):
    s = shapes.shape_text(shape)
    mma_types = f"{acc}.{acc}" if kind == "f16" else f"{acc}.{kind}.{kind}.{acc}"
    found = [f"wmma.load.a.sync.aligned.{la}.{s}.{kind} ", f"wmma.load.b.sync.aligned.{lb}.{s}.{kind} ",
             f"wmma.load.c.sync.aligned.{lc}.{s}.{acc} ", f"wmma.store.d.sync.aligned.{lc}.{s}.{acc} ",
             f"wmma.mma.sync.aligned.{la}.{lb}.{s}.{mma_types} "]
    if kind == "tf32":
        found.append("cvt.rna.tf32.f32")
    return found


def _library(fn, sig):
    """Typed and lowered once, compiled for each cc by ``get_ptx(cc)``."""
    import numba_cuda.dispatch.api  # noqa: F401 - registers the target, as cuda.compile_ptx does
    from numba_cuda.compiler.api import compile_to_library
    from numba_cuda.compiler.pipeline import CompileOptions

    library, _ = compile_to_library(fn, sig, CompileOptions.from_user(), device=False)
    return library


@pytest.mark.parametrize("combination", COMBINATIONS,
                         ids=[f"{c[0]}-{shapes.shape_text(c[1])}-{c[2]}-{c[3]}{c[4]}{c[5]}" for c in COMBINATIONS])
def test_every_fragment_combination_assembles_or_names_the_cc_it_needs(combination, wmma_ccs):
    kind, shape, acc = combination[:3]
    needed = shapes.required_cc(shape, kind)
    fn, sig = _kernel(*combination)
    library = _library(fn, sig)
    assembled = 0
    for cc in wmma_ccs:
        if cc >= needed:
            ptx = library.get_ptx(cc)
            assemble(ptx, cc)
            for instruction in _expected_instructions(*combination):
                assert instruction in ptx, (cc, instruction)
            assembled += 1
            continue
        with pytest.raises(TypingError) as info:
            library.get_ptx(cc)
        text = str(info.value)
        assert (f"cuda.wmma.load_matrix_sync ({shapes.shape_text(shape)} {kind}) needs compute "
                f"capability {needed[0]}.{needed[1]} or newer") in text, text
        assert f"compiled for compute capability {cc[0]}.{cc[1]}" in text, text
        assert f"line {line_of(fn, 'MARK-FIRST-OP')}" in text or f":{line_of(fn, 'MARK-FIRST-OP')}" in text, text
    assert assembled >= 3


def test_sm70_and_sm72_are_checked_where_the_toolkit_has_them(wmma_ccs):
    """CUDA 12's libNVVM compiles for sm_70/72 (f16 from 7.0, s8/u8 from 7.2); CUDA 13's starts at 7.5."""
    from numba_cuda.compiler import capability

    lowest = capability.supported_ccs()[0]
    if lowest > (7, 0):
        pytest.skip(f"this toolkit's libNVVM starts at compute capability {lowest[0]}.{lowest[1]} "
                    "(CUDA 13: 7.5); the CUDA 12 run checks sm_70 and sm_72")
    assert (7, 0) in wmma_ccs and (7, 2) in wmma_ccs, wmma_ccs


def _f16_gemm(a, b, c):
    fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
    fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
    acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
    cuda.wmma.fill_fragment(acc, 0)
    cuda.wmma.load_matrix_sync(fa, a, 16)
    cuda.wmma.load_matrix_sync(fb, b, 16)
    cuda.wmma.mma_sync(acc, fa, fb, acc)
    cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_row_major)


F16_SIG = (types.float16[:, ::1], types.float16[:, ::1], types.float32[:, ::1])


def test_compile_ptx_below_sm80_refuses_bf16_naming_it():
    def bf16_ok(a, c):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, cuda.wmma.bf16, cuda.wmma.row_major)
        cuda.wmma.load_matrix_sync(fa, a, 16)  # MARK-BF16
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, cuda.wmma.bf16, cuda.wmma.col_major)
        cuda.wmma.load_matrix_sync(fb, a, 16)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.fill_fragment(acc, 0.5)
        cuda.wmma.mma_sync(acc, fa, fb, acc)
        cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_col_major)

    sig = (types.uint16[:, ::1], types.float32[:, ::1])
    expect_typing_error(bf16_ok, sig, "MARK-BF16",
                        "cuda.wmma.load_matrix_sync (m16n16k16 bf16) needs compute capability 8.0 or newer",
                        "compute capability 7.5", cc=(7, 5))
    ptx, _ = cuda.compile_ptx(bf16_ok, sig, cc=(8, 0))
    assemble(ptx, (8, 0))


def test_fragments_are_written_in_place_and_filled_per_type(code):
    ptx, _ = cuda.compile_ptx(_f16_gemm, F16_SIG, cc=(8, 0))
    assemble(ptx, (8, 0))
    body = code(ptx)
    assert body.count("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32") == 1
    # fill_fragment(acc, 0): the accumulator's eight registers are 0.0, not loaded from memory
    assert "wmma.load.c" not in body


def _bad(fn, sig, marker, *words):
    expect_typing_error(fn, sig, marker, *words, cc=(8, 0))


def test_typing_refuses_unsupported_shapes_types_and_combinations():
    def bad_shape(a):
        cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 8, np.float16, cuda.wmma.row_major)  # MARK

    _bad(bad_shape, (types.float16[::1],), "MARK", "f16 fragments come in the shapes m16n16k16, m32n8k16, m8n32k16, not m16n16k8")

    def tf32_shape(a):
        cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, cuda.wmma.tf32, cuda.wmma.row_major)  # MARK

    _bad(tf32_shape, (types.float16[::1],), "MARK", "tf32 fragments come in the shapes m16n16k8")

    def no_layout(a):
        cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16)  # MARK

    _bad(no_layout, (types.float16[::1],), "MARK", "needs a layout")

    def f64(a):
        cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float64)  # MARK

    _bad(f64, (types.float16[::1],), "MARK", "an accumulator fragment holds f32", "not float64")

    def variable_m(a, m):
        cuda.wmma.fragment(cuda.wmma.accumulator, m, 16, 16, np.float32)  # MARK

    _bad(variable_m, (types.float16[::1], types.int32), "MARK", "m, n and k must be constant integers")

    def wrong_array(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        cuda.wmma.load_matrix_sync(fa, a, 16)  # MARK

    _bad(wrong_array, (types.float32[::1],), "MARK", "a f16 fragment is loaded from and stored to arrays of float16, not float32")

    def acc_without_layout(c):
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.load_matrix_sync(acc, c, 16)  # MARK

    _bad(acc_without_layout, (types.float32[::1],), "MARK", "an accumulator is loaded with a memory layout")

    def store_a(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        cuda.wmma.store_matrix_sync(a, fa, 16, cuda.wmma.mem_row_major)  # MARK

    _bad(store_a, (types.float16[::1],), "MARK", "only accumulator fragments are stored")

    def mixed(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.int8, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.mma_sync(acc, fa, fb, acc)  # MARK

    _bad(mixed, (types.float16[::1],), "MARK", "a and b must hold the same element type, not s8 and f16")

    def int_into_float(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.int8, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.int8, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.mma_sync(acc, fa, fb, acc)  # MARK

    _bad(int_into_float, (types.float16[::1],), "MARK", "s8 inputs accumulate into s32, not f32")

    def shapes_differ(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 32, 8, 16, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.mma_sync(acc, fa, fb, acc)  # MARK

    _bad(shapes_differ, (types.float16[::1],), "MARK", "all four fragments must have the same shape")

    def swapped(a):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.mma_sync(acc, fb, fa, acc)  # MARK

    _bad(swapped, (types.float16[::1],), "MARK", "a must be a matrix_a fragment, not a matrix_b one")


def test_fragments_pass_to_device_functions():
    @cuda.jit(device=True)
    def step(acc, fa, fb):
        cuda.wmma.mma_sync(acc, fa, fb, acc)

    def kernel(a, b, c):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.float16, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.float16, cuda.wmma.row_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)
        cuda.wmma.fill_fragment(acc, 0)
        cuda.wmma.load_matrix_sync(fa, a, 16)
        cuda.wmma.load_matrix_sync(fb, b, 16)
        step(acc, fa, fb)
        cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_row_major)

    ptx, _ = cuda.compile_ptx(kernel, F16_SIG, cc=(9, 0))
    assemble(ptx, (9, 0))
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx


def test_a_fragment_cannot_be_returned_from_a_device_function():
    @cuda.jit(device=True)
    def make():
        return cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.float32)

    def kernel(c):
        acc = make()
        cuda.wmma.fill_fragment(acc, 1)
        cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_row_major)

    with pytest.raises(Exception, match="cannot be returned from a device function") as info:
        cuda.compile_ptx(kernel, (types.float32[:, ::1],), cc=(8, 0))
    assert "create it in the caller and pass it in" in str(info.value)


# ---- on the GPU ----------------------------------------------------------------------------

def _gpu_tiles(kind):
    rng = np.random.default_rng(7)
    if kind == "s8":
        return rng.integers(-128, 128, (16, 16)).astype(np.int8), rng.integers(-128, 128, (16, 16)).astype(np.int8)
    return rng.standard_normal((16, 16)).astype(np.float16), rng.standard_normal((16, 16)).astype(np.float16)


@pytest.mark.gpu
def test_f16_and_s8_tiles_on_the_gpu_match_numpy_and_the_simulator():
    from numba_cuda.simulator import wmma as sim

    a, b = _gpu_tiles("f16")
    c = np.zeros((16, 16), np.float32)
    cuda.jit(_f16_gemm)[1, 32](a, b, c)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, exact, rtol=1e-5, atol=1e-5)
    simulated = sim.multiply_accumulate(a, b, np.zeros((16, 16), np.float32), "f32")
    assert np.allclose(c, simulated, rtol=1e-6, atol=1e-6)

    @cuda.jit
    def int_gemm(a, b, c):
        fa = cuda.wmma.fragment(cuda.wmma.matrix_a, 16, 16, 16, np.int8, cuda.wmma.row_major)
        fb = cuda.wmma.fragment(cuda.wmma.matrix_b, 16, 16, 16, np.int8, cuda.wmma.col_major)
        acc = cuda.wmma.fragment(cuda.wmma.accumulator, 16, 16, 16, np.int32)
        cuda.wmma.load_matrix_sync(acc, c, 16, cuda.wmma.mem_row_major)
        cuda.wmma.load_matrix_sync(fa, a, 16)
        cuda.wmma.load_matrix_sync(fb, b, 16)
        cuda.wmma.mma_sync(acc, fa, fb, acc)
        cuda.wmma.store_matrix_sync(c, acc, 16, cuda.wmma.mem_row_major)

    ia, ib = _gpu_tiles("s8")
    ic = np.arange(256, dtype=np.int32).reshape(16, 16)
    expected = ia.astype(np.int64) @ ib.T.astype(np.int64) + ic
    int_gemm[1, 32](ia, np.ascontiguousarray(ib), ic)
    assert np.array_equal(ic, expected.astype(np.int32))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["f16", "bf16", "tf32", "s8", "u8"])
def test_each_input_type_on_the_gpu_matches_the_simulator(kind):
    """One m16n16k16 (tf32: m16n16k8) product per input type: integers equal the simulator's
    exactly, floats within the tensor cores' accumulation error."""
    from numba_cuda.simulator import wmma as sim

    needed = shapes.INPUTS[kind][2]
    have = cuda.get_current_device().compute_capability
    if have < needed:
        pytest.skip(f"{kind} wmma needs compute capability {needed}; this GPU has {have}")
    m, n, k = shapes.INPUTS[kind][0][0]
    acc_kind = shapes.INPUTS[kind][1][0]
    fn, _ = _kernel(kind, (m, n, k), acc_kind, "row", "row", "row")
    rng = np.random.default_rng(11)
    memory = np.dtype(shapes.MEMORY_DTYPES[kind][0])
    if kind in ("s8", "u8"):
        lo, hi = (-128, 128) if kind == "s8" else (0, 256)
        a = rng.integers(lo, hi, (32, 32)).astype(memory)
        b = rng.integers(lo, hi, (32, 32)).astype(memory)
        c = rng.integers(-1000, 1000, (32, 32)).astype(np.int32)
    elif kind == "bf16":
        bits = lambda x: (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731
        a, b = bits(rng.standard_normal((32, 32))), bits(rng.standard_normal((32, 32)))
        c = rng.standard_normal((32, 32)).astype(np.float32)
    else:
        a = rng.standard_normal((32, 32)).astype(memory)
        b = rng.standard_normal((32, 32)).astype(memory)
        c = rng.standard_normal((32, 32)).astype(np.float32)
    d = np.zeros_like(c)
    cuda.jit(fn)[1, 32](a, b, c, d)

    def simulate(a, b, c):
        from numba_cuda.simulator import api as simulator

        out = np.zeros_like(c)
        simulator.jit(fn)[1, 32](a, b, c, out)
        return out

    expected = simulate(a, b, c)
    if kind in ("s8", "u8"):
        assert np.array_equal(d, expected)
    else:
        assert np.allclose(d, expected, rtol=1e-3, atol=1e-3)

"""cuda.atomic.*: PTX per operation and dtype, shared memory, tuple indices, errors, GPU results."""

import re

import numpy as np
import pytest
from numba import cuda, float32, float64, int32, int64, uint32, uint64

from tests.support.typing_errors import expect_typing_error

NB = {"int32": int32, "uint32": uint32, "int64": int64, "uint64": uint64,
      "float32": float32, "float64": float64}


def has_atom(body, instruction):
    """``atom.global.add.f32`` also matches ``atom.relaxed.gpu.global.add.f32`` (or ``.sys``, or no
    scope: ``atom.relaxed.global.cas.b32`` from libNVVM 13.1), the spellings libNVVM's modern reader
    (compute_100 and newer) emits for the same relaxed atomics."""
    head, rest = instruction.split(".", 1)
    return re.search(rf"{head}\.(?:relaxed\.(?:(?:gpu|sys)\.)?)?{re.escape(rest)}\b", body) is not None


def _kernel(opname):
    op = getattr(cuda.atomic, opname)

    def k(ary, vals, old):
        i = cuda.grid(1)
        old[i] = op(ary, i % 4, vals[i])

    return k


# (operation, dtype) -> a PTX instruction the lowering must produce
EXPECTED = {
    ("add", "int32"): "atom.global.add.u32",
    ("add", "uint32"): "atom.global.add.u32",
    ("add", "int64"): "atom.global.add.u64",
    ("add", "uint64"): "atom.global.add.u64",
    ("add", "float32"): "atom.global.add.f32",
    ("add", "float64"): "atom.global.add.f64",
    ("sub", "int32"): "atom.global.add.u32",   # add of the negated operand
    ("sub", "uint64"): "atom.global.add.u64",
    ("sub", "float32"): "atom.global.add.f32",
    ("sub", "float64"): "atom.global.add.f64",
    ("and_", "int32"): "atom.global.and.b32",
    ("and_", "uint64"): "atom.global.and.b64",
    ("or_", "uint32"): "atom.global.or.b32",
    ("or_", "int64"): "atom.global.or.b64",
    ("xor", "int32"): "atom.global.xor.b32",
    ("xor", "uint64"): "atom.global.xor.b64",
    ("exch", "int32"): "atom.global.exch.b32",
    ("exch", "uint64"): "atom.global.exch.b64",
    ("exch", "float32"): "atom.global.exch.b32",
    ("exch", "float64"): "atom.global.exch.b64",
    ("max", "int32"): "atom.global.max.s32",
    ("max", "uint32"): "atom.global.max.u32",
    ("max", "int64"): "atom.global.max.s64",
    ("max", "uint64"): "atom.global.max.u64",
    ("max", "float32"): "atom.global.cas.b32",
    ("max", "float64"): "atom.global.cas.b64",
    ("min", "int32"): "atom.global.min.s32",
    ("min", "uint64"): "atom.global.min.u64",
    ("min", "float32"): "atom.global.cas.b32",
    ("min", "float64"): "atom.global.cas.b64",
    ("nanmax", "int64"): "atom.global.max.s64",
    ("nanmax", "float32"): "atom.global.cas.b32",
    ("nanmin", "uint32"): "atom.global.min.u32",
    ("nanmin", "float64"): "atom.global.cas.b64",
    ("inc", "uint32"): "atom.global.inc.u32",
    ("inc", "uint64"): "atom.global.cas.b64",
    ("dec", "uint32"): "atom.global.dec.u32",
    ("dec", "uint64"): "atom.global.cas.b64",
}


@pytest.mark.parametrize("opname, dtype", sorted(EXPECTED))
def test_operation_lowering(opname, dtype, ptx_one, code):
    nbt = NB[dtype]
    body = code(ptx_one(_kernel(opname), (nbt[:], nbt[:], nbt[:])))
    assert has_atom(body, EXPECTED[opname, dtype])


@cuda.jit(device=True)
def _integer_ops(a, i):
    cuda.atomic.add(a, i, 1)
    cuda.atomic.sub(a, i, 1)
    cuda.atomic.and_(a, i, 3)
    cuda.atomic.or_(a, i, 3)
    cuda.atomic.xor(a, i, 3)
    cuda.atomic.exch(a, i, 3)
    cuda.atomic.max(a, i, 3)
    cuda.atomic.min(a, i, 3)
    cuda.atomic.nanmax(a, i, 3)
    cuda.atomic.nanmin(a, i, 3)
    cuda.atomic.cas(a, i, 1, 2)
    cuda.atomic.compare_and_swap(a, 1, 2)


@cuda.jit(device=True)
def _unsigned_ops(a, i):
    cuda.atomic.inc(a, i, 9)
    cuda.atomic.dec(a, i, 9)


@cuda.jit(device=True)
def _float_ops(a, i):
    cuda.atomic.add(a, i, 1.5)
    cuda.atomic.sub(a, i, 1.5)
    cuda.atomic.exch(a, i, 1.5)
    cuda.atomic.max(a, i, 1.5)
    cuda.atomic.min(a, i, 1.5)
    cuda.atomic.nanmax(a, i, 1.5)
    cuda.atomic.nanmin(a, i, 1.5)


def test_every_supported_combination_assembles_for_every_cc(ptx_for):
    def k(i32, u32, i64, u64, f32, f64):
        i = cuda.grid(1)
        _integer_ops(i32, i)
        _integer_ops(u32, i)
        _integer_ops(i64, i)
        _integer_ops(u64, i)
        _unsigned_ops(u32, i)
        _unsigned_ops(u64, i)
        _float_ops(f32, i)
        _float_ops(f64, i)

    ptx_for(k, (int32[:], uint32[:], int64[:], uint64[:], float32[:], float64[:]))


def test_shared_memory_and_tuple_indices(ptx_for, code):
    def k(out, vals):
        counts = cuda.shared.array((4, 4), dtype=np.float32)
        hist = cuda.shared.array(16, dtype=np.uint32)
        i = cuda.threadIdx.x
        if i < 16:
            counts[i // 4, i % 4] = 0
            hist[i] = 0
        cuda.syncthreads()
        cuda.atomic.add(counts, (i % 4, (i // 4) % 4), vals[i])
        cuda.atomic.inc(hist, i % 16, 1000)
        cuda.syncthreads()
        if i < 16:
            out[i // 4, i % 4] = counts[i // 4, i % 4] + hist[i]
            cuda.atomic.max(out, (i // 4, i % 4), -1.0)

    for cc, ptx in ptx_for(k, (float32[:, :], float32[:])).items():
        body = code(ptx)
        assert has_atom(body, "atom.shared.add.f32"), cc
        assert has_atom(body, "atom.shared.inc.u32"), cc
        assert has_atom(body, "atom.global.cas.b32"), cc


def test_returns_old_value_typed_as_the_array_dtype():
    def k(a, out):
        out[0] = cuda.atomic.add(a, 0, 1)

    ptx, resty = cuda.compile_ptx(k, (uint64[:], uint64[:]), cc=(7, 5))
    assert has_atom(ptx, "atom.global.add.u64")

    def k2(a):
        return cuda.atomic.max(a, 0, 2.5)

    _, resty = cuda.compile_ptx(k2, (float32[:],), cc=(7, 5), device=True)
    assert resty == float32


def and_on_float(a):
    cuda.atomic.and_(a, 0, 1)  # MARK-AND


def inc_on_signed(a):
    cuda.atomic.inc(a, 0, 1)  # MARK-INC


def wrong_arity(a):
    cuda.atomic.add(a, 0)  # MARK-ARITY


def wrong_index_length(a):
    cuda.atomic.add(a, (0, 1), 1)  # MARK-INDEX


def float16_add(a):
    cuda.atomic.add(a, 0, 1)  # MARK-F16


def cas_on_float(a):
    cuda.atomic.cas(a, 0, 1.0, 2.0)  # MARK-CAS


@pytest.mark.parametrize(
    "fn, argty, marker, words",
    [
        (and_on_float, float32[:], "MARK-AND", "arrays of float32 are not supported"),
        (inc_on_signed, int32[:], "MARK-INC", "arrays of int32 are not supported"),
        (wrong_arity, int32[:], "MARK-ARITY", "takes exactly 3 positional arguments"),
        (wrong_index_length, int32[:], "MARK-INDEX", "must be 1 integer(s)"),
        (cas_on_float, float64[:], "MARK-CAS", "arrays of float64 are not supported"),
    ],
)
def test_typing_errors_name_the_line(fn, argty, marker, words):
    expect_typing_error(fn, (argty,), marker, words)


def test_unsupported_dtype_is_an_error_not_a_crash(run_python):
    code = (
        "from numba import cuda, int8\n"
        "from numba.core.errors import TypingError\n"
        "def k(a):\n"
        "    cuda.atomic.add(a, 0, 1)\n"
        "try:\n"
        "    cuda.compile_ptx(k, (int8[:],), cc=(7, 5))\n"
        "except TypingError as e:\n"
        "    print('TYPING-ERROR', 'arrays of int8 are not supported' in str(e))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert "TYPING-ERROR True" in proc.stdout


# ---- GPU ----------------------------------------------------------------------------------


def _launch_reduce(opname, dtype, init, values, blocks=4, threads=64):
    kernel = cuda.jit(_kernel(opname))
    ary = cuda.to_device(np.array(init, dtype=dtype))
    vals = cuda.to_device(np.asarray(values, dtype=dtype))
    old = cuda.device_array(blocks * threads, dtype=dtype)
    kernel[blocks, threads](ary, vals, old)
    return ary.copy_to_host(), old.copy_to_host()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
def test_gpu_add_and_old_values(dtype):
    n = 256
    values = (np.arange(n) % 7 + 1).astype(dtype)   # small integers: float sums are exact
    final, old = _launch_reduce("add", dtype, [0, 0, 0, 0], values)
    slot = np.arange(n) % 4
    for j in range(4):
        mine = values[slot == j]
        assert final[j] == mine.sum()
        # The old values returned to the threads of one slot chain up: sorted by old value,
        # each one plus its own addend is the next one, from 0 up to the total.
        pairs = sorted(zip(old[slot == j].tolist(), mine.tolist()))
        running = 0
        for seen, addend in pairs:
            assert seen == running
            running += addend
        assert running == final[j]


@pytest.mark.gpu
@pytest.mark.parametrize("opname, npfunc", [("max", np.max), ("min", np.min)])
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
def test_gpu_max_min(opname, npfunc, dtype):
    rng = np.random.default_rng(0)
    values = rng.integers(1, 1000, size=256).astype(dtype)
    start = 500
    final, _ = _launch_reduce(opname, dtype, [start] * 4, values)
    for j in range(4):
        assert final[j] == npfunc(np.append(values[np.arange(256) % 4 == j], start))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpu_float_max_nan_semantics(dtype):
    @cuda.jit
    def k(res, vals):
        cuda.atomic.max(res, 0, vals[0])        # NaN val: ignored
        cuda.atomic.max(res, 1, vals[1])        # NaN in the array: kept
        cuda.atomic.nanmax(res, 2, vals[1])     # NaN in the array: replaced
        cuda.atomic.nanmin(res, 3, vals[0])     # NaN val: ignored
        cuda.atomic.min(res, 4, vals[1])        # NaN in the array: kept

    res = cuda.to_device(np.array([1.0, np.nan, np.nan, 2.0, np.nan], dtype=dtype))
    vals = cuda.to_device(np.array([np.nan, 3.0], dtype=dtype))
    k[1, 1](res, vals)
    got = res.copy_to_host()
    assert got[0] == 1.0
    assert np.isnan(got[1])
    assert got[2] == 3.0
    assert got[3] == 2.0
    assert np.isnan(got[4])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_gpu_inc_dec_wrap(dtype):
    @cuda.jit
    def k(a, old):
        i = cuda.threadIdx.x
        old[i] = cuda.atomic.inc(a, 0, 9)
        cuda.atomic.dec(a, 1, 4)

    a = cuda.to_device(np.array([0, 2], dtype=dtype))
    old = cuda.device_array(25, dtype=dtype)
    k[1, 25](a, old)
    got = a.copy_to_host()
    assert got[0] == 25 % 10
    # dec: 2 -> 1 -> 0 -> 4 (wrap to val) -> 3 ... 25 steps from 2 with period 5
    seq = [2]
    for _ in range(25):
        v = seq[-1]
        seq.append(4 if v == 0 or v > 4 else v - 1)
    assert got[1] == seq[-1]
    assert sorted(old.copy_to_host().tolist()) == sorted([n % 10 for n in range(25)])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_gpu_bitwise_exch_cas(dtype):
    @cuda.jit
    def k(a, out):
        i = cuda.threadIdx.x
        cuda.atomic.or_(a, 0, 1 << (i % 16))
        cuda.atomic.and_(a, 1, ~(1 << (i % 16)))
        cuda.atomic.xor(a, 2, 1 << (i % 16))
        out[i] = cuda.atomic.cas(a, 3, i, i + 1)   # exactly one chain 0->1->...; all see the chain
        cuda.atomic.exch(a, 4, 7)

    a = cuda.to_device(np.array([0, 0xFFFF, 0, 0, 0], dtype=dtype))
    out = cuda.device_array(32, dtype=dtype)
    k[1, 32](a, out)
    got = a.copy_to_host()
    assert got[0] == 0xFFFF
    assert got[1] == 0
    assert got[2] == 0        # every bit flipped twice
    assert 1 <= got[3] <= 32
    assert got[4] == 7


@pytest.mark.gpu
def test_gpu_compare_and_swap_lock_free_counter():
    @cuda.jit
    def k(counter):
        done = False
        while not done:
            seen = counter[0]
            done = cuda.atomic.compare_and_swap(counter, seen, seen + 1) == seen

    counter = cuda.to_device(np.zeros(1, dtype=np.int32))
    k[8, 128](counter)
    assert counter.copy_to_host()[0] == 8 * 128

"""The simulator's sanitizer (NUMBA_CUDASIM_SANITIZE): racecheck, memcheck, initcheck and
synccheck find what they should, with the thread, block and source line, and stay silent on
correct kernels."""

import inspect
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from numba import float32, float64, int32

from numba_cuda.simulator import api as cuda
from numba_cuda.simulator import sanitizer
from numba_cuda.simulator.sanitizer import SanitizerError, SanitizerWarning

HERE = Path(__file__).name


@pytest.fixture
def sanitize(monkeypatch):
    def on(tools="all", report="raise"):
        monkeypatch.setenv("NUMBA_CUDASIM_SANITIZE", tools)
        monkeypatch.setenv("NUMBA_CUDASIM_SANITIZE_REPORT", report)

    on()
    return on


def _line(fn, text):
    """The source line number of the first line of ``fn`` containing ``text``."""
    lines, first = inspect.getsourcelines(fn)
    for n, line in enumerate(lines):
        if text in line:
            return first + n
    raise AssertionError(text)


# ---- the four seeded bugs ---------------------------------------------------------------------
def racy_sum(out):
    s = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 0
    cuda.syncthreads()
    s[0] += t                      # the seeded race: every thread, no atomic, no barrier
    cuda.syncthreads()
    if t == 0:
        out[0] = s[0]


def test_racecheck_finds_a_seeded_race(sanitize):
    k = cuda.jit(racy_sum)
    with pytest.raises(SanitizerError) as info:
        k[1, 8](np.zeros(1, np.int32))
    text = str(info.value)
    line = _line(racy_sum, "the seeded race")
    assert "[racecheck] read-after-write hazard on shared array" in text
    assert "[racecheck] write-after-write hazard" in text
    assert f"write  by tid=[0, 0, 0] ctaid=[0, 0, 0] at {__file__}:{line}" in text
    assert f"read   by tid=[1, 0, 0] ctaid=[0, 0, 0] at {__file__}:{line}" in text
    report = info.value.report
    assert set(report.counts) == set(sanitizer.TOOLS)
    assert report.counts["racecheck"] > 0 and report.counts["memcheck"] == 0
    # once per pair of sites: one group per hazard kind, however many threads
    assert len(report.findings) == 2


def oob_write(out):
    i = cuda.grid(1)
    out[i] = i                     # the seeded out-of-bounds write: 12 threads, 10 elements


def test_memcheck_finds_an_out_of_bounds_write_and_goes_on(sanitize):
    k = cuda.jit(oob_write)
    out = np.zeros(10, np.int32)
    with pytest.raises(SanitizerError) as info:
        k[1, 12](out)
    text = str(info.value)
    assert "[memcheck] out-of-bounds write of global array 'out': index 10 is out of bounds " \
           "for axis 0 with size 10" in text
    assert f"by tid=[10, 0, 0] ctaid=[0, 0, 0] at {__file__}:{_line(oob_write, 'seeded')}" in text
    assert "(2 times)" in text  # threads 10 and 11, one group
    assert list(out) == list(range(10))  # the faulting writes are not performed, the rest are


def uninit_shared(out):
    s = cuda.shared.array(16, float32)
    t = cuda.threadIdx.x
    if t < 8:
        s[t] = t
    cuda.syncthreads()
    out[t] = s[t]                  # the seeded read: elements 8..15 are never written


def test_initcheck_finds_an_uninitialised_shared_read(sanitize):
    k = cuda.jit(uninit_shared)
    with pytest.raises(SanitizerError) as info:
        k[1, 16](np.zeros(16, np.float32))
    text = str(info.value)
    assert "[initcheck] read of uninitialised shared array" in text
    assert f"read by tid=[8, 0, 0] ctaid=[0, 0, 0] at {__file__}:{_line(uninit_shared, 'seeded')}" \
        in text
    assert info.value.report.counts["initcheck"] == 8


def divergent_barrier(out):
    s = cuda.shared.array(32, int32)
    t = cuda.threadIdx.x
    s[t] = t
    if t < 16:
        cuda.syncthreads()         # the seeded barrier: half of the block never reaches it
        out[t] = s[31 - t]


def test_synccheck_finds_a_divergent_barrier(sanitize):
    sanitize("synccheck")
    k = cuda.jit(divergent_barrier)
    with pytest.raises(SanitizerError) as info:
        k[1, 32](np.zeros(32, np.int32))
    text = str(info.value)
    line = _line(divergent_barrier, "seeded")
    assert f"[synccheck] barrier at {__file__}:{line} reached by only part of block [0, 0, 0]: " \
           "16 thread(s) reach it, 16 exited before it" in text
    assert "never reached by tid=[16, 0, 0]" in text
    assert set(info.value.report.counts) == {"synccheck"}  # only the tools asked for


def test_synccheck_finds_threads_waiting_at_different_barriers(sanitize):
    @cuda.jit
    def k(out):
        t = cuda.threadIdx.x
        if t % 2:
            cuda.syncthreads()     # odd
        else:
            cuda.syncthreads()     # even
        out[t] = t

    with pytest.raises(SanitizerError, match=r"divergent barrier in block \[0, 0, 0\]: the "
                                             r"threads wait at different barriers") as info:
        k[1, 8](np.zeros(8, np.int32))
    text = str(info.value)
    assert f"4 thread(s) at {__file__}:{_line(k.py_func, '# odd')}" in text
    assert f"4 thread(s) at {__file__}:{_line(k.py_func, '# even')}" in text


# ---- silence on correct kernels ---------------------------------------------------------------
TILE = 8


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = A[y, t * TILE + tx] if y < A.shape[0] and t * TILE + tx < A.shape[1] else 0
        sB[ty, tx] = B[t * TILE + ty, x] if x < B.shape[1] and t * TILE + ty < B.shape[0] else 0
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


@cuda.jit
def tree_sum(values, total):
    buf = cuda.shared.array(64, float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = values[i] if i < values.size else 0.0
    cuda.syncthreads()
    s = 32
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, buf[0])


@cuda.jit
def warp_sum(values, out):
    i = cuda.grid(1)
    v = values[i]
    for d in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, d)
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def warp_synchronous(out):
    s = cuda.shared.array(32, int32)
    lane = cuda.threadIdx.x
    s[lane] = lane
    cuda.syncwarp()
    out[lane] = s[31 - lane]       # ordered by the syncwarp: not a race


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


@cuda.jit
def dynamic_and_local(x, out):
    dyn = cuda.shared.array(0, float32)
    scratch = cuda.local.array(3, float32)
    t = cuda.threadIdx.x
    dyn[t] = x[t]
    for j in range(3):
        scratch[j] = j
    cuda.syncthreads()
    out[t] = dyn[(t + 1) % cuda.blockDim.x] + scratch[2] + x[-1] * 0  # x[-1]: wraps, as on the GPU


@cuda.jit(device=True)
def _store_twice(a, i, v):
    a[i] = v


@cuda.jit
def records_and_devices(recs, out, flags):
    i = cuda.grid(1)
    if i < recs.size:
        _store_twice(out, i, recs[i].a + recs[i].b)
    flags[0] = 1                   # every thread stores the same value: benign


def _correct_launches():
    rng = np.random.default_rng(0)
    A = rng.random((12, 10), dtype=np.float32)
    B = rng.random((10, 9), dtype=np.float32)
    C = cuda.device_array((12, 9), np.float32)
    matmul_tiled[(2, 2), (TILE, TILE)](cuda.to_device(A), cuda.to_device(B), C)
    assert np.allclose(C.copy_to_host(), A @ B, rtol=1e-5)
    vals = rng.random(200)
    total = np.zeros(1)
    tree_sum[4, 64](vals, total)
    assert np.isclose(total[0], vals.sum())
    w = np.arange(64, dtype=np.float64)
    out = np.zeros(2)
    warp_sum[1, 64](w, out)
    assert list(out) == [w[:32].sum(), w[32:].sum()]
    o32 = np.zeros(32, np.int32)
    warp_synchronous[1, 32](o32)
    assert list(o32) == list(range(31, -1, -1))
    data = rng.integers(0, 100, 300).astype(np.int32)
    bins = np.zeros(16, np.int32)
    histogram[3, 128](data, bins)
    assert list(bins) == list(np.bincount(data % 16, minlength=16))
    x = np.arange(8, dtype=np.float32)
    o = np.zeros(8, np.float32)
    dynamic_and_local[1, 8, 0, 8 * 4](x, o)
    assert list(o) == [float((t + 1) % 8 + 2) for t in range(8)]
    recs = np.zeros(5, dtype=[("a", np.float64), ("b", np.float64)])
    recs["a"], recs["b"] = np.arange(5), 10
    out5 = np.zeros(5)
    flags = np.zeros(1, np.int32)
    records_and_devices[1, 8](recs, out5, flags)
    assert list(out5) == [10.0, 11.0, 12.0, 13.0, 14.0] and flags[0] == 1


def test_silent_on_correct_kernels(sanitize):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _correct_launches()
    report = sanitizer.last_report()
    assert report is not None and not report.findings and report.errors == 0
    assert "no errors" in str(report)


def test_races_between_blocks_are_not_compared(sanitize):
    @cuda.jit
    def k(out):
        out[0] = cuda.blockIdx.x   # one writer per block: blocks are not compared

    k[4, 1](np.zeros(1, np.int32))
    assert not sanitizer.last_report().findings


def test_a_plain_write_racing_an_atomic_is_a_race_two_atomics_are_not(sanitize):
    @cuda.jit
    def k(a):
        cuda.atomic.add(a, 0, 1)
        if cuda.threadIdx.x == 3:
            a[0] = 0

    with pytest.raises(SanitizerError, match="write-after-write") as info:
        k[1, 4](np.zeros(1, np.int32))
    assert re.search(r"atomic by tid=\[\d, 0, 0\]", str(info.value))


def test_threads_mode_barriers_advance_the_epoch(sanitize):
    @cuda.jit(sim_mode="threads")
    def k(a):
        s = cuda.shared.array(8, int32)
        t = cuda.threadIdx.x
        s[t] = t
        cuda.syncthreads()
        a[t] = s[7 - t]

    a = np.zeros(8, np.int32)
    k[1, 8](a)
    assert list(a) == list(range(7, -1, -1))
    assert not sanitizer.last_report().findings
    k2 = cuda.jit(k.py_func.__wrapped__ if hasattr(k.py_func, "__wrapped__") else k.py_func)
    k2[1, 8](a)
    assert not sanitizer.last_report().findings


# ---- memcheck beyond bounds ---------------------------------------------------------------
def test_memcheck_index_below_minus_n_and_2d(sanitize):
    @cuda.jit
    def k(a, m):
        t = cuda.threadIdx.x
        v = a[t - 4]               # t=0: -4 wraps to 0 (as on the GPU); -5 does not exist
        m[t, 3] = v

    with pytest.raises(SanitizerError) as info:
        k[1, 4](np.arange(4, dtype=np.int32), np.zeros((4, 3), np.int32))
    text = str(info.value)
    assert "out-of-bounds write of global array 'm': index 3 is out of bounds for axis 1 with " \
           "size 3 (array of shape (4, 3))" in text
    assert "out-of-bounds read" not in text  # a[-4] .. a[-1] all exist


def test_memcheck_misaligned_view(sanitize):
    @cuda.jit
    def k(x, out):
        out[0] = x[0]

    raw = np.zeros(9, np.uint8)
    misaligned = raw[1:].view(np.float32)
    assert not misaligned.flags.aligned
    with pytest.raises(SanitizerError, match=r"misaligned read of global array 'x': a float32 "
                                             r"element \(alignment 4\)"):
        k[1, 1](misaligned, np.zeros(1, np.float32))


def test_memcheck_use_after_free(sanitize):
    @cuda.jit
    def k(x):
        x[cuda.threadIdx.x] += 1

    d = cuda.to_device(np.zeros(4, np.int32))
    view = d[1:]
    k[1, 3](view)
    assert not sanitizer.last_report().findings
    d.gpu_data.free()
    with pytest.raises(SanitizerError, match=r"use after free: read of global array 'x', whose "
                                             r"device memory was freed"):
        k[1, 3](view)
    assert list(d.copy_to_host()) == [0, 1, 1, 1]  # nothing was written after the free


# ---- initcheck ---------------------------------------------------------------------------
def test_initcheck_local_memory_and_atomics(sanitize):
    @cuda.jit
    def k(out):
        acc = cuda.local.array(2, float32)
        acc[0] = 1
        out[cuda.threadIdx.x] = acc[0] + acc[1]   # acc[1] never written

    with pytest.raises(SanitizerError, match=r"read of uninitialised local array at "
                                             rf"{HERE}:\d+") as info:
        k[1, 2](np.zeros(2, np.float32))
    assert info.value.report.counts["initcheck"] == 2


# ---- synccheck warnings ------------------------------------------------------------------
def test_masks_naming_missing_lanes_are_warnings(sanitize):
    @cuda.jit
    def k(out):
        out[cuda.threadIdx.x] = cuda.ballot_sync(0xFFFFFFFF, 1)

    out = np.zeros(4, np.uint32)
    with pytest.warns(SanitizerWarning, match=r"lane\(s\) 4-31 do not exist \(the block has 4 "
                                              r"threads\)"):
        k[1, 4](out)
    assert sanitizer.last_report().warnings == 1 and sanitizer.last_report().errors == 0


# ---- reporting -------------------------------------------------------------------------------
def test_warn_and_count_modes(sanitize):
    k = cuda.jit(oob_write)
    sanitize("memcheck", "warn")
    with pytest.warns(SanitizerWarning, match="out-of-bounds write"):
        k[1, 12](np.zeros(10, np.int32))
    sanitize("memcheck", "count")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[1, 11](np.zeros(10, np.int32))
    assert sanitizer.last_report().counts == {"memcheck": 1}


def test_a_kernel_exception_keeps_its_report(sanitize):
    @cuda.jit
    def k(out):
        out[0] = 1                 # a race: two threads, different values below
        out[0] = cuda.threadIdx.x
        if cuda.threadIdx.x == 1:
            raise ValueError("boom")

    with pytest.raises(SanitizerError) as info:
        k[1, 2](np.zeros(1, np.int32))
    assert isinstance(info.value.__cause__, ValueError)


def test_bad_settings_name_the_variable(sanitize):
    sanitize("racecheck,leakcheck")
    k = cuda.jit(oob_write)
    with pytest.raises(ValueError, match="NUMBA_CUDASIM_SANITIZE='racecheck,leakcheck': unknown "
                                         "tool.s. leakcheck"):
        k[1, 1](np.zeros(1, np.int32))
    sanitize("all", "loud")
    with pytest.raises(ValueError, match="NUMBA_CUDASIM_SANITIZE_REPORT='loud'"):
        k[1, 1](np.zeros(1, np.int32))


def test_off_by_default_kernels_see_plain_arrays(monkeypatch):
    monkeypatch.delenv("NUMBA_CUDASIM_SANITIZE", raising=False)
    seen = []

    @cuda.jit
    def k(a):
        s = cuda.shared.array(1, int32)
        seen.append((type(a), type(s), type(cuda.local.array(1, int32))))

    k[1, 1](np.zeros(1))
    assert seen == [(np.ndarray, np.ndarray, np.ndarray)]
    assert sanitizer.active is None


def test_the_user_page_example_reports_the_race():
    page = Path(__file__).resolve().parents[2] / "docs" / "user" / "sanitizer.rst"
    blocks = re.findall(r"\.\. testcode::\n\n((?:   .*\n|\n)+)", page.read_text())
    assert blocks
    code = "\n".join(re.sub(r"^   ", "", b, flags=re.M) for b in blocks)
    namespace = {"np": np, "cuda": cuda}
    before = os.environ.get("NUMBA_CUDASIM_SANITIZE")
    exec(compile(code, str(page), "exec"), namespace)  # noqa: S102
    assert namespace["errors"] == 124
    assert "[racecheck] read-after-write hazard on shared array" in namespace["summary"]
    assert os.environ.get("NUMBA_CUDASIM_SANITIZE") == before  # the example leaves it as it was


def test_silent_on_the_shared_test_kernels_with_grid_barriers(sanitize):
    # tests/support/kernel_sources.py: kernels the GPU tests run too (written against numba.cuda)
    from tests.support import kernel_sources

    a = np.arange(24, dtype=np.int64)
    cuda.jit(kernel_sources.shift_rounds)[6, 4](a, 5)
    assert list(a) == list(np.roll(np.arange(24), -5))
    out = np.zeros((24, 2), np.uint64)
    cuda.jit(kernel_sources.ranks)[(3, 2), 4](out)
    assert not sanitizer.last_report().findings


def test_a_race_across_no_grid_barrier_is_found(sanitize):
    @cuda.jit
    def k(a):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        v = a[(i + 1) % a.size]
        g.sync()
        a[i] = v
        v = a[(i + 1) % a.size]    # the race: no grid barrier after the writes
        a[i] = v

    with pytest.raises(SanitizerError, match="read-after-write|write-after-read"):
        k[1, 4](np.arange(4, dtype=np.int64))

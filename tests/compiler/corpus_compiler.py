"""Compiler corpus: indexing, types, arrays, control flow, device functions.

Corpus convention (shared with other areas): any file named ``corpus_*.py`` under ``tests/``
defines ``CORPUS``, a list of ``(name, python_function, signature, device)``; the compiler's
corpus test (``tests/compiler/test_corpus_ptxas.py``) compiles every entry for each compute
capability and feeds the PTX to ``ptxas``.  ``signature`` is anything ``cuda.jit`` accepts.
Functions must be plain Python functions (not decorated); device functions they call may be
``@cuda.jit(device=True)`` or ``@numba.njit`` objects.
"""

import math  # noqa: F401  (kept for contributors; math is the kernel-language family's)

import numpy as np
from numba import cuda, njit, types
from numba.cuda import grid, laneid, threadIdx, warpsize
from numba.types import (
    boolean, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8, uint16,
    uint32, uint64, void,
)

CORPUS = []


def case(sig, device=False, name=None):
    def register(fn):
        CORPUS.append((name or fn.__name__, fn, sig, device))
        return fn

    return register


f32_1d = float32[::1]
f64_1d = float64[::1]
i32_1d = int32[::1]
i64_1d = int64[::1]

# ---- indexing ----------------------------------------------------------------------------


@case(void(f32_1d, f32_1d))
def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1


@case(void(i32_1d))
def thread_block_ids(out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i < out.shape[0]:
        out[i] = cuda.threadIdx.y + cuda.threadIdx.z + cuda.blockIdx.y + cuda.blockIdx.z


@case(void(int32[:, ::1]))
def grid_2d(out):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 1000 + y


@case(void(int64[:, :, ::1]))
def grid_3d_gridsize(out):
    x, y, z = cuda.grid(3)
    sx, sy, sz = cuda.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = sx * sy * sz


@case(void(i64_1d))
def grid_stride_loop(out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, out.size, stride):
        out[i] = i


@case(void(i32_1d))
def dims_and_lanes(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (cuda.blockDim.x * cuda.gridDim.x + cuda.blockDim.y * cuda.gridDim.y
                  + cuda.blockDim.z + cuda.gridDim.z + cuda.laneid + cuda.warpsize)


@case(void(i32_1d))
def bare_imported_names(out):
    # the kernel-language names imported on their own: ``from numba.cuda import laneid``
    i = grid(1)
    if i < out.size:
        out[i] = threadIdx.x + laneid + warpsize


@case(void(i64_1d))
def gridsize_2d(out):
    sx, sy = cuda.gridsize(2)
    out[0] = sx + sy


# ---- scalar types and arithmetic ------------------------------------------------------------


@case(void(int8[::1], int16[::1], uint8[::1], uint16[::1]))
def small_ints_wrap(a, b, c, d):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] + int8(100)
        b[i] = b[i] * int16(300)
        c[i] = c[i] - uint8(1)
        d[i] = d[i] << uint16(3)


@case(void(uint32[::1], uint64[::1], int64[::1]))
def wide_ints_bitops(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = (a[i] ^ uint32(0xFFFF)) | (a[i] >> uint32(3))
        b[i] = (b[i] & uint64(0xF0F0)) + ~b[i]
        c[i] = (c[i] << 2) >> 1


@case(void(i64_1d, i64_1d))
def int_division_rules(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[i] = x // 3 + x % 3 + (-x) // 7 + (-x) % 7


@case(void(f64_1d, f64_1d))
def float_division_rules(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[i] = x / 3.0 + x // 2.5 + x % 1.5


@case(void(i32_1d, f64_1d))
def true_division_of_ints(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] / 7


@case(void(f32_1d, f64_1d, i32_1d))
def casts_and_constructors(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = np.float32(b[i]) + float32(c[i])
        b[i] = np.float64(a[i]) * float64(2)
        c[i] = np.int32(b[i]) + int32(a[i]) + np.int32(np.uint8(300 % 256))


@case(void(boolean[::1], f64_1d))
def booleans(flags, x):
    i = cuda.grid(1)
    if i < flags.size:
        b = x[i] > 0.5
        flags[i] = (b and not flags[i]) or (x[i] < -1.0)


@case(void(complex64[::1], complex128[::1]))
def complex_arith(a, b):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i]
        w = b[i]
        a[i] = z * z + complex64(1 + 2j)
        b[i] = w / (w + 1j) - w.conjugate() + w.real + w.imag


@case(void(f64_1d))
def mixed_precision(a):
    i = cuda.grid(1)
    if i < a.size:
        x32 = float32(a[i])
        y = x32 * 3 + int16(2) + uint8(1)
        a[i] = y + True


@case(void(i64_1d))
def int_power_and_abs(a):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        a[i] = abs(x - 10) + x ** 2 + min(x, 5) + max(x, -5)


@case(float64(float64, float64), device=True)
def dev_float_minmax(x, y):
    return max(x, y) - min(x, y) + abs(x)


@case(void(f64_1d))
def float_compare_chain(a):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        if 0.0 < x <= 1.0:
            a[i] = -x
        elif x != x:
            a[i] = 0.0


# ---- tuples -------------------------------------------------------------------------------------


@case(void(i64_1d, types.UniTuple(int64, 3)))
def tuple_argument(out, t):
    a, b, c = t
    out[0] = a + b * c + len(t)


@case(void(f64_1d, types.Tuple((int32, float64, boolean))))
def heterogeneous_tuple(out, t):
    if t[2]:
        out[0] = t[0] + t[1]


@case(types.UniTuple(int64, 2)(int64, int64), device=True)
def dev_divmod_tuple(a, b):
    q = a // b
    return q, a - q * b


@case(void(i64_1d))
def tuple_build_and_index(out):
    t = (1, 2, 3, 4)
    s = 0
    for v in t:
        s += v
    out[0] = s + t[cuda.threadIdx.x % 4] + t[-1]


# ---- arrays ------------------------------------------------------------------------------------------


@case(void(float64[:, :], float64[:, :]))
def any_layout_2d_copy(dst, src):
    x, y = cuda.grid(2)
    if x < dst.shape[0] and y < dst.shape[1]:
        dst[x, y] = src[x, y]


@case(void(float32[::1, :], float32[:, ::1]))
def fortran_transpose(dst, src):
    x, y = cuda.grid(2)
    if x < dst.shape[0] and y < dst.shape[1]:
        dst[x, y] = src[y, x]


@case(void(float64[:, :, :, ::1]))
def four_d_array(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for m in range(a.shape[3]):
                    a[i, j, k, m] = i + j + k + m


@case(void(i64_1d, float64[:, :]))
def shape_size_ndim_strides(out, a):
    out[0] = a.shape[0] * a.shape[1]
    out[1] = a.size
    out[2] = a.ndim
    out[3] = a.strides[0] + a.strides[1]
    out[4] = len(a)


@case(void(f64_1d, f64_1d))
def slicing_1d(dst, src):
    s = src[1:-1:2]
    d = dst[: s.size]
    i = cuda.grid(1)
    if i < d.size:
        d[i] = s[i]


@case(void(float64[:, ::1], f64_1d))
def slicing_rows_and_columns(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        row = a[i]
        col = a[:, 0]
        tail = a[i, 1:]
        s = 0.0
        for j in range(tail.size):
            s += tail[j]
        out[i] = row[0] + col[i] + s if a.shape[1] > 1 else row[0]


@case(void(f64_1d, f64_1d))
def array_iteration(a, out):
    s = 0.0
    for v in a:
        s += v
    for idx, v in enumerate(a):
        s += idx * v
    out[0] = s


@case(void(float64[:, ::1], f64_1d))
def iterate_rows(a, out):
    total = 0.0
    for row in a:
        for v in row:
            total += v
    out[0] = total


@case(void(int32[:, :], types.UniTuple(int64, 2)))
def tuple_index(a, idx):
    a[idx] = a[idx] + 1


@case(void(uint8[::1], f32_1d))
def array_of_small_dtype(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = uint8(b[i])


@case(void(f64_1d))
def negative_indexing(a):
    a[-1] = a[-2] + a[0]


@case(void(float64[:, :, :]))
def three_d_any_layout(a):
    x, y, z = cuda.grid(3)
    if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
        a[x, y, z] *= 2.0


@case(void(types.Array(float32, 1, "A", readonly=True), f32_1d))
def readonly_input(src, dst):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]


# ---- control flow ------------------------------------------------------------------------------------


@case(void(i32_1d))
def if_elif_else(a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        if v < 0:
            a[i] = -1
        elif v == 0:
            a[i] = 0
        elif v < 10:
            a[i] = 1
        else:
            a[i] = 2


@case(void(i64_1d))
def while_break_continue(a):
    i = cuda.grid(1)
    if i >= a.size:
        return
    n = a[i]
    steps = 0
    while True:
        if n == 1:
            break
        steps += 1
        if n % 2 == 0:
            n //= 2
            continue
        n = 3 * n + 1
    a[i] = steps


@case(void(i64_1d))
def range_forms(a):
    s = 0
    for i in range(10):
        s += i
    for i in range(2, 10):
        s += i
    for i in range(10, 0, -3):
        s -= i
    a[0] = s


@case(void(f64_1d))
def nested_loops_early_exit(a):
    for i in range(a.size):
        for j in range(i):
            if a[j] > a[i]:
                a[i] = a[j]
                break
        else:
            a[i] += 1.0


@case(int64(int64), device=True)
def dev_early_return(n):
    if n < 0:
        return 0
    for i in range(n):
        if i * i > n:
            return i
    return n


@case(void(f64_1d))
def ternaries(a):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        a[i] = x if x > 0 else -x if x < -10 else 0.0


# ---- device functions ------------------------------------------------------------------------------------


@cuda.jit(device=True)
def _dev_square(x):
    return x * x


@cuda.jit(device=True)
def _dev_sum_squares(x, y):
    return _dev_square(x) + _dev_square(y)


@njit
def _njit_helper(x):
    return 2 * x + 1


@njit
def _njit_calls_njit(x):
    return _njit_helper(x) * 3


@case(void(f64_1d))
def calls_device_functions(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _dev_sum_squares(a[i], 2.0) + _dev_square(3)


@case(void(i64_1d))
def calls_njit_functions(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _njit_calls_njit(a[i]) + _njit_helper(1)


@case(float32(float32, int32), device=True)
def dev_calls_dev(x, n):
    acc = float32(0)
    for _ in range(n):
        acc += _dev_square(x)
    return acc


@case(void(f64_1d, f64_1d), device=True)
def dev_void_array(a, b):
    for i in range(a.size):
        a[i] = b[i]


@cuda.jit(device=True)
def _dev_returns_tuple(x):
    return x, x + 1, x * 2.0


@case(void(f64_1d))
def uses_tuple_returning_device_function(a):
    p, q, r = _dev_returns_tuple(a[0])
    a[1] = p + q + r

"""The Python objects behind the kernel language (``cuda.threadIdx``, ``cuda.syncthreads`` ...).

These objects do nothing by themselves: inside a ``@cuda.jit`` function the
compiler recognises them (by identity) and types and lowers them; the
typing/lowering of each family lives in its own module of ``numba_cuda.lang``.
Used outside a kernel they raise an error that says so.  Namespaces
(``cuda.shared``, ``cuda.atomic`` ...) are module objects so that Numba types
``cuda.atomic.add`` as an attribute of a module.

Add a stub here when a family gains a new public name, and list it in
``numba_cuda/_exports.py``.
"""

import types as _pytypes


class KernelOnlyError(RuntimeError):
    """A kernel-language object was used outside a CUDA kernel or device function."""


class Stub:
    """Base of every kernel-language object; ``qualname`` is its public spelling."""

    def __init__(self, qualname, doc=""):
        self.qualname = qualname
        self.__doc__ = doc

    def __repr__(self):
        return f"<numba.cuda kernel-language object {self.qualname}>"

    def __reduce__(self):
        return self.qualname  # pickled by reference (resolved through numba_cuda)


class FunctionStub(Stub):
    """A function callable only inside kernels and device functions."""

    def __call__(self, *args, **kwargs):
        raise KernelOnlyError(
            f"{self.qualname}() can only be called inside a function compiled with "
            f"@cuda.jit (or run under the simulator, NUMBA_ENABLE_CUDASIM=1)"
        )


class Dim3Stub(Stub):
    """``threadIdx``/``blockIdx``/``blockDim``/``gridDim``: read ``.x``, ``.y``, ``.z`` in a kernel."""

    def __getattr__(self, name):
        if name in ("x", "y", "z"):
            raise KernelOnlyError(f"{self.qualname}.{name} is only meaningful inside a CUDA kernel")
        raise AttributeError(name)


class ValueStub(Stub):
    """A per-thread value such as ``cuda.laneid`` or ``cuda.warpsize``."""


def _namespace(name, doc, **members):
    module = _pytypes.ModuleType(f"numba.cuda.{name}", doc)
    for member_name, member in members.items():
        setattr(module, member_name, member)
    return module


def _fn(qualname, doc=""):
    return FunctionStub(f"numba.cuda.{qualname}", doc)


# ---- indexing ----------------------------------------------------------------
threadIdx = Dim3Stub("numba.cuda.threadIdx", "Index of the thread in its block (x, y, z).")
blockIdx = Dim3Stub("numba.cuda.blockIdx", "Index of the block in the grid (x, y, z).")
blockDim = Dim3Stub("numba.cuda.blockDim", "Threads per block (x, y, z).")
gridDim = Dim3Stub("numba.cuda.gridDim", "Blocks per grid (x, y, z).")
laneid = ValueStub("numba.cuda.laneid", "Index of the thread in its warp, 0..warpsize-1.")
warpsize = ValueStub("numba.cuda.warpsize", "Threads per warp (32).")
grid = _fn("grid", "grid(ndim): the absolute thread position, an int or a tuple of ndim ints.")
gridsize = _fn("gridsize", "gridsize(ndim): the total number of threads in the grid per dimension.")

# ---- memory --------------------------------------------------------------------
shared = _namespace(
    "shared",
    "Block-shared memory.",
    array=_fn("shared.array", "shared.array(shape, dtype): a block-shared array; shape=0 sizes it at launch."),
)
local = _namespace(
    "local",
    "Thread-local memory.",
    array=_fn("local.array", "local.array(shape, dtype): a per-thread array."),
)
const = _namespace(
    "const",
    "Constant memory.",
    array_like=_fn("const.array_like", "const.array_like(ndarray): a copy of a global array in constant memory."),
)

# ---- synchronisation -------------------------------------------------------------
syncthreads = _fn("syncthreads", "Barrier for all threads of the block.")
syncthreads_count = _fn("syncthreads_count", "Barrier; returns how many threads passed a true predicate.")
syncthreads_and = _fn("syncthreads_and", "Barrier; returns 1 if the predicate is true for all threads.")
syncthreads_or = _fn("syncthreads_or", "Barrier; returns 1 if the predicate is true for any thread.")
syncwarp = _fn("syncwarp", "syncwarp(mask=0xffffffff): barrier for the threads of a warp in mask.")
threadfence = _fn("threadfence", "Memory fence at device scope.")
threadfence_block = _fn("threadfence_block", "Memory fence at block scope.")
threadfence_system = _fn("threadfence_system", "Memory fence at system scope.")

# ---- atomics ---------------------------------------------------------------------
_ATOMIC_OPS = (
    "add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor",
    "exch", "inc", "dec", "compare_and_swap", "cas",
)
atomic = _namespace(
    "atomic",
    "Atomic read-modify-write operations on global or shared arrays; each returns the old value.",
    **{op: _fn(f"atomic.{op}") for op in _ATOMIC_OPS},
)

# ---- loads and stores with a cache operator (numba_cuda.lang.cache_hints) ----------------
ldca = _fn("ldca", "ldca(array, i): array[i] loaded with ld.global.ca (cache at all levels).")
ldcg = _fn("ldcg", "ldcg(array, i): array[i] loaded with ld.global.cg (cache in L2, not L1).")
ldcs = _fn("ldcs", "ldcs(array, i): array[i] loaded with ld.global.cs (streaming, evict first).")
ldlu = _fn("ldlu", "ldlu(array, i): array[i] loaded with ld.global.lu (last use).")
ldcv = _fn("ldcv", "ldcv(array, i): array[i] loaded with ld.global.cv (volatile, fetch again).")
stcg = _fn("stcg", "stcg(array, i, value): array[i] = value with st.global.cg (cache in L2).")
stcs = _fn("stcs", "stcs(array, i, value): array[i] = value with st.global.cs (streaming).")
stwb = _fn("stwb", "stwb(array, i, value): array[i] = value with st.global.wb (write back).")
stwt = _fn("stwt", "stwt(array, i, value): array[i] = value with st.global.wt (write through).")

# ---- bit and arithmetic intrinsics --------------------------------------------------
popc = _fn("popc", "Number of set bits.")
clz = _fn("clz", "Number of leading zero bits.")
ffs = _fn("ffs", "Position (1-based) of the least significant set bit, 0 if none.")
brev = _fn("brev", "Bit reversal.")
fma = _fn("fma", "Fused multiply-add a * b + c with a single rounding.")
cbrt = _fn("cbrt", "Cube root.")
selp = _fn("selp", "selp(pred, a, b): a if pred else b, without branching.")

# ---- warp level --------------------------------------------------------------------
shfl_sync = _fn("shfl_sync", "shfl_sync(mask, value, src_lane)")
shfl_up_sync = _fn("shfl_up_sync", "shfl_up_sync(mask, value, delta)")
shfl_down_sync = _fn("shfl_down_sync", "shfl_down_sync(mask, value, delta)")
shfl_xor_sync = _fn("shfl_xor_sync", "shfl_xor_sync(mask, value, lane_mask)")
all_sync = _fn("all_sync", "all_sync(mask, predicate)")
any_sync = _fn("any_sync", "any_sync(mask, predicate)")
eq_sync = _fn("eq_sync", "eq_sync(mask, predicate)")
ballot_sync = _fn("ballot_sync", "ballot_sync(mask, predicate)")
match_any_sync = _fn("match_any_sync", "match_any_sync(mask, value)")
match_all_sync = _fn("match_all_sync", "match_all_sync(mask, value) -> (mask, pred)")
activemask = _fn("activemask", "Mask of the currently active threads of the warp.")
lanemask_lt = _fn("lanemask_lt", "Mask of the lanes below the calling thread's lane.")

# ---- cooperative groups (numba_cuda.lang.cg) ------------------------------------------
cg = _namespace(
    "cg",
    "Cooperative groups: this_grid() gives the group of every thread of the launch; its sync() "
    "is a grid-wide barrier (the kernel is then launched cooperatively).",
    this_grid=_fn("cg.this_grid", "this_grid(): the grid group (sync(), size(), thread_rank())."),
    GridGroup=Stub("numba.cuda.cg.GridGroup",
                   "The type of this_grid()'s value; it exists only inside kernels."),
)

# ---- tensor cores (numba_cuda.lang.wmma) ------------------------------------------------
wmma = _namespace(
    "wmma",
    "Warp matrix multiply-accumulate on tensor cores, as CUDA C++'s nvcuda::wmma: fragments, "
    "load_matrix_sync, store_matrix_sync, fill_fragment, mma_sync; see numba_cuda.lang.wmma.",
    fragment=_fn("wmma.fragment", "fragment(use, m, n, k, dtype[, layout]): a warp's fragment of a matrix."),
    load_matrix_sync=_fn("wmma.load_matrix_sync",
                         "load_matrix_sync(frag, array, ldm[, mem_layout]): load a tile (every lane of the warp)."),
    store_matrix_sync=_fn("wmma.store_matrix_sync",
                          "store_matrix_sync(array, frag, ldm, mem_layout): store an accumulator tile."),
    fill_fragment=_fn("wmma.fill_fragment", "fill_fragment(frag, value): every element of frag = value."),
    mma_sync=_fn("wmma.mma_sync", "mma_sync(d, a, b, c): d = a @ b + c on the warp's tensor cores."),
    **{name: Stub(f"numba.cuda.wmma.{name}", doc) for name, doc in (
        ("matrix_a", "Fragment use: the m x k left operand."),
        ("matrix_b", "Fragment use: the k x n right operand."),
        ("accumulator", "Fragment use: the m x n accumulator (c and d)."),
        ("row_major", "Fragment layout of matrix_a/matrix_b: rows are contiguous in memory."),
        ("col_major", "Fragment layout of matrix_a/matrix_b: columns are contiguous in memory."),
        ("mem_row_major", "Memory layout of an accumulator tile for load/store: row-major."),
        ("mem_col_major", "Memory layout of an accumulator tile for load/store: column-major."),
        ("bf16", "Element type of bfloat16 matrix_a/matrix_b fragments (arrays of uint16 bit patterns)."),
        ("tf32", "Element type of TensorFloat-32 matrix_a/matrix_b fragments (float32 arrays, rounded on load)."),
    )},
)

# ---- misc ------------------------------------------------------------------------------
nanosleep = _fn("nanosleep", "nanosleep(ns): suspend the thread for about ns nanoseconds.")

# ---- the two 16-bit float families (numba_cuda.lang.half_family, .fp16, .bf16) ----------
#: what both compute through float32 (numba_cuda.lang.half_family.COMMON_FUNCTIONS)
_HALF_COMMON_OPS = (
    "htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2", "hlog10",
    "hcos", "hsin", "htanh", "htanh_approx", "hexp", "hexp2", "hexp10",
    "heq", "hne", "hgt", "hge", "hlt", "hle", "hequ", "hneu", "hgtu", "hgeu", "hltu", "hleu",
    "hmax", "hmin", "hmax_nan", "hmin_nan", "hisnan", "hisinf",
    "hadd", "hsub", "hmul", "hdiv", "hfma", "hneg", "habs",
    "hadd_rn", "hadd_sat", "hsub_rn", "hsub_sat", "hmul_rn", "hmul_sat", "hfma_sat", "hfma_relu",
)
fp16 = _namespace(
    "fp16",
    "Half-precision (float16) arithmetic, math and comparisons; see numba_cuda.lang.fp16.",
    **{op: _fn(f"fp16.{op}") for op in _HALF_COMMON_OPS},
    atomicAdd=_fn("fp16.atomicAdd", "atomicAdd(address, val): adds val to the float16 at address atomically; the old value."),
)

#: CUDA's integer names in the bfloat16 conversions -> NumPy's
BF16_INTEGERS = {"short": "int16", "ushort": "uint16", "int": "int32", "uint": "uint32",
                 "ll": "int64", "ull": "uint64"}
BF16_ROUNDINGS = ("rn", "rz", "rd", "ru")


def _bf16_conversion_names():
    """CUDA-style conversion name -> NumPy-style alias (NVIDIA's numba-cuda offers both)."""
    names = {"bfloat162float": "bfloat16_to_float32", "float2bfloat16": "float32_to_bfloat16",
             "double2bfloat16": "float64_to_bfloat16",
             "bfloat162char_rz": "bfloat16_to_int8_rz", "bfloat162uchar_rz": "bfloat16_to_uint8_rz",
             "bfloat16_as_short": "bfloat16_as_int16", "bfloat16_as_ushort": "bfloat16_as_uint16",
             "short_as_bfloat16": "int16_as_bfloat16", "ushort_as_bfloat16": "uint16_as_bfloat16"}
    for mode in BF16_ROUNDINGS:
        names[f"float2bfloat16_{mode}"] = f"float32_to_bfloat16_{mode}"
        for cname, npname in BF16_INTEGERS.items():
            names[f"{cname}2bfloat16_{mode}"] = f"{npname}_to_bfloat16_{mode}"
            names[f"bfloat162{cname}_{mode}"] = f"bfloat16_to_{npname}_{mode}"
    return names


BF16_CONVERSIONS = _bf16_conversion_names()
_BF16_OPS = _HALF_COMMON_OPS + tuple(BF16_CONVERSIONS)
bf16 = _namespace(
    "bf16",
    "bfloat16 values (bfloat16(x) converts a number), arithmetic, math and conversions; "
    "see numba_cuda.lang.bf16.",
    bfloat16=_fn("bf16.bfloat16", "bfloat16(x): x (any number) rounded to bfloat16."),
    **{op: _fn(f"bf16.{op}") for op in _BF16_OPS},
)
for _cuda_name, _numpy_name in BF16_CONVERSIONS.items():
    setattr(bf16, _numpy_name, getattr(bf16, _cuda_name))  # the same object under both names

# ---- CUDA vector types (host classes in numba_cuda.lang.vector_values) -------------------
from .vector_values import _VECTOR_BASES, _VECTOR_FIELDS, VECTOR_TYPES, VectorValue  # noqa: E402,F401

globals().update(VECTOR_TYPES)

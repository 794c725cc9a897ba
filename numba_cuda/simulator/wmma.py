"""``cuda.wmma`` in the simulator: tensor-core fragments computed for the whole warp.

``load_matrix_sync``, ``store_matrix_sync`` and ``mma_sync`` are warp collectives, as on the GPU:
every one of the warp's 32 lanes must reach the same call (a lane that exited, or a warp with
fewer than 32 threads, is an error) with the same arguments -- the same tile address, ``ldm``
and layout, and fragments holding the same values.  The simulator then does the operation once
for the warp.  ``fill_fragment`` is per lane (as on the GPU); a fragment whose lanes were filled
with different values cannot take part in ``mma_sync`` or a store (CUDA leaves the mapping of
elements to lanes unspecified, so such a fragment has no defined meaning).

Each lane's fragment object holds the whole tile (rows x cols) in the element type: f16 as
float16, bf16 and tf32 as float32 on their grids (bf16: 8 significant bits; tf32: 11, rounded
from the loaded float32 to nearest, ties away from zero, as the compiled code's
``cvt.rna.tf32.f32``), s8/u8 as int8/uint8, accumulators as float32/float16/int32.

What ``mma_sync`` computes:

* integers (s8/u8 -> s32): exactly, wrapping modulo 2**32 (no ``.satfinite``), as the GPU;
* floating point: every product exactly (two f16/bf16/tf32 significands fit a float64's), then
  the exact sum of the k products and c, rounded once to the accumulator type (to nearest, ties
  to even; ``math.fsum`` plus a correction where its float64 result is a tie of the target
  type).  CUDA does not specify the order or the intermediate precision of the tensor cores'
  additions, so GPU results can differ from these in the last bits (most on sums that
  cancel); the simulator's result is the correctly rounded one.  Infinities and NaNs
  propagate as in IEEE arithmetic.

Loads and stores address memory as the GPU does: the tile starts at the array view's first
element, and element (r, c) is ``r * ldm + c`` elements after it (row-major; column-major:
``c * ldm + r``), whatever the view's own shape and strides; a tile that reaches outside the
array's allocation, an offset from the allocation that is not a multiple of 16 bytes or an
``ldm`` that is not a multiple of 16 bytes is an error here, where the GPU would fault or read
garbage.
"""

import math

import numpy as np

from ..lang import wmma_shapes as shapes
from . import collectives as coll
from .threadstate import FULL_MASK, WARP_SIZE

# ---- opcodes (warp collectives, see collectives.py) ------------------------------------
LOAD = 40
STORE = 41
MMA = 42

#: Bytes a tile's address must be a multiple of (from the start of its allocation).  CUDA's
#: programming guide asks for 256-bit alignment; the wmma instructions move 128-bit pieces, and
#: CUDA's own samples step k by 16 int8 (16 bytes), so 16 is what is refused below.
ALIGNMENT = 16


class _Marker:
    __slots__ = ("name", "group", "value")

    def __init__(self, name, group, value):
        self.name, self.group, self.value = name, group, value

    def __repr__(self):
        return f"numba.cuda.wmma.{self.name}"

    def __reduce__(self):
        return (_marker_by_name, (self.name,))


_MARKERS = {
    name: _Marker(name, group, value) for name, (group, value) in {
        "matrix_a": ("use", "a"), "matrix_b": ("use", "b"), "accumulator": ("use", "c"),
        "row_major": ("layout", "row"), "col_major": ("layout", "col"),
        "mem_row_major": ("mem_layout", "row"), "mem_col_major": ("mem_layout", "col"),
        "bf16": ("precision", "bf16"), "tf32": ("precision", "tf32"),
    }.items()
}


def _marker_by_name(name):
    return _MARKERS[name]


def _as_marker(value):
    """``value``, or the simulator's twin of the compiled target's stub ``value`` (kernels may
    hold ``cuda.wmma.row_major`` in a variable, which the transformer does not rewrite)."""
    if isinstance(value, _Marker):
        return value
    qualname = getattr(value, "qualname", None)
    if isinstance(qualname, str) and qualname.startswith("numba.cuda.wmma."):
        return _MARKERS.get(qualname[len("numba.cuda.wmma."):], value)
    return value


def _marker(value, group, what):
    value = _as_marker(value)
    if isinstance(value, _Marker) and value.group == group:
        return value.value
    raise TypeError(f"cuda.wmma.{what}, not {value!r}")


#: tile dtype per kind (bf16/tf32 are float32 values on their grids)
_TILE_DTYPES = {"f16": np.float16, "bf16": np.float32, "tf32": np.float32, "s8": np.int8,
                "u8": np.uint8, "f32": np.float32, "s32": np.int32}


class Fragment:
    """One lane's ``cuda.wmma.fragment``; ``tile`` is the whole matrix (None until loaded/filled)."""

    __slots__ = ("use", "shape", "kind", "layout", "tile")

    def __init__(self, use, shape, kind, layout):
        self.use, self.shape, self.kind, self.layout = use, shape, kind, layout
        self.tile = None

    @property
    def key(self):
        return (self.use, self.shape, self.kind, self.layout)

    def __repr__(self):
        tail = f", {self.layout}_major" if self.layout else ""
        return (f"<wmma.fragment({shapes.USE_NAMES[self.use]}, {shapes.shape_text(self.shape)}, "
                f"{self.kind}{tail}) (simulator)>")


def _dtype_kind(dtype):
    dtype = _as_marker(dtype)
    if isinstance(dtype, _Marker) and dtype.group == "precision":
        return dtype.value
    try:
        name = np.dtype(getattr(dtype, "key", dtype) if not isinstance(dtype, type) else dtype).name
    except TypeError:
        name = str(dtype)
    return shapes.DTYPE_KINDS.get(name, name)


def fragment(use, m, n, k, dtype, layout=None):
    """A fragment of a warp's matrix (see :mod:`numba_cuda.lang.wmma`)."""
    use = _marker(use, "use", "fragment: the first argument must be matrix_a, matrix_b or accumulator")
    if layout is not None:
        layout = _marker(layout, "layout", "fragment: the layout must be row_major or col_major")
    shape = (int(m), int(n), int(k))
    kind = _dtype_kind(dtype)
    problem = shapes.check_fragment(use, shape, kind, layout)
    if problem:
        raise TypeError(f"cuda.wmma.fragment: {problem}")
    return Fragment(use, shape, kind, layout)


def _check_fragment(op, frag, what="the fragment"):
    if not isinstance(frag, Fragment):
        raise TypeError(f"cuda.wmma.{op}: {what} must be a cuda.wmma.fragment, not {frag!r}")


def _check_filled(op, frag, name="the fragment"):
    if frag.tile is None:
        raise ValueError(f"cuda.wmma.{op}: {name} ({frag!r}) is used before load_matrix_sync or "
                         "fill_fragment gave it values (on the GPU its registers hold garbage)")


# ---- conversions -----------------------------------------------------------------------------

def round_tf32(values):
    """float32 values rounded to TensorFloat-32 (10 fraction bits), to nearest, ties away from
    zero (``cvt.rna.tf32.f32``); infinities and NaNs unchanged."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32)
    finite = (bits & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
    rounded = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return np.where(finite, rounded, bits).astype(np.uint32).view(np.float32)


def _bf16_from_bits(bits):
    return (bits.astype(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def _bf16_round(values):
    """float32 values rounded to bfloat16 (nearest, ties to even; NaN -> 0x7FC0), as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    lsb = (bits >> np.uint32(16)) & np.uint32(1)
    rounded = ((bits + lsb + np.uint32(0x7FFF)) >> np.uint32(16)).astype(np.uint16)
    rounded = np.where(np.isnan(values), np.uint16(0x7FC0), rounded)
    return _bf16_from_bits(rounded)


def _convert_value(kind, value):
    """``fill_fragment``'s value as the compiled code converts it: f16/f32 with one rounding,
    bf16/tf32 through float32."""
    if kind == "f16":
        return np.float16(value)
    if kind in ("f32", "bf16", "tf32"):
        v = np.array([value], dtype=np.float32)
        if kind == "bf16":
            v = _bf16_round(v)
        elif kind == "tf32":
            v = round_tf32(v)
        return v[0]
    integer = int(value)
    return np.array([integer]).astype(np.int64).astype(_TILE_DTYPES[kind])[0]


def fill_fragment(frag, value):
    """Every element of ``frag`` becomes ``value`` (this lane's part; no meeting)."""
    _check_fragment("fill_fragment", frag)
    rows, cols = shapes.dims(frag.use, frag.shape)
    tile = np.full((rows, cols), _convert_value(frag.kind, value), dtype=_TILE_DTYPES[frag.kind])
    tile.flags.writeable = False
    frag.tile = tile


# ---- addressing ------------------------------------------------------------------------------

def _allocation(array):
    """The (low, high) byte addresses of the memory ``array`` is a view of."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return np.lib.array_utils.byte_bounds(owner)


def _tile_view(op, array, kind, rows, cols, ldm, layout):
    """The (rows, cols) view of memory a wmma load/store addresses, after the GPU's rules."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"cuda.wmma.{op}: the matrix must be an array, not {type(array).__name__}")
    accepted = shapes.MEMORY_DTYPES[kind]
    if array.dtype.name not in accepted:
        raise TypeError(f"cuda.wmma.{op}: a {kind} fragment is loaded from and stored to arrays "
                        f"of {' or '.join(accepted)}, not {array.dtype}")
    if isinstance(ldm, (bool, np.bool_)) or not isinstance(ldm, (int, np.integer)):
        raise TypeError(f"cuda.wmma.{op}: ldm (the leading dimension, in elements) must be an "
                        f"integer, not {ldm!r}")
    ldm = int(ldm)
    problem = shapes.check_ldm(kind, ldm)
    if problem:
        raise ValueError(f"cuda.wmma.{op}: {problem}")
    if array.size == 0:
        raise IndexError(f"cuda.wmma.{op}: the array is empty; the tile would start outside it")
    size = array.itemsize
    inner, outer = (cols, rows) if layout == "row" else (rows, cols)
    if inner > ldm:
        raise ValueError(f"cuda.wmma.{op}: ldm={ldm} is less than the {inner} elements of each "
                         f"{'row' if layout == 'row' else 'column'} of the tile (its lines would overlap)")
    start = array.__array_interface__["data"][0]
    low, high = _allocation(array)
    end = start + ((outer - 1) * ldm + inner) * size
    if end > high:
        raise IndexError(
            f"cuda.wmma.{op}: the {rows}x{cols} tile (ldm={ldm}, {layout}-major) reaches "
            f"{end - high} bytes past the end of the array's memory (on the GPU: an "
            "out-of-bounds access)")
    if (start - low) % ALIGNMENT:
        raise ValueError(
            f"cuda.wmma.{op}: the tile starts {start - low} bytes into its allocation, which is "
            f"not a multiple of {ALIGNMENT}: wmma reads and writes memory in 128-bit pieces "
            "(on the GPU: a misaligned-address fault or wrong data)")
    strides = (ldm * size, size) if layout == "row" else (size, ldm * size)
    return np.lib.stride_tricks.as_strided(array, shape=(rows, cols), strides=strides,
                                           writeable=array.flags.writeable)


def _tile_from_memory(kind, view):
    if kind == "bf16":
        tile = _bf16_from_bits(view.view(np.uint16) if view.dtype == np.int16 else view)
    elif kind == "tf32":
        tile = round_tf32(view)
    else:
        tile = np.array(view, dtype=_TILE_DTYPES[kind])
    tile.flags.writeable = False
    return tile


# ---- request builders (what the transformed kernel yields) ------------------------------

def request_load_matrix_sync(frag, array, ldm, mem_layout=None):
    _check_fragment("load_matrix_sync", frag)
    if frag.use == "c":
        if mem_layout is None:
            raise TypeError("cuda.wmma.load_matrix_sync: an accumulator is loaded with a memory layout: "
                            "load_matrix_sync(frag, array, ldm, cuda.wmma.mem_row_major or mem_col_major)")
        layout = _marker(mem_layout, "mem_layout", "load_matrix_sync: mem_layout must be mem_row_major or mem_col_major")
    else:
        if mem_layout is not None:
            raise TypeError(f"cuda.wmma.load_matrix_sync: a {shapes.USE_NAMES[frag.use]} fragment has its "
                            "layout already; load_matrix_sync takes no mem_layout for it")
        layout = frag.layout
    rows, cols = shapes.dims(frag.use, frag.shape)
    view = _tile_view("load_matrix_sync", array, frag.kind, rows, cols, ldm, layout)
    return (LOAD, FULL_MASK, frag, view, layout)


def request_store_matrix_sync(array, frag, ldm, mem_layout):
    _check_fragment("store_matrix_sync", frag)
    if frag.use != "c":
        raise TypeError(f"cuda.wmma.store_matrix_sync: only accumulator fragments are stored, not {frag!r}")
    layout = _marker(mem_layout, "mem_layout", "store_matrix_sync: mem_layout must be mem_row_major or mem_col_major")
    _check_filled("store_matrix_sync", frag)
    rows, cols = shapes.dims("c", frag.shape)
    view = _tile_view("store_matrix_sync", array, frag.kind, rows, cols, ldm, layout)
    if not view.flags.writeable:
        raise ValueError("cuda.wmma.store_matrix_sync: the array is read-only")
    return (STORE, FULL_MASK, frag, view, layout)


def request_mma_sync(d, a, b, c):
    for name, frag in zip("dabc", (d, a, b, c)):
        _check_fragment("mma_sync", frag, name)
    problem = shapes.check_mma(d.key, a.key, b.key, c.key)
    if problem:
        raise TypeError(f"cuda.wmma.{problem}")
    for name, frag in zip("abc", (a, b, c)):
        _check_filled("mma_sync", frag, name)
    return (MMA, FULL_MASK, d, a, b, c)


# ---- results: the warp's operation, done once ------------------------------------------

def _check_warp(group, op):
    if len(group) != WARP_SIZE:
        present = sorted(t.lane for t in group)
        missing = [lane for lane in range(WARP_SIZE) if lane not in present]
        raise RuntimeError(
            f"cuda.wmma.{op} in {group[0].where()}: every lane of the warp must call it, but "
            f"lane(s) {missing} of this warp exited or do not exist (blocks of a multiple of 32 "
            "threads, and no early return before a wmma operation)")


def _same(x, y):
    return x is y or np.array_equal(x, y, equal_nan=x.dtype.kind == "f")


def _check_same(group, op, what, value_of):
    lead = value_of(group[0])
    for t in group[1:]:
        if not value_of(t) == lead:
            raise RuntimeError(
                f"cuda.wmma.{op}: lane {t.lane} ({t.where()}) passes a different {what} than lane "
                f"{group[0].lane}; every lane of the warp must pass the same (on the GPU the "
                "result is undefined)")


def _check_same_tiles(group, op, index, name):
    lead = group[0].request[index].tile
    for t in group[1:]:
        if not _same(t.request[index].tile, lead):
            raise RuntimeError(
                f"cuda.wmma.{op}: the fragment {name} of lane {t.lane} ({t.where()}) holds other "
                f"values than lane {group[0].lane}'s: a fragment filled with a value that differs "
                "between lanes has no defined meaning (CUDA does not specify which lane holds "
                "which element)")


def _view_key(view):
    return (view.__array_interface__["data"][0], view.strides, view.dtype.str)


def _load_results(group):
    _check_warp(group, "load_matrix_sync")
    _check_same(group, "load_matrix_sync", "fragment type", lambda t: t.request[2].key)
    _check_same(group, "load_matrix_sync", "tile address, ldm or layout", lambda t: _view_key(t.request[3]))
    lead = group[0].request
    tile = _tile_from_memory(lead[2].kind, lead[3])
    for t in group:
        t.request[2].tile = tile
        t.sendval = None


def _store_results(group):
    _check_warp(group, "store_matrix_sync")
    _check_same(group, "store_matrix_sync", "fragment type", lambda t: t.request[2].key)
    _check_same(group, "store_matrix_sync", "tile address, ldm or layout", lambda t: _view_key(t.request[3]))
    _check_same_tiles(group, "store_matrix_sync", 2, "stored")
    lead = group[0].request
    lead[3][...] = lead[2].tile
    for t in group:
        t.sendval = None


def _round_sum(terms, out_type):
    """The exact sum of the float64 values ``terms`` rounded once to ``out_type``."""
    if all(map(math.isfinite, terms)):
        total = math.fsum(terms)
    else:
        with np.errstate(all="ignore"):  # inf - inf is NaN, as on the GPU
            total = float(np.sum(terms))
    result = out_type(total)
    if not math.isfinite(total) or float(result) == total or not math.isfinite(float(result)):
        return result
    # ``total`` is the float64 nearest the exact sum; rounding it again is wrong only when it is
    # a tie of out_type and the exact sum is not: then the exact sum's side decides.
    other = np.nextafter(result, out_type(math.copysign(math.inf, total - float(result))))
    if (float(result) + float(other)) / 2 != total:
        return result
    residual = math.fsum(list(terms) + [-total])
    if residual == 0:
        return result
    up = residual > 0
    return max(result, other) if up else min(result, other)


def multiply_accumulate(a_tile, b_tile, c_tile, d_kind):
    """``a @ b + c`` as ``mma_sync`` computes it (see the module's docstring)."""
    out_type = _TILE_DTYPES[d_kind]
    if d_kind == "s32":
        exact = a_tile.astype(np.int64) @ b_tile.astype(np.int64) + c_tile.astype(np.int64)
        result = exact.astype(np.int32)  # wraps modulo 2**32
    else:
        a64 = a_tile.astype(np.float64)
        b64 = b_tile.astype(np.float64)
        c64 = c_tile.astype(np.float64)
        products = a64[:, None, :] * b64.T[None, :, :]  # (m, n, k), exact
        rows, cols = c64.shape
        result = np.empty((rows, cols), dtype=out_type)
        with np.errstate(all="ignore"):
            for i in range(rows):
                for j in range(cols):
                    terms = products[i, j].tolist()
                    terms.append(float(c64[i, j]))
                    result[i, j] = _round_sum(terms, out_type)
    result.flags.writeable = False
    return result


def _mma_results(group):
    _check_warp(group, "mma_sync")
    _check_same(group, "mma_sync", "fragment types", lambda t: tuple(f.key for f in t.request[2:]))
    for index, name in ((3, "a"), (4, "b"), (5, "c")):
        _check_same_tiles(group, "mma_sync", index, name)
    _, _, d, a, b, c = group[0].request
    tile = multiply_accumulate(a.tile, b.tile, c.tile, d.kind)
    for t in group:
        t.request[2].tile = tile
        t.sendval = None


# ---- dynamic entry points (code the transformer did not rewrite) -------------------------

def load_matrix_sync(frag, array, ldm, mem_layout=None):
    """Load the warp's tile into ``frag`` (every lane of the warp calls it)."""
    return coll.meet(request_load_matrix_sync(frag, array, ldm, mem_layout))


def store_matrix_sync(array, frag, ldm, mem_layout):
    """Store the warp's accumulator tile ``frag`` (every lane of the warp calls it)."""
    return coll.meet(request_store_matrix_sync(array, frag, ldm, mem_layout))


def mma_sync(d, a, b, c):
    """``d = a @ b + c`` for the warp (every lane calls it)."""
    return coll.meet(request_mma_sync(d, a, b, c))


coll.register_warp_collectives(
    {
        LOAD: ("wmma.load_matrix_sync()", _load_results),
        STORE: ("wmma.store_matrix_sync()", _store_results),
        MMA: ("wmma.mma_sync()", _mma_results),
    },
    {
        load_matrix_sync: request_load_matrix_sync,
        store_matrix_sync: request_store_matrix_sync,
        mma_sync: request_mma_sync,
    },
)


def _namespace():
    import types as _pytypes

    module = _pytypes.ModuleType("numba.cuda.wmma", "Tensor-core fragments (simulator).")
    for name, value in (("fragment", fragment), ("load_matrix_sync", load_matrix_sync),
                        ("store_matrix_sync", store_matrix_sync), ("fill_fragment", fill_fragment),
                        ("mma_sync", mma_sync), *_MARKERS.items()):
        setattr(module, name, value)
    return module


namespace = _namespace()

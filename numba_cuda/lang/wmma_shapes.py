"""What ``cuda.wmma`` supports: shapes, element kinds, fragment sizes and compute capabilities.

Pure data and small functions, shared by the compiled target (``numba_cuda.lang.wmma``) and the
simulator (``numba_cuda.simulator.wmma``), so that both accept and refuse the same fragments with
the same words.  Imports nothing.

A fragment is ``(use, (m, n, k), kind, layout)``:

* ``use``: ``"a"`` (matrix_a, m x k), ``"b"`` (matrix_b, k x n) or ``"c"`` (accumulator, m x n);
* ``kind``: the element type; inputs (a, b) ``f16``, ``bf16``, ``tf32``, ``s8``, ``u8``;
  accumulators ``f16``, ``f32``, ``s32``;
* ``layout``: ``"row"`` or ``"col"`` for a and b, ``None`` for accumulators (their layout is
  given to each load and store).

======================================  ==============  ====================  ==========
inputs                                  shapes          accumulators          from cc
======================================  ==============  ====================  ==========
f16 (``np.float16``)                    16x16x16,       f32, f16              7.0
                                        32x8x16, 8x32x16
s8 / u8 (``np.int8`` / ``np.uint8``)    same three      s32                   7.2
bf16 (``cuda.wmma.bf16``)               same three      f32                   8.0
tf32 (``cuda.wmma.tf32``)               16x16x8         f32                   8.0
======================================  ==============  ====================  ==========
"""

USES = ("a", "b", "c")
USE_NAMES = {"a": "matrix_a", "b": "matrix_b", "c": "accumulator"}
LAYOUTS = ("row", "col")

HALF_SHAPES = ((16, 16, 16), (32, 8, 16), (8, 32, 16))
TF32_SHAPES = ((16, 16, 8),)

#: input kind -> (shapes, accumulator kinds, lowest compute capability)
INPUTS = {
    "f16": (HALF_SHAPES, ("f32", "f16"), (7, 0)),
    "s8": (HALF_SHAPES, ("s32",), (7, 2)),
    "u8": (HALF_SHAPES, ("s32",), (7, 2)),
    "bf16": (HALF_SHAPES, ("f32",), (8, 0)),
    "tf32": (TF32_SHAPES, ("f32",), (8, 0)),
}
ACCUMULATORS = ("f32", "f16", "s32")

#: kind -> bytes per element in memory
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "f32": 4, "s32": 4}

#: kind -> NumPy dtype names of the arrays it loads from / stores to.  bfloat16 has no NumPy
#: dtype: its arrays hold the bit patterns, as uint16 (or int16).
MEMORY_DTYPES = {
    "f16": ("float16",),
    "bf16": ("uint16", "int16"),
    "tf32": ("float32",),
    "s8": ("int8",),
    "u8": ("uint8",),
    "f32": ("float32",),
    "s32": ("int32",),
}

#: NumPy dtype name -> kind, for the dtype argument of ``fragment`` (bf16 and tf32 are
#: spelled ``cuda.wmma.bf16`` and ``cuda.wmma.tf32``)
DTYPE_KINDS = {"float16": "f16", "float32": "f32", "int32": "s32", "int8": "s8", "uint8": "u8"}


def shape_text(shape):
    return "m{}n{}k{}".format(*shape)


def dims(use, shape):
    """(rows, cols) of the matrix a fragment of ``use`` holds."""
    m, n, k = shape
    return {"a": (m, k), "b": (k, n), "c": (m, n)}[use]


def registers(use, shape, kind):
    """How many 32-bit registers one lane's part of the fragment takes (PTX ISA, wmma)."""
    if use == "c":
        return 4 if kind == "f16" else 8
    if kind == "f16":
        return 8  # f16 a and b fragments: eight .f16x2 registers for every shape
    rows, cols = dims(use, shape)
    return rows * cols * ELEMENT_BYTES[kind] // (32 * 4)


def check_fragment(use, shape, kind, layout):
    """An error message (str) when ``fragment(use, m, n, k, kind, layout)`` is not supported,
    else None."""
    if use in ("a", "b"):
        if kind not in INPUTS:
            return (f"a {USE_NAMES[use]} fragment holds f16 (np.float16), bf16 (cuda.wmma.bf16), "
                    f"tf32 (cuda.wmma.tf32), s8 (np.int8) or u8 (np.uint8), not {kind}")
        shapes = INPUTS[kind][0]
        if shape not in shapes:
            return (f"{kind} fragments come in the shapes "
                    f"{', '.join(shape_text(s) for s in shapes)}, not {shape_text(shape)}")
        if layout not in LAYOUTS:
            return (f"a {USE_NAMES[use]} fragment needs a layout, cuda.wmma.row_major or "
                    "cuda.wmma.col_major, as its sixth argument")
        return None
    if kind not in ACCUMULATORS:
        return f"an accumulator fragment holds f32 (np.float32), f16 (np.float16) or s32 (np.int32), not {kind}"
    if shape not in HALF_SHAPES + TF32_SHAPES:
        return (f"accumulator fragments come in the shapes "
                f"{', '.join(shape_text(s) for s in HALF_SHAPES + TF32_SHAPES)}, not {shape_text(shape)}")
    if layout is not None:
        return ("an accumulator fragment takes no layout (give cuda.wmma.mem_row_major or "
                "mem_col_major to load_matrix_sync and store_matrix_sync instead)")
    return None


def check_mma(d, a, b, c):
    """An error message when ``mma_sync(d, a, b, c)`` does not go together, else None.  Each
    argument is ``(use, shape, kind, layout)``."""
    for name, frag, use in (("d", d, "c"), ("a", a, "a"), ("b", b, "b"), ("c", c, "c")):
        if frag[0] != use:
            return f"mma_sync(d, a, b, c): {name} must be a {USE_NAMES[use]} fragment, not a {USE_NAMES[frag[0]]} one"
    shapes = {frag[1] for frag in (d, a, b, c)}
    if len(shapes) != 1:
        return ("mma_sync(d, a, b, c): all four fragments must have the same shape, not "
                + ", ".join(shape_text(frag[1]) for frag in (d, a, b, c)))
    if a[2] != b[2]:
        return f"mma_sync(d, a, b, c): a and b must hold the same element type, not {a[2]} and {b[2]}"
    accumulators = INPUTS[a[2]][1]
    for name, frag in (("c", c), ("d", d)):
        if frag[2] not in accumulators:
            return (f"mma_sync(d, a, b, c): {a[2]} inputs accumulate into "
                    f"{' or '.join(accumulators)}, not {frag[2]} ({name})")
    return None


def required_cc(shape, kind):
    """The lowest compute capability with wmma for ``kind`` inputs (or accumulators)."""
    if kind in INPUTS:
        return INPUTS[kind][2]
    return (7, 2) if kind == "s32" else (7, 0)


def feature(op, shape, kind):
    """How an operation is named in errors, e.g. ``cuda.wmma.mma_sync (m16n16k16 bf16)``."""
    return f"cuda.wmma.{op} ({shape_text(shape)} {kind})"


def check_ldm(kind, ldm):
    """An error message when ``ldm`` (elements) is not a multiple of 16 bytes, else None."""
    size = ELEMENT_BYTES[kind]
    if ldm <= 0 or (ldm * size) % 16:
        return (f"ldm must be a positive multiple of {16 // size} for {kind} elements "
                f"(16 bytes), not {ldm}")
    return None

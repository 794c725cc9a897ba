"""Tensor cores: ``cuda.wmma``, the warp matrix multiply-accumulate API of CUDA C++'s ``nvcuda::wmma``.

==============================================================  ==============================
Python                                                          PTX
==============================================================  ==============================
``f = cuda.wmma.fragment(use, m, n, k, dtype[, layout])``       (registers of the lane)
``cuda.wmma.fill_fragment(f, value)``                           ``mov`` (tf32: ``cvt.rna``)
``cuda.wmma.load_matrix_sync(f, array, ldm[, mem_layout])``     ``wmma.load.{a,b,c}.sync.aligned``
``cuda.wmma.store_matrix_sync(array, f, ldm, mem_layout)``      ``wmma.store.d.sync.aligned``
``cuda.wmma.mma_sync(d, a, b, c)``                              ``wmma.mma.sync.aligned``
==============================================================  ==============================

``use`` is ``cuda.wmma.matrix_a``, ``matrix_b`` or ``accumulator``; ``m, n, k`` constant ints;
``dtype`` ``np.float16``, ``cuda.wmma.bf16``, ``cuda.wmma.tf32``, ``np.int8``, ``np.uint8`` (inputs)
or ``np.float32``, ``np.float16``, ``np.int32`` (accumulators); ``layout`` (inputs only)
``cuda.wmma.row_major``/``col_major``; ``mem_layout`` (accumulators only)
``cuda.wmma.mem_row_major``/``mem_col_major``.  What goes together is in
:mod:`numba_cuda.lang.wmma_shapes`.  ``array`` is any array (a view such as ``A[i:, k:]``):
the tile starts at its first element, ``ldm`` elements apart (row-major: between rows).

A fragment is the calling lane's registers, kept in a local array (an ``alloca`` that NVVM
promotes to registers); the operations write it in place, as CUDA C++ passes fragments by
reference, and assigning a fragment to another name shares it.

Lowering
========
Each operation is one inline-PTX ``wmma.*.sync.aligned`` instruction, the same for every
compute capability.  NVVM's intrinsics were the first choice, and were checked with the
libNVVM and ptxas of CUDA 12 (12.9) and 13 (13.5): the NVVM IR specification documents
``llvm.nvvm.hmma.*`` (f16 only, "preview feature"); ``llvm.nvvm.imma.*`` (s8/u8) is accepted
but documented nowhere; no name for bf16 or tf32 was found (``llvm.nvvm.mma.bf16.*`` and
``llvm.nvvm.mma.tf32.*`` are known names whose signature libNVVM's verifier refuses for every
form tried).  LLVM's ``llvm.nvvm.wmma.*`` names work with the modern IR reader (compute_100
and newer) only: the LLVM 7 reader used for compute_75..90 turns the f16 ones into
``wmma.load.a.sync.row...`` without ``.aligned``, which ptxas refuses for the PTX version
libNVVM writes, and emits the bf16, tf32 and integer ones as calls of undefined functions.
Inline PTX has none of these gaps and one lowering for all of them.  Loads and stores clobber memory; all are ``sideeffect`` so that
NVVM neither moves them into divergent code nor drops them.

tf32 fragments are rounded to TensorFloat-32 (``cvt.rna.tf32.f32``: to nearest, ties away from
zero) as they are loaded or filled, which CUDA C++ code does by hand with
``wmma::__float_to_tf32``; this makes the input of ``mma_sync`` defined.

Each operation records the compute capability its fragments need
(:func:`numba_cuda.lang.archselect.require_cc`): compiling for an older one is a
``TypingError`` naming the operation, shape and type, e.g. ``cuda.wmma.mma_sync (m16n16k16
bf16) needs compute capability 8.0 or newer; this code is being compiled for compute
capability 7.5``.
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.datamodel import models, register_default
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, Registry as TypingRegistry, signature

from . import archselect, stubs
from . import wmma_shapes as shapes

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.wmma")
lower = lowering_registry.lower

_i8 = ir.IntType(8)
_i16 = ir.IntType(16)
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_f32 = ir.FloatType()

_MARKERS = {
    "matrix_a": ("use", "a"), "matrix_b": ("use", "b"), "accumulator": ("use", "c"),
    "row_major": ("layout", "row"), "col_major": ("layout", "col"),
    "mem_row_major": ("mem_layout", "row"), "mem_col_major": ("mem_layout", "col"),
    "bf16": ("precision", "bf16"), "tf32": ("precision", "tf32"),
}


# ---- types -------------------------------------------------------------------------------

class WmmaMarkerType(types.Dummy):
    """The type of ``cuda.wmma.matrix_a``, ``row_major``, ``bf16`` ...: a compile-time constant."""

    def __init__(self, name):
        self.marker = name
        self.group, self.value = _MARKERS[name]
        super().__init__(name=f"wmma.{name}")


register_default(WmmaMarkerType)(models.OpaqueModel)

for _name in _MARKERS:
    typing_registry.register_global(getattr(stubs.wmma, _name), WmmaMarkerType(_name))


@lowering_registry.lower_constant(WmmaMarkerType)
def _lower_marker(context, builder, ty, pyval):
    return context.get_dummy_value()


class FragmentType(types.Type):
    """A warp's fragment: ``use`` ("a", "b", "c"), ``shape`` (m, n, k), ``kind`` ("f16" ...),
    ``layout`` ("row"/"col" for a and b, None for accumulators)."""

    def __init__(self, use, shape, kind, layout):
        self.use, self.shape, self.kind, self.layout = use, tuple(shape), kind, layout
        self.count = shapes.registers(use, shape, kind)
        tail = f", {layout}_major" if layout else ""
        super().__init__(name=f"wmma.fragment({shapes.USE_NAMES[use]}, {shapes.shape_text(shape)}, {kind}{tail})")

    @property
    def key(self):
        return (self.use, self.shape, self.kind, self.layout)

    @property
    def register_type(self):
        """LLVM type of one register: float for f32 accumulators, i32 (packed) otherwise."""
        return _f32 if self.kind == "f32" else _i32

    @property
    def storage_type(self):
        return ir.ArrayType(self.register_type, self.count)


@register_default(FragmentType)
class FragmentModel(models.PrimitiveModel):
    """A pointer to the lane's registers (``[count x i32]`` or ``[count x float]``, an alloca)."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.PointerType(fe_type.storage_type))

    def as_return(self, builder, value):
        # the registers live in the creating function's frame: returned, they would dangle
        raise errors.TypingError(
            f"a {self.fe_type} cannot be returned from a device function (it lives in the "
            "function that created it); create it in the caller and pass it in, device "
            "functions write fragments in place")


# ---- typing ------------------------------------------------------------------------------

def _fail(op, message):
    raise errors.TypingError(f"cuda.wmma.{op}: {message}")


def _literal_int(ty):
    if isinstance(ty, types.IntegerLiteral):
        return ty.literal_value
    return None


def _marker(ty, group):
    if isinstance(ty, WmmaMarkerType) and ty.group == group:
        return ty.value
    return None


def _kind_of_dtype(ty):
    """The element kind named by the dtype argument of ``fragment``, or None."""
    precision = _marker(ty, "precision")
    if precision is not None:
        return precision
    if isinstance(ty, (types.NumberClass, types.DType)):
        name = str(ty.dtype if isinstance(ty, types.DType) else ty.instance_type)
        return shapes.DTYPE_KINDS.get(name, name)
    return None


def _register(stub, generic, prefer_literal=False):
    class Template(AbstractTemplate):
        key = stub

    Template.generic = generic
    Template.prefer_literal = prefer_literal
    typing_registry.register_global(stub, types.Function(Template))


def _fragment_generic(self, args, kws):
    if kws or len(args) not in (5, 6):
        _fail("fragment", "takes (use, m, n, k, dtype) or (use, m, n, k, dtype, layout), positionally")
    use = _marker(args[0], "use")
    if use is None:
        _fail("fragment", f"the first argument must be cuda.wmma.matrix_a, matrix_b or accumulator, not {args[0]}")
    dims = [_literal_int(t) for t in args[1:4]]
    if None in dims:
        _fail("fragment", "m, n and k must be constant integers (e.g. 16, 16, 16)")
    kind = _kind_of_dtype(args[4])
    if kind is None:
        _fail("fragment", f"dtype must be a NumPy type (np.float16 ...) or cuda.wmma.bf16/tf32, not {args[4]}")
    layout = None
    if len(args) == 6:
        layout = _marker(args[5], "layout")
        if layout is None:
            _fail("fragment", f"the layout must be cuda.wmma.row_major or col_major, not {args[5]}")
    problem = shapes.check_fragment(use, tuple(dims), kind, layout)
    if problem:
        _fail("fragment", problem)
    return signature(FragmentType(use, dims, kind, layout), *args)


_register(stubs.wmma.fragment, _fragment_generic, prefer_literal=True)


def _check_array(op, array, frag):
    if not isinstance(array, types.Array):
        _fail(op, f"the matrix must be an array (a view whose first element starts the tile), not {array}")
    accepted = shapes.MEMORY_DTYPES[frag.kind]
    if str(array.dtype) not in accepted:
        _fail(op, f"a {frag.kind} fragment is loaded from and stored to arrays of "
                  f"{' or '.join(accepted)}, not {array.dtype}")


def _check_ldm(op, ldm):
    if not isinstance(ldm, types.Integer):
        _fail(op, f"ldm (the leading dimension, in elements) must be an integer, not {ldm}")


def _load_generic(self, args, kws):
    if kws or len(args) not in (3, 4):
        _fail("load_matrix_sync", "takes (fragment, array, ldm) or, for an accumulator, "
                                  "(fragment, array, ldm, mem_layout)")
    frag, array, ldm = args[:3]
    if not isinstance(frag, FragmentType):
        _fail("load_matrix_sync", f"the first argument must be a cuda.wmma.fragment, not {frag}")
    _check_array("load_matrix_sync", array, frag)
    _check_ldm("load_matrix_sync", ldm)
    if frag.use == "c":
        if len(args) != 4 or _marker(args[3], "mem_layout") is None:
            _fail("load_matrix_sync", "an accumulator is loaded with a memory layout: "
                                      "load_matrix_sync(frag, array, ldm, cuda.wmma.mem_row_major or mem_col_major)")
    elif len(args) == 4:
        _fail("load_matrix_sync", f"a {shapes.USE_NAMES[frag.use]} fragment has its layout "
                                  "already; load_matrix_sync takes no mem_layout for it")
    return signature(types.none, *args)


_register(stubs.wmma.load_matrix_sync, _load_generic)


def _store_generic(self, args, kws):
    if kws or len(args) != 4:
        _fail("store_matrix_sync", "takes (array, fragment, ldm, mem_layout)")
    array, frag, ldm, layout = args
    if not isinstance(frag, FragmentType) or frag.use != "c":
        _fail("store_matrix_sync", f"only accumulator fragments are stored, not {frag}")
    _check_array("store_matrix_sync", array, frag)
    _check_ldm("store_matrix_sync", ldm)
    if _marker(layout, "mem_layout") is None:
        _fail("store_matrix_sync", f"mem_layout must be cuda.wmma.mem_row_major or mem_col_major, not {layout}")
    if not array.mutable:
        _fail("store_matrix_sync", "the array is read-only")
    return signature(types.none, *args)


_register(stubs.wmma.store_matrix_sync, _store_generic)


def _fill_generic(self, args, kws):
    if kws or len(args) != 2:
        _fail("fill_fragment", "takes (fragment, value)")
    frag, value = args
    if not isinstance(frag, FragmentType):
        _fail("fill_fragment", f"the first argument must be a cuda.wmma.fragment, not {frag}")
    if not isinstance(value, (types.Number, types.Boolean)):
        _fail("fill_fragment", f"the value must be a number, not {value}")
    return signature(types.none, *args)


_register(stubs.wmma.fill_fragment, _fill_generic)


def _mma_generic(self, args, kws):
    if kws or len(args) != 4:
        _fail("mma_sync", "takes (d, a, b, c): d = a @ b + c")
    for name, frag in zip("dabc", args):
        if not isinstance(frag, FragmentType):
            _fail("mma_sync", f"{name} must be a cuda.wmma.fragment, not {frag}")
    problem = shapes.check_mma(*(f.key for f in args))
    if problem:
        raise errors.TypingError(f"cuda.wmma.{problem}")
    return signature(types.none, *args)


_register(stubs.wmma.mma_sync, _mma_generic)


# ---- lowering ----------------------------------------------------------------------------

def _require(context, op, frag):
    archselect.require_cc(context, shapes.feature(op, frag.shape, frag.kind),
                          shapes.required_cc(frag.shape, frag.kind))


def _regs(first, count):
    return ", ".join(f"${i}" for i in range(first, first + count))


def _asm(builder, ret, args, text, constraints):
    fnty = ir.FunctionType(ret, [a.type for a in args])
    return builder.asm(fnty, text, constraints, list(args), side_effect=True)


def _read(builder, frag_ty, ptr):
    zero = ir.Constant(_i32, 0)
    return [builder.load(builder.gep(ptr, [zero, ir.Constant(_i32, i)])) for i in range(frag_ty.count)]


def _write(builder, frag_ty, ptr, values):
    zero = ir.Constant(_i32, 0)
    for i, value in enumerate(values):
        builder.store(value, builder.gep(ptr, [zero, ir.Constant(_i32, i)]))


def _outputs(builder, result, count):
    if count == 1:
        return [result]
    return [builder.extract_value(result, i) for i in range(count)]


def _constraint(frag_ty):
    return "f" if frag_ty.register_type is _f32 else "r"


def _result_type(frag_ty):
    if frag_ty.count == 1:
        return frag_ty.register_type
    return ir.LiteralStructType([frag_ty.register_type] * frag_ty.count)


def _round_tf32(builder, value):
    """``cvt.rna.tf32.f32`` of an i32 holding float32 bits: the bits of the tf32 value."""
    as_float = builder.bitcast(value, _f32)
    return _asm(builder, _i32, [as_float], "cvt.rna.tf32.f32 $0, $1;", "=r,f")


def _ptx_type(frag_ty):
    return frag_ty.kind


@lower(stubs.wmma.fragment, types.VarArg(types.Any))
def _lower_fragment(context, builder, sig, args):
    frag_ty = sig.return_type
    slot = cgutils.alloca_once(builder, frag_ty.storage_type, name="wmma.fragment")
    builder.store(ir.Constant(frag_ty.storage_type, None), slot)
    return slot


def _data_pointer(context, builder, aryty, ary):
    array = context.make_array(aryty)(context, builder, ary)
    return builder.ptrtoint(array.data, _i64)


def _as_i32(context, builder, ty, value):
    return context.cast(builder, value, ty, types.int32)


@lower(stubs.wmma.load_matrix_sync, FragmentType, types.Array, types.Integer)
@lower(stubs.wmma.load_matrix_sync, FragmentType, types.Array, types.Integer, WmmaMarkerType)
def _lower_load(context, builder, sig, args):
    frag_ty, aryty, ldm_ty = sig.args[:3]
    frag, ary, ldm = args[:3]
    _require(context, "load_matrix_sync", frag_ty)
    layout = sig.args[3].value if frag_ty.use == "c" else frag_ty.layout
    address = _data_pointer(context, builder, aryty, ary)
    stride = _as_i32(context, builder, ldm_ty, ldm)
    n = frag_ty.count
    text = (f"wmma.load.{frag_ty.use}.sync.aligned.{layout}.{shapes.shape_text(frag_ty.shape)}."
            f"{_ptx_type(frag_ty)} {{{_regs(0, n)}}}, [${n}], ${n + 1};")
    constraints = ",".join([f"={_constraint(frag_ty)}"] * n + ["l", "r", "~{memory}"])
    values = _outputs(builder, _asm(builder, _result_type(frag_ty), [address, stride], text, constraints), n)
    if frag_ty.kind == "tf32":
        values = [_round_tf32(builder, v) for v in values]
    _write(builder, frag_ty, frag, values)
    return context.get_dummy_value()


@lower(stubs.wmma.store_matrix_sync, types.Array, FragmentType, types.Integer, WmmaMarkerType)
def _lower_store(context, builder, sig, args):
    aryty, frag_ty, ldm_ty, layout_ty = sig.args
    ary, frag, ldm, _layout = args
    _require(context, "store_matrix_sync", frag_ty)
    address = _data_pointer(context, builder, aryty, ary)
    stride = _as_i32(context, builder, ldm_ty, ldm)
    n = frag_ty.count
    text = (f"wmma.store.d.sync.aligned.{layout_ty.value}.{shapes.shape_text(frag_ty.shape)}."
            f"{_ptx_type(frag_ty)} [$0], {{{_regs(1, n)}}}, ${n + 1};")
    constraints = ",".join(["l"] + [_constraint(frag_ty)] * n + ["r", "~{memory}"])
    _asm(builder, ir.VoidType(), [address] + _read(builder, frag_ty, frag) + [stride], text, constraints)
    return context.get_dummy_value()


def _bf16_bits(builder, value):
    """float32 -> bfloat16 bits (i32, low half), round to nearest even; NaN -> 0x7FC0."""
    bits = builder.bitcast(value, _i32)
    lsb = builder.and_(builder.lshr(bits, ir.Constant(_i32, 16)), ir.Constant(_i32, 1))
    rounded = builder.lshr(builder.add(bits, builder.add(lsb, ir.Constant(_i32, 0x7FFF))), ir.Constant(_i32, 16))
    is_nan = builder.fcmp_unordered("uno", value, value)
    return builder.select(is_nan, ir.Constant(_i32, 0x7FC0), rounded)


def _packed(builder, bits, width):
    """An i32 with ``bits`` (an i32 holding ``width`` low bits) repeated."""
    mask = ir.Constant(_i32, (1 << width) - 1)
    bits = builder.and_(bits, mask)
    result = bits
    for shift in range(width, 32, width):
        result = builder.or_(result, builder.shl(bits, ir.Constant(_i32, shift)))
    return result


@lower(stubs.wmma.fill_fragment, FragmentType, types.Any)
def _lower_fill(context, builder, sig, args):
    frag_ty, value_ty = sig.args
    frag, value = args
    _require(context, "fill_fragment", frag_ty)
    kind = frag_ty.kind
    if kind == "f32":
        reg = context.cast(builder, value, value_ty, types.float32)
    elif kind == "f16":
        half = context.cast(builder, value, value_ty, types.float16)
        reg = _packed(builder, builder.zext(builder.bitcast(half, _i16), _i32), 16)
    elif kind == "bf16":
        reg = _packed(builder, _bf16_bits(builder, context.cast(builder, value, value_ty, types.float32)), 16)
    elif kind == "tf32":
        reg = _round_tf32(builder, builder.bitcast(context.cast(builder, value, value_ty, types.float32), _i32))
    elif kind in ("s8", "u8"):
        small = context.cast(builder, value, value_ty, types.int8 if kind == "s8" else types.uint8)
        reg = _packed(builder, builder.zext(small, _i32), 8)
    else:  # s32
        reg = context.cast(builder, value, value_ty, types.int32)
    _write(builder, frag_ty, frag, [reg] * frag_ty.count)
    return context.get_dummy_value()


@lower(stubs.wmma.mma_sync, FragmentType, FragmentType, FragmentType, FragmentType)
def _lower_mma(context, builder, sig, args):
    d_ty, a_ty, b_ty, c_ty = sig.args
    d, a, b, c = args
    _require(context, "mma_sync", a_ty)
    shape = shapes.shape_text(a_ty.shape)
    if a_ty.kind == "f16":
        types_text = f"{d_ty.kind}.{c_ty.kind}"
    else:
        types_text = f"{d_ty.kind}.{a_ty.kind}.{b_ty.kind}.{c_ty.kind}"
    nd, na, nb, nc = (t.count for t in sig.args)
    text = (f"wmma.mma.sync.aligned.{a_ty.layout}.{b_ty.layout}.{shape}.{types_text} "
            f"{{{_regs(0, nd)}}}, {{{_regs(nd, na)}}}, {{{_regs(nd + na, nb)}}}, "
            f"{{{_regs(nd + na + nb, nc)}}};")
    constraints = ",".join([f"={_constraint(d_ty)}"] * nd + ["r"] * (na + nb) + [_constraint(c_ty)] * nc)
    inputs = _read(builder, a_ty, a) + _read(builder, b_ty, b) + _read(builder, c_ty, c)
    result = _asm(builder, _result_type(d_ty), inputs, text, constraints)
    _write(builder, d_ty, d, _outputs(builder, result, nd))
    return context.get_dummy_value()

"""Element access of arrays, ``a[i]``, ``a[i, j] = v``, lowered from the array's value.

Numba's implementations (``numba.np.arrayobj``) spill the array structure to a stack slot and
read its fields back through pointers for every access -- ten to twenty instructions that
libNVVM's optimiser removes again, after Python spent most of a kernel's lowering time building
and printing them.  For the overwhelmingly common case -- as many integer indices as the array
has dimensions, an element of a numeric dtype, bounds checking off -- the implementations here
read the fields straight out of the structure value (``extractvalue``) and compute the element
pointer with Numba's own helpers (``cgutils.get_item_pointer2``), with Numba's semantics:

* each index is cast to ``intp`` (signed) or ``uintp`` (unsigned); a negative signed index
  counts from the end of its dimension (``slicing.fix_index``);
* C and F layouts address elements by index, any other layout by byte strides;
* the element is loaded/stored through the dtype's data model (``unpack_value``/
  ``pack_value``), unaligned when the array type says so; stores cast the value to the dtype.

Anything else -- slices, ``None``, fewer indices than dimensions (views), records, nested
arrays, 0-d arrays, bounds checking (``debug=True``, ``boundscheck=True``,
``NUMBA_BOUNDSCHECK``) -- goes to Numba's implementation unchanged.

``a.shape``, ``a.strides`` and ``a.size`` are read from the value the same way
(``getattr_from_value``; the target context's ``get_getattr`` hands it out for arrays, as
Numba registers these attributes for ``types.Array`` itself), and so is ``len(a)`` (the first
extent, as Numba's ``array_len``) of an array of one or more dimensions: Numba registers
``len`` only in ``numba.np.arrayobj``, so a kernel asking for it made a compile import that
module and its registrations (~20 ms, see ``deferred_impls``).  Only for arrays assembled from
the function's arguments (``is_argument_value``): any other array -- a view, above all -- is
read as Numba reads it (``_Slot``: through a stack slot, extents with range metadata), as
libNVVM turns the facts that metadata states about a computed extent into different code.

Registered for ``types.Array``, more specific than Numba's ``types.Buffer`` registrations, so
these are chosen for arrays.  A compiler-owned kernel-language family: ``typing_registry``
(empty) and ``lowering_registry``.
"""

import operator

from llvmlite import ir as llvm_ir
from numba.core import cgutils, imputils, types
from numba.core.typing import templates

_InsertValue, _Argument, _Constant, _Undefined = (
    llvm_ir.InsertValue, llvm_ir.Argument, llvm_ir.Constant, llvm_ir.Undefined)

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.array_access")
lower = lowering_registry.lower

#: Array attributes read straight from the structure value: attribute -> structure field.
VALUE_ATTRIBUTES = {"shape": "shape", "strides": "strides", "size": "nitems"}

#: dtypes whose elements are plain values in the array (records and nested arrays are views).
_ELEMENT_TYPES = (types.Number, types.Boolean)


def _index_types(idxty):
    return tuple(idxty.types) if isinstance(idxty, types.BaseTuple) else (idxty,)


def handles(context, aryty, idxty):
    """Is ``aryty[idxty]`` a single numeric element that this module lowers?"""
    if context.enable_boundscheck or aryty.ndim == 0:
        return False
    if not isinstance(aryty.dtype, _ELEMENT_TYPES):
        return False
    index_types = _index_types(idxty)
    return (len(index_types) == aryty.ndim
            and all(isinstance(t, types.Integer) for t in index_types))


def has_value_attribute(context, typ, attr):
    """Does ``getattr_from_value`` implement ``typ.attr``?"""
    from numba.core.datamodel.models import ArrayModel

    return (attr in VALUE_ATTRIBUTES and isinstance(typ, types.Array)
            and isinstance(context.data_model_manager[typ], ArrayModel))


def has_value_length(context, aryty):
    """Does ``length_from_value`` implement ``len(aryty)``?"""
    from numba.core.datamodel.models import ArrayModel

    return aryty.ndim > 0 and isinstance(context.data_model_manager[aryty], ArrayModel)


def getattr_from_value(context, builder, typ, value, attr):
    """``a.shape``/``a.strides``/``a.size`` of the array structure value ``value``: read from
    the value when it is assembled from the function's arguments, else as Numba reads it
    (``_Slot``)."""
    if not is_argument_value(value):
        slot = _Slot(context, builder, typ, value)
        return slot.shape() if attr == "shape" else slot.load(VALUE_ATTRIBUTES[attr])
    model = context.data_model_manager[typ]
    return builder.extract_value(value, model.get_field_position(VALUE_ATTRIBUTES[attr]))


def is_argument_value(value):
    """Is ``value`` a structure assembled from the function's arguments (``insertvalue`` of
    arguments, or of such structures, into ``undef``: Numba's argument unpacking)?  Such an
    array's extents are the arguments themselves, and reading them from the value gives the
    code Numba's reads give (the tests); anything else -- a view, an array from a record, a
    variable assigned more than once -- is read as Numba reads it."""
    while isinstance(value, _InsertValue):
        field = value.value
        if not (isinstance(field, _Argument) or is_argument_value(field)):
            return False
        value = value.aggregate
    return isinstance(value, _Constant) and value.constant is _Undefined


class _Slot:
    """An array structure in a stack slot, read and written field by field: how Numba's
    ``arrayobj.make_array`` holds an array (a struct proxy whose extents are loaded with range
    metadata saying they are not negative).  libNVVM's optimiser uses those facts where an
    extent is computed (a view's, a slice's length), and what it makes of them depends on how
    the structure goes through memory: read from the value instead, such code comes out
    different (``tests/compiler/test_array_access.py``).  So ``a.shape``, ``len(a)`` ... of
    such arrays are read exactly as Numba reads them; the slot is gone after optimisation."""

    __slots__ = ("builder", "model", "ndim", "ptr")

    def __init__(self, context, builder, aryty, value=None):
        self.builder = builder
        self.model = context.data_model_manager[aryty]
        self.ndim = aryty.ndim
        self.ptr = cgutils.alloca_once(builder, self.model.get_value_type(), zfill=True)
        if value is not None:
            builder.store(value, self.ptr)

    def field_ptr(self, name):
        return cgutils.gep_inbounds(self.builder, self.ptr, 0, self.model.get_field_position(name))

    def load(self, name):
        return self.builder.load(self.field_ptr(name))

    def store(self, name, value):
        self.builder.store(value, self.field_ptr(name))

    def value(self):
        return self.builder.load(self.ptr)

    def shape(self):
        """The extents, an LLVM array, each loaded with ``!range [0, 2**(bits-1) - 1)``."""
        builder = self.builder
        shape_ptr = self.field_ptr("shape")
        extents = []
        for axis in range(self.ndim):
            extent = builder.load(cgutils.gep_inbounds(builder, shape_ptr, 0, axis))
            bounds = [llvm_ir.Constant(extent.type, 0),
                      llvm_ir.Constant(extent.type, (1 << (extent.type.width - 1)) - 1)]
            extent.set_metadata("range", builder.module.add_metadata(bounds))
            extents.append(extent)
        return cgutils.pack_array(builder, extents)

    def extents(self):
        return cgutils.unpack_tuple(self.builder, self.shape(), self.ndim)

    def strides(self):
        return cgutils.unpack_tuple(self.builder, self.load("strides"), self.ndim)


def _fields(context, builder, aryty, ary):
    """``(data, shape values, stride values)`` of the array structure value ``ary``."""
    model = context.data_model_manager[aryty]
    data = builder.extract_value(ary, model.get_field_position("data"))
    shape = builder.extract_value(ary, model.get_field_position("shape"))
    strides = builder.extract_value(ary, model.get_field_position("strides"))
    return (data, cgutils.unpack_tuple(builder, shape, aryty.ndim),
            cgutils.unpack_tuple(builder, strides, aryty.ndim))


def fix_integer_index(context, builder, idxty, idx, size):
    """Numba's ``arrayobj.fix_integer_index``: the index as ``intp`` (negative ones counted from
    ``size``) or, unsigned, as ``uintp``.  (Here so that element access does not import
    ``numba.np.arrayobj``: see ``deferred_impls``.)"""
    from numba.cpython import slicing

    if idxty.signed:
        ind = context.cast(builder, idx, idxty, types.intp)
        return slicing.fix_index(builder, ind, size)
    return context.cast(builder, idx, idxty, types.uintp)


def element_pointer(context, builder, aryty, ary, idxty, idx):
    """Pointer to the element ``ary[idx]`` (``handles(context, aryty, idxty)`` must hold)."""
    index_types = _index_types(idxty)
    if isinstance(idxty, types.BaseTuple):
        indices = cgutils.unpack_tuple(builder, idx, count=len(index_types))
    else:
        indices = (idx,)
    data, shapes, strides = _fields(context, builder, aryty, ary)
    fixed = [fix_integer_index(context, builder, t, v, size)
             for t, v, size in zip(index_types, indices, shapes)]
    return cgutils.get_item_pointer2(context, builder, data, shapes, strides, aryty.layout, fixed,
                                     wraparound=False, boundscheck=False)


def _numba_getitem(context, builder, sig, args):
    from numba.np import arrayobj

    if isinstance(sig.args[1], types.BaseTuple):
        return arrayobj.getitem_array_tuple(context, builder, sig, args)
    return arrayobj.getitem_arraynd_intp(context, builder, sig, args)


@lower(operator.getitem, types.Array, types.Integer)
@lower(operator.getitem, types.Array, types.BaseTuple)
def getitem_element(context, builder, sig, args):
    aryty, idxty = sig.args
    if not handles(context, aryty, idxty):
        return _numba_getitem(context, builder, sig, args)
    ary, idx = args
    ptr = element_pointer(context, builder, aryty, ary, idxty, idx)
    align = None if aryty.aligned else 1
    return context.unpack_value(builder, aryty.dtype, ptr, align=align)


@lower(len, types.Array)
def length_from_value(context, builder, sig, args):
    """``len(a)``: the first extent, an ``intp`` (Numba's ``arrayobj.array_len``)."""
    (aryty,) = sig.args
    if aryty.ndim == 0:  # (Numba types it, then fails building the IR: "Can't index at [0] ...")
        from numba.core.errors import NumbaTypeError

        raise NumbaTypeError("len() of unsized object: a 0-d array has no length (NumPy's "
                             "error); use a.size or a[()]")
    if not has_value_length(context, aryty):
        from numba.np import arrayobj

        return arrayobj.array_len(context, builder, sig, args)
    (ary,) = args
    if is_argument_value(ary):
        model = context.data_model_manager[aryty]
        shape = builder.extract_value(ary, model.get_field_position("shape"))
    else:
        shape = _Slot(context, builder, aryty, ary).shape()
    return builder.extract_value(shape, 0)


@lower(operator.setitem, types.Array, types.Integer, types.Any)
@lower(operator.setitem, types.Array, types.BaseTuple, types.Any)
def setitem_element(context, builder, sig, args):
    aryty, idxty, valty = sig.args
    if not handles(context, aryty, idxty) or isinstance(valty, types.Buffer):
        from numba.np import arrayobj

        return arrayobj.setitem_array(context, builder, sig, args)
    ary, idx, val = args
    ptr = element_pointer(context, builder, aryty, ary, idxty, idx)
    val = context.cast(builder, val, valty, aryty.dtype)
    align = None if aryty.aligned else 1
    context.pack_value(builder, aryty.dtype, val, ptr, align=align)

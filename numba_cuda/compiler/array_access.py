"""Element access of arrays, ``a[i]``, ``a[i, j] = v``, lowered from the array's value; views
and iteration lowered without ``numba.np.arrayobj``.

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

Fewer indices than dimensions, or slices, make a view (below); anything else -- ``None``,
records, nested arrays, 0-d arrays, bounds checking (``debug=True``, ``boundscheck=True``,
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

Views and iteration, also so that a kernel using them does not import ``numba.np.arrayobj``
(the corpus' slicing and iteration entries did), with Numba's semantics and Numba's reads and
writes of the arrays involved (``_Slot``; the same code after libNVVM, tested):

* basic indexing with integers and slices (``a[1:-1:2]``, ``m[i]``, ``m[:, j]``, ``t[i, ::-1]``,
  ``a[()]``), fewer integers than dimensions, bounds checking off (``handles_view``,
  ``basic_view``): each slice checked for a zero step, clipped to its dimension and turned into
  the view's extent and stride (``numba.cpython.slicing``), each integer fixed as element
  access fixes it; the view's layout is the one Numba's typing gave its type;
* ``for x in a``: ``getiter`` makes a ``types.ArrayIterator``; its ``iternext``, the elements of
  a 1-d array or the row views of an n-d one (``handles_iteration``), is handed out by the
  target context's ``get_function``, as Numba registers the same signature.

``None``/``Ellipsis`` in an index, arrays as indices, bounds checking, slice assignment
(``a[1:] = x``) go to Numba's implementations (and import them).

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
    different (``tests/compiler/test_array_access.py``).  So ``a.shape``, ``len(a)``, views and
    iteration read (and build) arrays exactly as Numba does; the slot is gone after
    optimisation."""

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


#: The fields of Numba's array structure (``ArrayModel``), which a view is built from.
_ARRAY_FIELDS = frozenset(("meminfo", "parent", "nitems", "itemsize", "data", "shape", "strides"))


def _is_array_value(context, typ):
    """Is ``typ`` an array whose value is Numba's array structure, with exactly its fields?"""
    from numba.core.datamodel.models import ArrayModel

    if not isinstance(typ, types.Array):
        return False
    model = context.data_model_manager[typ]
    return isinstance(model, ArrayModel) and frozenset(model._fields) == _ARRAY_FIELDS


def handles_view(context, aryty, idxty):
    """Is ``aryty[idxty]`` a view by basic indexing -- integers and slices only, fewer integers
    than dimensions -- that this module lowers?"""
    if context.enable_boundscheck or aryty.ndim == 0 or not _is_array_value(context, aryty):
        return False
    index_types = _index_types(idxty)
    if len(index_types) > aryty.ndim:
        return False
    integers = 0
    for t in index_types:
        if isinstance(t, types.Integer):
            integers += 1
        elif not isinstance(t, types.SliceType):
            return False
    return integers < aryty.ndim


def handles_iteration(context, aryty):
    """Does this module lower ``iter(a)``/``next`` over the array type ``aryty`` (elements of a
    1-d array, row views of an n-d one)?"""
    if aryty.ndim == 0 or not _is_array_value(context, aryty):
        return False
    iterty = types.ArrayIterator(aryty)
    if tuple(context.data_model_manager[iterty]._fields) != ("index", "array"):
        return False
    return aryty.ndim == 1 or _is_array_value(context, iterty.yield_type)


def _make_view(context, builder, source, resty, data, shapes, strides):
    """The value of a view of type ``resty`` of the array in the slot ``source``: its
    ``itemsize``, ``meminfo`` and ``parent``, the given data pointer, extents and strides, and
    as many items as the extents multiply to (``nsw``)."""
    view = _Slot(context, builder, resty)
    itemsize, meminfo, parent = (source.load(name) for name in ("itemsize", "meminfo", "parent"))
    intp_t = context.get_value_type(types.intp)
    shape = cgutils.pack_array(builder, list(shapes), intp_t)
    strides = cgutils.pack_array(builder, list(strides), intp_t)
    nitems = intp_t(1)
    for extent in cgutils.unpack_tuple(builder, shape, len(shapes)):
        nitems = builder.mul(nitems, extent, flags=["nsw"])
    fields = (("shape", shape), ("strides", strides), ("data", data), ("itemsize", itemsize),
              ("meminfo", meminfo), ("parent", parent), ("nitems", nitems))
    for name, value in fields:
        view.store(name, value)
    return view.value()


def basic_view(context, builder, aryty, ary, idxty, idx, resty):
    """``ary[idx]`` as a view (``handles_view(context, aryty, idxty)`` must hold): each integer
    index fixed as element access fixes it, each slice checked for a zero step, clipped to its
    dimension and turned into the view's extent and stride (``numba.cpython.slicing``), the
    dimensions after the indices kept whole; the view starts at the element the integers and
    the slices' starts address.  Numba's semantics, and its reads of the array (``_Slot``)."""
    from numba.cpython import slicing

    source = _Slot(context, builder, aryty, ary)
    index_types = _index_types(idxty)
    if isinstance(idxty, types.BaseTuple):
        indices = cgutils.unpack_tuple(builder, idx, count=len(index_types))
    else:
        indices = (idx,)
    shapes, strides = source.extents(), source.strides()
    starts, view_shapes, view_strides = [], [], []
    for axis, (t, value) in enumerate(zip(index_types, indices)):
        if isinstance(t, types.SliceType):
            slice_ = context.make_helper(builder, t, value=value)
            slicing.guard_invalid_slice(context, builder, t, slice_)
            slicing.fix_slice(builder, slice_, shapes[axis])
            starts.append(slice_.start)
            view_shapes.append(slicing.get_slice_length(builder, slice_))
            view_strides.append(slicing.fix_stride(builder, slice_, strides[axis]))
        else:
            starts.append(fix_integer_index(context, builder, t, value, shapes[axis]))
    view_shapes += shapes[len(index_types):]
    view_strides += strides[len(index_types):]
    # the element the view starts at, the array read again (as Numba's get_item_pointer does)
    ptr = cgutils.get_item_pointer2(context, builder, source.load("data"), source.extents(),
                                    source.strides(), aryty.layout, starts,
                                    wraparound=False, boundscheck=False)
    return _make_view(context, builder, source, resty, ptr, view_shapes, view_strides)


def _numba_getitem(context, builder, sig, args):
    from numba.np import arrayobj

    if isinstance(sig.args[1], types.BaseTuple):
        return arrayobj.getitem_array_tuple(context, builder, sig, args)
    return arrayobj.getitem_arraynd_intp(context, builder, sig, args)


@lower(operator.getitem, types.Array, types.Integer)
@lower(operator.getitem, types.Array, types.SliceType)
@lower(operator.getitem, types.Array, types.BaseTuple)
def getitem_element(context, builder, sig, args):
    aryty, idxty = sig.args
    ary, idx = args
    if handles(context, aryty, idxty):
        ptr = element_pointer(context, builder, aryty, ary, idxty, idx)
        align = None if aryty.aligned else 1
        return context.unpack_value(builder, aryty.dtype, ptr, align=align)
    if handles_view(context, aryty, idxty) and _is_array_value(context, sig.return_type):
        view = basic_view(context, builder, aryty, ary, idxty, idx, sig.return_type)
        return imputils.impl_ret_borrowed(context, builder, sig.return_type, view)
    return _numba_getitem(context, builder, sig, args)


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


@lower("getiter", types.Array)
def getiter_array(context, builder, sig, args):
    """``iter(a)``: an ``ArrayIterator`` of the array and a pointer to its index, 0 (Numba's
    ``arrayobj.getiter_array``)."""
    (aryty,) = sig.args
    if not handles_iteration(context, aryty):
        from numba.np import arrayobj

        return arrayobj.getiter_array(context, builder, sig, args)
    (ary,) = args
    iterator = context.make_helper(builder, sig.return_type)
    iterator.index = cgutils.alloca_once_value(builder, context.get_constant(types.intp, 0))
    iterator.array = ary
    if context.enable_nrt:
        context.nrt.incref(builder, aryty, ary)
    return imputils.impl_ret_new_ref(context, builder, sig.return_type, iterator._getvalue())


@lower("iternext", types.ArrayIterator)
def iternext_array(context, builder, sig, args):
    """``next`` of an ``ArrayIterator``.  Numba registers the same signature, and its
    registration, installed after this one, is chosen once ``numba.np.arrayobj`` is: the target
    context's ``get_function`` hands this out for the iterators ``handles_iteration`` accepts
    (before the deferral could ask for that module).  It emits what Numba's emits, instruction
    for instruction (``tests/compiler/test_lowering_fast_paths.py`` lowers with Numba's
    ``get_function`` too)."""
    (iterty,) = sig.args
    if not handles_iteration(context, iterty.array_type):
        from numba.np import arrayobj

        return arrayobj.iternext_array(context, builder, sig, args)
    return _iternext_array(context, builder, sig, args)


@imputils.iternext_impl(imputils.RefType.BORROWED)
def _iternext_array(context, builder, sig, args, result):
    # while the index is below the first extent: the element (1-d) or the row view at
    # ``data + index * strides[0]``, then the index + 1 (Numba's ``arrayobj.iternext_array``)
    (iterty,) = sig.args
    (it,) = args
    aryty = iterty.array_type
    iterator = context.make_helper(builder, iterty, value=it)
    source = _Slot(context, builder, aryty, iterator.array)
    (nitems,) = cgutils.unpack_tuple(builder, source.shape(), 1)
    index = builder.load(iterator.index)
    is_valid = builder.icmp_signed("<", index, nitems)
    result.set_valid(is_valid)
    with builder.if_then(is_valid):
        shapes, strides = source.extents(), source.strides()
        offset = builder.mul(strides[0], index)
        ptr = cgutils.pointer_add(builder, source.load("data"), offset)
        if isinstance(iterty.yield_type, types.Buffer):
            value = _make_view(context, builder, source, iterty.yield_type, ptr, shapes[1:],
                               strides[1:])
        else:
            align = None if aryty.aligned else 1
            value = context.unpack_value(builder, aryty.dtype, ptr, align=align)
        result.yield_(value)
        builder.store(cgutils.increment_index(builder, index), iterator.index)

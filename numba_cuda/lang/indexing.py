"""Kernel-language family: thread indexing.

``cuda.threadIdx``/``blockIdx``/``blockDim``/``gridDim`` ``.x/.y/.z`` (int32, read from the PTX
special registers tid/ctaid/ntid/nctaid), ``cuda.laneid`` and ``cuda.warpsize`` (int32),
``cuda.grid(ndim)`` (absolute thread index: int64, or a UniTuple of ndim int64) and
``cuda.gridsize(ndim)`` (threads in the grid per dimension, same types).  ``ndim`` must be the
constant 1, 2 or 3.
"""

from numba.core import cgutils, imputils, types
from numba.core.errors import RequireLiteralValue, TypingError
from numba.core.typing import signature
from numba.core.typing import templates
from numba.core.typing.typeof import typeof_impl

import numba_cuda

from .intrinsics import read_sreg
from . import stubs

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.lang.indexing")

#: Module attributes read at run time, never folded as constants by Numba.
NONCONST_MODULE_ATTRS = ("laneid", "warpsize")

_DIM3_SREG = {
    "threadIdx": "tid",
    "blockIdx": "ctaid",
    "blockDim": "ntid",
    "gridDim": "nctaid",
}


class Dim3Type(types.Dummy):
    """Type of ``cuda.threadIdx`` and friends; ``.x/.y/.z`` read a special register."""

    def __init__(self, which):
        self.which = which
        self.sreg = _DIM3_SREG[which]
        super().__init__(name=f"cuda.{which}")

    @property
    def key(self):
        return self.which


_DIM3_TYPES = {name: Dim3Type(name) for name in _DIM3_SREG}


def register_data_models(manager):
    """Compiler hook: ``cuda.threadIdx`` and friends carry no data (their attributes read special
    registers), but debug info describes every variable, so they need a model."""
    from numba.core.datamodel import models

    manager.register(Dim3Type, models.OpaqueModel)


@typeof_impl.register(stubs.Dim3Stub)
def _typeof_dim3(val, c):
    return _DIM3_TYPES[val.qualname.rsplit(".", 1)[-1]]


@typing_registry.register_attr
class Dim3Attributes(templates.AttributeTemplate):
    key = Dim3Type

    def resolve_x(self, mod):
        return types.int32

    def resolve_y(self, mod):
        return types.int32

    def resolve_z(self, mod):
        return types.int32


def _lower_dim3_attr(axis):
    def impl(context, builder, typ, value):
        return read_sreg(builder, f"{typ.sreg}.{axis}")

    return impl


for _axis in "xyz":
    lowering_registry.lower_getattr(Dim3Type, _axis)(_lower_dim3_attr(_axis))


@typing_registry.register_attr
class CudaModuleAttributes(templates.AttributeTemplate):
    key = types.Module(numba_cuda)

    def resolve_laneid(self, mod):
        return types.int32

    def resolve_warpsize(self, mod):
        return types.int32


@lowering_registry.lower_getattr(types.Module(numba_cuda), "laneid")
def _lower_laneid(context, builder, typ, value):
    return read_sreg(builder, "laneid")


@lowering_registry.lower_getattr(types.Module(numba_cuda), "warpsize")
def _lower_warpsize(context, builder, typ, value):
    return read_sreg(builder, "warpsize")


# ``from numba.cuda import laneid`` makes the stub itself a global of the kernel: type it as
# int32 and let the target context ask ``lower_value_stub`` for its value where it is read.
_VALUE_STUB_SREGS = {stubs.laneid: "laneid", stubs.warpsize: "warpsize"}
for _stub in _VALUE_STUB_SREGS:
    typing_registry.register_global(_stub, types.int32)


def lower_value_stub(context, builder, stub):
    """Compiler hook: the value of a per-thread value stub used as a bare global."""
    return read_sreg(builder, _VALUE_STUB_SREGS[stub])


# ---- grid / gridsize ------------------------------------------------------------------
def _ndim_of(fname, args, kws):
    if kws or len(args) != 1:
        raise TypingError(f"cuda.{fname}() takes exactly one argument, the constant 1, 2 or 3")
    (arg,) = args
    if not isinstance(arg, types.Literal):
        # Numba's class for "this argument must be a compile-time constant" (a TypingError),
        # as the peers raise it here
        raise RequireLiteralValue(
            f"cuda.{fname}(ndim) needs ndim to be the constant 1, 2 or 3, got {arg} (a value "
            "known only at run time)")
    if not isinstance(arg, types.IntegerLiteral) or arg.literal_value not in (1, 2, 3):
        raise TypingError(
            f"cuda.{fname}(ndim) needs ndim to be the constant 1, 2 or 3, got {arg}"
        )
    return arg.literal_value


def _result_type(ndim):
    return types.int64 if ndim == 1 else types.UniTuple(types.int64, ndim)


# prefer_literal: ndim is typed as its literal first, the attempt that succeeds.  (Numba tries
# the non-literal int first otherwise: its TypingError, kept with its traceback among the call's
# failures, holds the typing frames -- and the function's IR -- in a reference cycle.)
class GridTemplate(templates.AbstractTemplate):
    key = stubs.grid
    prefer_literal = True

    def generic(self, args, kws):
        ndim = _ndim_of("grid", args, kws)
        return signature(_result_type(ndim), args[0])


class GridsizeTemplate(templates.AbstractTemplate):
    key = stubs.gridsize
    prefer_literal = True

    def generic(self, args, kws):
        ndim = _ndim_of("gridsize", args, kws)
        return signature(_result_type(ndim), args[0])


typing_registry.register_global(stubs.grid, types.Function(GridTemplate))
typing_registry.register_global(stubs.gridsize, types.Function(GridsizeTemplate))


def _as_i64(builder, value):
    return builder.zext(value, cgutils.intp_t) if value.type.width < 64 else value


def _pack(context, builder, sig, values):
    if len(values) == 1:
        return values[0]
    return context.make_tuple(builder, sig.return_type, values)


@lowering_registry.lower(stubs.grid, types.IntegerLiteral)
def _lower_grid(context, builder, sig, args):
    ndim = sig.args[0].literal_value
    values = []
    for axis in "xyz"[:ndim]:
        tid = _as_i64(builder, read_sreg(builder, f"tid.{axis}"))
        ntid = _as_i64(builder, read_sreg(builder, f"ntid.{axis}"))
        ctaid = _as_i64(builder, read_sreg(builder, f"ctaid.{axis}"))
        values.append(builder.add(tid, builder.mul(ntid, ctaid)))
    return _pack(context, builder, sig, values)


@lowering_registry.lower(stubs.gridsize, types.IntegerLiteral)
def _lower_gridsize(context, builder, sig, args):
    ndim = sig.args[0].literal_value
    values = []
    for axis in "xyz"[:ndim]:
        ntid = _as_i64(builder, read_sreg(builder, f"ntid.{axis}"))
        nctaid = _as_i64(builder, read_sreg(builder, f"nctaid.{axis}"))
        values.append(builder.mul(ntid, nctaid))
    return _pack(context, builder, sig, values)

"""Kernel-language family: cooperative groups (``cuda.cg``).

=============================  ==========================================================
Python                         meaning
=============================  ==========================================================
``g = cuda.cg.this_grid()``    the group of every thread of the launch (a ``GridGroup``)
``g.sync()``                   barrier for the whole grid; memory written before it is
                               visible to every thread of the grid after it
``g.size()``                   threads in the grid (uint64)
``g.thread_rank()``            rank of the calling thread in the grid, 0..size-1 (uint64)
=============================  ==========================================================

Design of ``sync()``
====================
Two ways of synchronising a grid exist in CUDA:

1. Numba's built-in target calls ``cudaCGGetIntrinsicHandle`` / ``cudaCGSynchronizeGrid`` and
   links the CUDA device runtime (``libcudadevrt.a``) into every such kernel.  That needs the
   static library at run time (conda's ``cuda-cudart-static``, the cudart wheel) and a link step
   through nvJitLink for each kernel that synchronises the grid.
2. Since CUDA 11 the CUDA C++ headers (``cooperative_groups/details/sync.h`` and
   ``driver_abi.h``) implement ``grid.sync()`` inline, with no device runtime: for a
   *cooperative* launch the driver passes the address of a per-launch grid workspace
   ``{u32 size; u32 barrier}`` in the special registers ``%envreg1`` (low 32 bits) and
   ``%envreg2`` (high 32 bits), and the barrier is a counter in that workspace.  Every kernel
   built by ``nvcc`` with ``this_grid().sync()`` since CUDA 11 depends on this driver ABI, so
   drivers keep it.

This module uses the second way: the PTX is self-contained (no link step, nothing beyond
libNVVM at compile time), and the driver owns the counter, so concurrent launches of the same
kernel never share it.  The barrier, per call:

* ``bar.sync 0``; then only thread (0,0,0) of each block goes on:
* block (0,0,0) adds ``0x80000000 - (nblocks - 1)`` to the counter, every other block adds 1,
  so that the counter's top bit flips exactly when the last block arrives, whatever the
  arrival order, and its low 31 bits are back to their value (zero, as the driver hands the
  workspace over) afterwards, so consecutive barriers need no reset;
* the add is an atomic preceded by ``membar.gl`` (release), the wait polls the counter with
  volatile loads until its top bit differs from the value the add returned, then ``membar.gl``
  (acquire) -- the sequence the CUDA headers use on every architecture before sm_70, valid on
  all of them under the PTX memory model, so one NVVM IR serves every compute capability;
* ``bar.sync 0`` releases the block's other threads.

A null workspace (the kernel was not launched cooperatively, e.g. PTX from ``compile_ptx``
loaded by other means) traps instead of corrupting memory or hanging.  The dispatcher launches
every kernel whose code calls ``sync()`` (directly or through device functions) with
``cuLaunchCooperativeKernel``: lowering ``sync()`` sets ``uses_grid_sync`` on the code library
being built, and ``CompiledKernel.cooperative`` is true when any library the kernel links has it.
A cooperative launch needs every block resident at once: at most
``kernel.max_cooperative_grid_blocks(blockdim)`` blocks; larger grids are refused before the
driver sees them.
"""

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.datamodel import models, register_default
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import (
    AbstractTemplate, AttributeTemplate, Registry as TypingRegistry, bound_function, signature,
)

from .intrinsics import call_intrinsic, read_sreg
from . import archselect, stubs

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.cg")
lower = lowering_registry.lower

_void = ir.VoidType()
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)

#: Byte offset of the barrier counter in the driver's grid workspace ``{u32 size; u32 barrier}``.
BARRIER_OFFSET = 4
TOP_BIT = 0x80000000

#: Attribute set on a code library whose code synchronises the grid (read by CompiledKernel).
LIBRARY_FLAG = "uses_grid_sync"
#: Cooperative launches (which grid sync needs to make progress) exist from compute capability 6.0.
GRID_SYNC_CC = (6, 0)


class GridGroupType(types.Type):
    """Numba type of ``cuda.cg.this_grid()``; the value is the grid workspace address."""

    def __init__(self):
        super().__init__(name="GridGroup")


grid_group = GridGroupType()


@register_default(GridGroupType)
class GridGroupModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _i64)


# ---- typing ----------------------------------------------------------------------------------


class _ThisGrid(AbstractTemplate):
    key = stubs.cg.this_grid

    def generic(self, args, kws):
        if args or kws:
            raise errors.TypingError("cuda.cg.this_grid() takes no arguments")
        return signature(grid_group)


typing_registry.register_global(stubs.cg.this_grid, types.Function(_ThisGrid))


@typing_registry.register_attr
class GridGroupAttributes(AttributeTemplate):
    key = GridGroupType

    def _no_arguments(self, name, args, kws, result):
        if args or kws:
            raise errors.TypingError(f"GridGroup.{name}() takes no arguments")
        return signature(result)

    @bound_function("GridGroup.sync")
    def resolve_sync(self, group, args, kws):
        return self._no_arguments("sync", args, kws, types.none)

    @bound_function("GridGroup.size")
    def resolve_size(self, group, args, kws):
        return self._no_arguments("size", args, kws, types.uint64)

    @bound_function("GridGroup.thread_rank")
    def resolve_thread_rank(self, group, args, kws):
        return self._no_arguments("thread_rank", args, kws, types.uint64)


# ---- lowering --------------------------------------------------------------------------------


def _envreg(builder, number):
    fnty = ir.FunctionType(_i32, [])
    return builder.asm(fnty, f"mov.u32 $0, %envreg{number};", "=r", [], side_effect=False)


@lower(stubs.cg.this_grid)
def _lower_this_grid(context, builder, sig, args):
    low = builder.zext(_envreg(builder, 1), _i64)
    high = builder.zext(_envreg(builder, 2), _i64)
    return builder.or_(builder.shl(high, ir.Constant(_i64, 32)), low)


def _sreg64(builder, name):
    return builder.zext(read_sreg(builder, name), _i64)


def _product(builder, values):
    result = values[0]
    for value in values[1:]:
        result = builder.mul(result, value)
    return result


def _block_threads(builder):
    return _product(builder, [_sreg64(builder, f"ntid.{a}") for a in "xyz"])


def _grid_blocks(builder):
    return _product(builder, [_sreg64(builder, f"nctaid.{a}") for a in "xyz"])


def _linear(builder, index_prefix, dim_prefix):
    """x + nx * (y + ny * z) for the special registers ``index_prefix``/``dim_prefix``."""
    x, y, z = (_sreg64(builder, f"{index_prefix}.{a}") for a in "xyz")
    nx, ny = (_sreg64(builder, f"{dim_prefix}.{a}") for a in "xy")
    return builder.add(x, builder.mul(nx, builder.add(y, builder.mul(ny, z))))


@lower("GridGroup.size", GridGroupType)
def _lower_size(context, builder, sig, args):
    return builder.mul(_grid_blocks(builder), _block_threads(builder))


@lower("GridGroup.thread_rank", GridGroupType)
def _lower_thread_rank(context, builder, sig, args):
    block_rank = _linear(builder, "ctaid", "nctaid")
    thread_in_block = _linear(builder, "tid", "ntid")
    return builder.add(builder.mul(block_rank, _block_threads(builder)), thread_in_block)


def _mark_library(context):
    library = getattr(context, "active_code_library", None)
    if library is not None:
        setattr(library, LIBRARY_FLAG, True)


@lower("GridGroup.sync", GridGroupType)
def _lower_sync(context, builder, sig, args):
    (workspace,) = args
    _mark_library(context)
    archselect.require_cc(context, "grid group sync (cuda.cg.this_grid().sync())", GRID_SYNC_CC)
    call_intrinsic(builder, "llvm.nvvm.barrier0", _void, (), ())

    trap = builder.append_basic_block("grid_sync.not_cooperative")
    checked = builder.append_basic_block("grid_sync.start")
    builder.cbranch(cgutils.is_null(builder, workspace), trap, checked)
    builder.position_at_end(trap)
    call_intrinsic(builder, "llvm.trap", _void, (), ())
    builder.unreachable()
    builder.position_at_end(checked)

    zero32 = ir.Constant(_i32, 0)
    tid_or = builder.or_(builder.or_(read_sreg(builder, "tid.x"), read_sreg(builder, "tid.y")),
                         read_sreg(builder, "tid.z"))
    is_block_master = builder.icmp_unsigned("==", tid_or, zero32)
    with builder.if_then(is_block_master):
        address = builder.add(workspace, ir.Constant(_i64, BARRIER_OFFSET))
        counter = builder.inttoptr(address, ir.PointerType(_i32))
        blocks = builder.trunc(_grid_blocks(builder), _i32)
        cta_or = builder.or_(builder.or_(read_sreg(builder, "ctaid.x"),
                                         read_sreg(builder, "ctaid.y")),
                             read_sreg(builder, "ctaid.z"))
        is_grid_master = builder.icmp_unsigned("==", cta_or, zero32)
        master_add = builder.sub(ir.Constant(_i32, TOP_BIT),
                                 builder.sub(blocks, ir.Constant(_i32, 1)))
        increment = builder.select(is_grid_master, master_add, ir.Constant(_i32, 1))
        call_intrinsic(builder, "llvm.nvvm.membar.gl", _void, (), ())
        old = builder.atomic_rmw("add", counter, increment, "monotonic")

        poll = builder.append_basic_block("grid_sync.poll")
        arrived = builder.append_basic_block("grid_sync.arrived")
        builder.branch(poll)
        builder.position_at_end(poll)
        # A volatile load the optimiser can neither hoist nor merge (llvmlite has no volatile
        # loads, so it is written as PTX).
        current = builder.asm(ir.FunctionType(_i32, [_i64]), "ld.volatile.u32 $0, [$1];",
                              "=r,l", [address], side_effect=True)
        flipped = builder.and_(builder.xor(old, current), ir.Constant(_i32, TOP_BIT))
        builder.cbranch(builder.icmp_unsigned("!=", flipped, zero32), arrived, poll)
        builder.position_at_end(arrived)
        call_intrinsic(builder, "llvm.nvvm.membar.gl", _void, (), ())
    call_intrinsic(builder, "llvm.nvvm.barrier0", _void, (), ())
    return context.get_dummy_value()

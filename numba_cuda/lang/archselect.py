"""Lowering that depends on the compute capability, decided by libNVVM at compile time.

The NVVM IR of a function is made once and compiled to PTX for any compute capability, so a
lowering cannot ask which one it is for.  It can ask libNVVM instead: ``__nvvm_reflect("__CUDA_ARCH")``
is replaced by ``major * 100 + minor * 10`` of the ``-arch`` being compiled for, and the branch not
taken is deleted, also at ``-opt=0`` (checked for both of libNVVM's IR readers, CUDA 12 and 13).
Only the selected side reaches ``ptxas``, so it may hold instructions that older GPUs lack (inline PTX
such as ``atom.add.noftz.f16``).

    with arch_at_least(builder, (7, 0)) as (native, fallback):
        with native:
            ...  # sm_70 and newer
        with fallback:
            ...  # older
"""

import contextlib

from llvmlite import ir
from numba.core import cgutils

_i8 = ir.IntType(8)
_i32 = ir.IntType(32)
_NAME = "__CUDA_ARCH"


def _arch_string(module):
    """The ``"__CUDA_ARCH"`` string NVVM's reflection expects, as a constant global (shared per module).

    It must be in the generic address space: CUDA 12's modern IR reader (compute_100 and newer)
    does not resolve a string in the constant space and answers 0."""
    gvname = "__numba_cuda_reflect_arch"
    gv = module.globals.get(gvname)
    if gv is None:
        data = bytearray(_NAME.encode("ascii") + b"\x00")
        gv = ir.GlobalVariable(module, ir.ArrayType(_i8, len(data)), gvname)
        gv.linkage = "internal"
        gv.global_constant = True
        gv.initializer = ir.Constant(gv.value_type, data)
    return gv


def cuda_arch(builder):
    """An i32: ``100 * major + 10 * minor`` of the compute capability libNVVM compiles for."""
    module = builder.module
    reflect = cgutils.get_or_insert_function(module, ir.FunctionType(_i32, [_i8.as_pointer()]),
                                             "__nvvm_reflect")
    gv = _arch_string(module)
    zero = ir.Constant(_i32, 0)
    return builder.call(reflect, [builder.gep(gv, [zero, zero])])


def is_arch_at_least(builder, cc):
    """An i1, true when compiling for compute capability ``cc`` (``(major, minor)``) or newer."""
    threshold = ir.Constant(_i32, cc[0] * 100 + cc[1] * 10)
    return builder.icmp_signed(">=", cuda_arch(builder), threshold)


@contextlib.contextmanager
def arch_at_least(builder, cc):
    """``builder.if_else`` on :func:`is_arch_at_least`: yields ``(native, fallback)`` blocks."""
    with builder.if_else(is_arch_at_least(builder, cc)) as (native, fallback):
        yield native, fallback


def select_by_arch(builder, lltype, choices, fallback):
    """A value of LLVM type ``lltype`` made by the first ``emit(builder)`` of ``choices``
    (``[(cc, emit), ...]``, newest compute capability first) that the target meets, else by
    ``fallback(builder)``.  Only the chosen emitter's code survives in the PTX."""
    slot = cgutils.alloca_once(builder, lltype, name="by_arch")

    def emit_from(index):
        if index == len(choices):
            builder.store(fallback(builder), slot)
            return
        cc, emit = choices[index]
        with arch_at_least(builder, cc) as (native, older):
            with native:
                builder.store(emit(builder), slot)
            with older:
                emit_from(index + 1)

    emit_from(0)
    return builder.load(slot)


def require_cc(context, feature, cc):
    """Record that the code being lowered uses ``feature``, which exists from compute capability
    ``cc`` on and has no fallback: making code for an older compute capability raises a
    ``TypingError`` naming ``feature``, ``cc`` and the source line (``CUDACodeLibrary`` checks
    the requirements of a program's libraries, device functions included, before libNVVM runs).
    """
    library = getattr(context, "active_code_library", None)
    if library is None or not hasattr(library, "require_cc"):
        return
    library.require_cc(feature, cc)

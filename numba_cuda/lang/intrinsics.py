"""Hook for the kernel-language families: NVVM intrinsics, special registers, address spaces.

Use these from lowering functions (``lowering_registry.lower(...)``) in ``numba_cuda/lang``:

* ``declare_intrinsic(builder, name, ret, args)`` -- declare (once per module) an LLVM/NVVM
  intrinsic such as ``"llvm.nvvm.barrier0"`` and return the ``ir.Function``; ``ret``/``args`` are
  ``llvmlite.ir`` types.
* ``call_intrinsic(builder, name, ret, args, values)`` -- declare and call.
* ``read_sreg(builder, name)`` -- read a PTX special register as i32: ``"tid.x"``, ``"ntid.y"``,
  ``"ctaid.z"``, ``"nctaid.x"``, ``"laneid"``, ``"warpsize"`` ... (``llvm.nvvm.read.ptx.sreg.*``).
* Address spaces: ``ADDRSPACE_GENERIC`` (0), ``ADDRSPACE_GLOBAL`` (1), ``ADDRSPACE_SHARED`` (3),
  ``ADDRSPACE_CONSTANT`` (4), ``ADDRSPACE_LOCAL`` (5);
  ``add_global(module, ty, name, addrspace, linkage="internal")`` and
  ``to_generic(builder, ptr)`` (``addrspacecast`` to a generic pointer, as Numba's array model
  stores generic pointers).

IR rules for libNVVM (both readers): typed pointers only, no attributes newer than LLVM 7 (the
compiler strips the common ones anyway), no ``llvm.*`` math intrinsics that NVPTX cannot select
(use ``numba_cuda.compiler.libdevice``).
"""

from llvmlite import ir

ADDRSPACE_GENERIC = 0
ADDRSPACE_GLOBAL = 1
ADDRSPACE_SHARED = 3
ADDRSPACE_CONSTANT = 4
ADDRSPACE_LOCAL = 5

i32 = ir.IntType(32)


def declare_intrinsic(builder_or_module, name, ret, args):
    module = getattr(builder_or_module, "module", builder_or_module)
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, list(args)), name)
    return fn


def call_intrinsic(builder, name, ret, args, values):
    return builder.call(declare_intrinsic(builder, name, ret, args), list(values))


def read_sreg(builder, name):
    """Read the PTX special register ``name`` (e.g. ``"tid.x"``) as an i32."""
    return call_intrinsic(builder, f"llvm.nvvm.read.ptx.sreg.{name}", i32, (), ())


def add_global(module, ty, name, addrspace, linkage="internal"):
    """A uniquely named global of ``ty`` in ``addrspace``."""
    gv = ir.GlobalVariable(module, ty, module.get_unique_name(name), addrspace)
    gv.linkage = linkage
    return gv


def to_generic(builder, ptr):
    """``addrspacecast`` ``ptr`` to the generic address space (no-op if already generic)."""
    if ptr.type.addrspace == ADDRSPACE_GENERIC:
        return ptr
    return builder.addrspacecast(ptr, ir.PointerType(ptr.type.pointee, ADDRSPACE_GENERIC))

"""The device NRT: Numba's reference-counted memory runtime for CUDA code.

With ``NUMBA_CUDA_ENABLE_NRT=1`` (``numba.core.config.CUDA_ENABLE_NRT``) code is compiled with
Numba's ``nrt`` flag: the lowering subtarget has ``enable_nrt`` and Numba's own lowering emits
what NRT code needs -- ``NRT_MemInfo_alloc_aligned`` for ``np.empty``/``np.zeros`` ...,
``NRT_incref``/``NRT_decref`` around every value holding a meminfo, ``NRT_MemInfo_data_fast``.
Those functions are defined here, in NVVM IR text (``NRT_IR``), on top of CUDA's device-side
``malloc``/``free`` (PTX system calls).  ``CUDANRTContext`` (the target context's ``nrt``) links
the one ``nrt_library()`` into each code library whose lowering calls them.

A meminfo is ``{i64 refct, dtor, dtor_info, data, i64 size, external_allocator}`` (48 bytes,
Numba's layout); an array's meminfo and data are one ``malloc`` (the data aligned after it).
The reference count is changed with device-scope atomics, so a meminfo may be shared by the
threads of a kernel; the last ``NRT_decref`` runs the destructor and frees the block.

Allocation statistics: the program has a pointer global ``MEMSYS_GLOBAL`` (exported, so the
runtime finds it by name when it loads the kernel) to five ``u64`` in device memory --
``enabled``, ``alloc``, ``free``, ``mi_alloc``, ``mi_free`` -- that the runtime owns
(``numba_cuda.runtime.nrt_memsys``).  While the pointer is null or ``enabled`` is 0 nothing is
counted.

Without NRT, Numba's typing refuses a function returning an array it did not get as an argument
("Only accept returning of array passed into the function as argument"), which is how every
NumPy allocation in CUDA code fails; the pipeline replaces that message with one naming
the setting (``numba_cuda.common.unsupported.no_nrt_message``) when the compile fails
(``name_the_nrt_setting``).
"""

from numba.core import errors, types
from numba.core.extending import overload_classmethod
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.runtime.context import NRTContext
from numba.core.typing.templates import Registry as TypingRegistry

from ..common.unsupported import no_nrt_message

# A compiler family (``typing_context.COMPILER_FAMILIES``): its one overload registers with
# Numba's global registries; its own are empty.
typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.compiler.nrt")

#: the program's pointer to the runtime's statistics counters (see the module docstring)
MEMSYS_GLOBAL = "numba_cuda_nrt_memsys"

#: what Numba's typing says when a function returns a new array without NRT
_NUMBA_NO_NRT_RETURN = "Only accept returning of array passed into the function as argument"

#: the functions the NRT IR defines for Numba's lowering (``NRT_get_api`` is host-only)
NRT_FUNCTIONS = (
    "NRT_Allocate", "NRT_Free", "NRT_MemInfo_init", "NRT_MemInfo_new", "NRT_MemInfo_alloc",
    "NRT_MemInfo_alloc_aligned", "NRT_MemInfo_alloc_safe", "NRT_MemInfo_alloc_safe_aligned",
    "NRT_MemInfo_alloc_dtor", "NRT_MemInfo_alloc_dtor_safe", "NRT_MemInfo_call_dtor",
    "NRT_MemInfo_new_varsize", "NRT_MemInfo_new_varsize_dtor", "NRT_MemInfo_varsize_alloc",
    "NRT_MemInfo_varsize_realloc", "NRT_MemInfo_varsize_free", "NRT_MemInfo_data_fast",
    "NRT_incref", "NRT_decref",
)

# Slots of the statistics block (u64 each).
_ENABLED, _ALLOC, _FREE, _MI_ALLOC, _MI_FREE = range(5)

#: Numba's debug fill of new allocations (``NUMBA_DEBUG_NRT``: the ``_safe`` variants)
_DEBUG_FILL = 0xCB

NRT_IR_BODY = r"""
%MemInfo = type {{ i64, void (i8*, i64, i8*)*, i8*, i8*, i64, i8* }}

@{memsys} = addrspace(1) global i64* null, align 8
@llvm.used = appending global [1 x i8*] [i8* addrspacecast (i64* addrspace(1)* @{memsys} to i8*)], section "llvm.metadata"

declare i8* @malloc(i64)
declare void @free(i8*)
declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)
declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)

define internal void @nrt_count(i64 %slot) {{
entry:
  %ms = load i64*, i64* addrspace(1)* @{memsys}, align 8
  %none = icmp eq i64* %ms, null
  br i1 %none, label %done, label %check
check:
  %enabled = load volatile i64, i64* %ms, align 8
  %off = icmp eq i64 %enabled, 0
  br i1 %off, label %done, label %count
count:
  %counter = getelementptr i64, i64* %ms, i64 %slot
  %old = atomicrmw add i64* %counter, i64 1 monotonic
  br label %done
done:
  ret void
}}

define i8* @NRT_Allocate(i64 %size) #0 {{
entry:
  %ptr = call i8* @malloc(i64 %size)
  %failed = icmp eq i8* %ptr, null
  br i1 %failed, label %done, label %count
count:
  call void @nrt_count(i64 {alloc})
  br label %done
done:
  ret i8* %ptr
}}

define void @NRT_Free(i8* %ptr) #0 {{
entry:
  call void @free(i8* %ptr)
  call void @nrt_count(i64 {free})
  ret void
}}

define internal void @nrt_meminfo_init(%MemInfo* %mi, i8* %data, i64 %size, void (i8*, i64, i8*)* %dtor, i8* %info) {{
entry:
  %refct = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 0
  store i64 1, i64* %refct, align 8
  %dtor_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 1
  store void (i8*, i64, i8*)* %dtor, void (i8*, i64, i8*)** %dtor_slot, align 8
  %info_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 2
  store i8* %info, i8** %info_slot, align 8
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  store i8* %data, i8** %data_slot, align 8
  %size_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 4
  store i64 %size, i64* %size_slot, align 8
  %ext_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 5
  store i8* null, i8** %ext_slot, align 8
  call void @nrt_count(i64 {mi_alloc})
  ret void
}}

; A meminfo in memory the caller allocated (cuDF's string UDFs place theirs so): refct 1.
define void @NRT_MemInfo_init(i8* %raw, i8* %data, i64 %size, i8* %dtor, i8* %info) #0 {{
entry:
  %mi = bitcast i8* %raw to %MemInfo*
  %dtor_fn = bitcast i8* %dtor to void (i8*, i64, i8*)*
  call void @nrt_meminfo_init(%MemInfo* %mi, i8* %data, i64 %size, void (i8*, i64, i8*)* %dtor_fn, i8* %info)
  ret void
}}

define i8* @NRT_MemInfo_new(i8* %data, i64 %size, i8* %dtor, i8* %info) #0 {{
entry:
  %raw = call i8* @NRT_Allocate(i64 48)
  %failed = icmp eq i8* %raw, null
  br i1 %failed, label %done, label %init
init:
  %mi = bitcast i8* %raw to %MemInfo*
  %dtor_fn = bitcast i8* %dtor to void (i8*, i64, i8*)*
  call void @nrt_meminfo_init(%MemInfo* %mi, i8* %data, i64 %size, void (i8*, i64, i8*)* %dtor_fn, i8* %info)
  br label %done
done:
  ret i8* %raw
}}

; One block: the meminfo, then the data at the first multiple of align after it.
define internal i8* @nrt_alloc_block(i64 %size, i32 %align, void (i8*, i64, i8*)* %dtor, i1 %fill) {{
entry:
  %align64 = zext i32 %align to i64
  %zero = icmp eq i64 %align64, 0
  %a = select i1 %zero, i64 1, i64 %align64
  %with_mi = add i64 %size, 48
  %total = add i64 %with_mi, %a
  %base = call i8* @NRT_Allocate(i64 %total)
  %failed = icmp eq i8* %base, null
  br i1 %failed, label %done, label %init
init:
  %base_int = ptrtoint i8* %base to i64
  %start = add i64 %base_int, 48
  %rem = urem i64 %start, %a
  %gap = sub i64 %a, %rem
  %pad = urem i64 %gap, %a
  %data_int = add i64 %start, %pad
  %data = inttoptr i64 %data_int to i8*
  %mi = bitcast i8* %base to %MemInfo*
  call void @nrt_meminfo_init(%MemInfo* %mi, i8* %data, i64 %size, void (i8*, i64, i8*)* %dtor, i8* null)
  br i1 %fill, label %filling, label %done
filling:
  call void @llvm.memset.p0i8.i64(i8* %data, i8 {fill}, i64 %size, i1 false)
  br label %done
done:
  ret i8* %base
}}

define i8* @NRT_MemInfo_alloc(i64 %size) #0 {{
entry:
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 1, void (i8*, i64, i8*)* null, i1 false)
  ret i8* %mi
}}

define i8* @NRT_MemInfo_alloc_safe(i64 %size) #0 {{
entry:
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 1, void (i8*, i64, i8*)* null, i1 true)
  ret i8* %mi
}}

define i8* @NRT_MemInfo_alloc_aligned(i64 %size, i32 %align) #0 {{
entry:
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 %align, void (i8*, i64, i8*)* null, i1 false)
  ret i8* %mi
}}

define i8* @NRT_MemInfo_alloc_safe_aligned(i64 %size, i32 %align) #0 {{
entry:
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 %align, void (i8*, i64, i8*)* null, i1 true)
  ret i8* %mi
}}

define i8* @NRT_MemInfo_alloc_dtor(i64 %size, i8* %dtor) #0 {{
entry:
  %dtor_fn = bitcast i8* %dtor to void (i8*, i64, i8*)*
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 1, void (i8*, i64, i8*)* %dtor_fn, i1 false)
  ret i8* %mi
}}

define i8* @NRT_MemInfo_alloc_dtor_safe(i64 %size, i8* %dtor) #0 {{
entry:
  %dtor_fn = bitcast i8* %dtor to void (i8*, i64, i8*)*
  %mi = call i8* @nrt_alloc_block(i64 %size, i32 1, void (i8*, i64, i8*)* %dtor_fn, i1 true)
  ret i8* %mi
}}

define void @NRT_MemInfo_call_dtor(i8* %raw) #0 {{
entry:
  %mi = bitcast i8* %raw to %MemInfo*
  %dtor_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 1
  %dtor = load void (i8*, i64, i8*)*, void (i8*, i64, i8*)** %dtor_slot, align 8
  %none = icmp eq void (i8*, i64, i8*)* %dtor, null
  br i1 %none, label %release, label %destroy
destroy:
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  %data = load i8*, i8** %data_slot, align 8
  %size_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 4
  %size = load i64, i64* %size_slot, align 8
  %info_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 2
  %info = load i8*, i8** %info_slot, align 8
  call void %dtor(i8* %data, i64 %size, i8* %info)
  br label %release
release:
  call void @NRT_Free(i8* %raw)
  call void @nrt_count(i64 {mi_free})
  ret void
}}

define void @NRT_incref(i8* %raw) #0 {{
entry:
  %none = icmp eq i8* %raw, null
  br i1 %none, label %done, label %inc
inc:
  %refct = bitcast i8* %raw to i64*
  %old = atomicrmw add i64* %refct, i64 1 monotonic
  br label %done
done:
  ret void
}}

define void @NRT_decref(i8* %raw) #0 {{
entry:
  %none = icmp eq i8* %raw, null
  br i1 %none, label %done, label %dec
dec:
  %refct = bitcast i8* %raw to i64*
  %old = atomicrmw sub i64* %refct, i64 1 acq_rel
  %last = icmp eq i64 %old, 1
  br i1 %last, label %destroy, label %done
destroy:
  call void @NRT_MemInfo_call_dtor(i8* %raw)
  br label %done
done:
  ret void
}}

define i8* @NRT_MemInfo_data_fast(i8* %raw) #0 {{
entry:
  %mi = bitcast i8* %raw to %MemInfo*
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  %data = load i8*, i8** %data_slot, align 8
  ret i8* %data
}}

; Variable-size data (Numba's lists): the data is a block of its own, freed by this destructor,
; which first calls the element destructor kept in dtor_info (if any).
define internal void @nrt_varsize_dtor(i8* %data, i64 %size, i8* %info) {{
entry:
  %none = icmp eq i8* %info, null
  br i1 %none, label %release, label %elements
elements:
  %element_dtor = bitcast i8* %info to void (i8*)*
  call void %element_dtor(i8* %data)
  br label %release
release:
  call void @NRT_Free(i8* %data)
  ret void
}}

define i8* @NRT_MemInfo_new_varsize(i64 %size) #0 {{
entry:
  %data = call i8* @NRT_Allocate(i64 %size)
  %failed = icmp eq i8* %data, null
  br i1 %failed, label %fail, label %meminfo
meminfo:
  %dtor = bitcast void (i8*, i64, i8*)* @nrt_varsize_dtor to i8*
  %mi = call i8* @NRT_MemInfo_new(i8* %data, i64 %size, i8* %dtor, i8* null)
  %no_mi = icmp eq i8* %mi, null
  br i1 %no_mi, label %undo, label %done
undo:
  call void @NRT_Free(i8* %data)
  br label %fail
fail:
  ret i8* null
done:
  ret i8* %mi
}}

define i8* @NRT_MemInfo_new_varsize_dtor(i64 %size, i8* %element_dtor) #0 {{
entry:
  %raw = call i8* @NRT_MemInfo_new_varsize(i64 %size)
  %failed = icmp eq i8* %raw, null
  br i1 %failed, label %done, label %set
set:
  %mi = bitcast i8* %raw to %MemInfo*
  %info_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 2
  store i8* %element_dtor, i8** %info_slot, align 8
  br label %done
done:
  ret i8* %raw
}}

define i8* @NRT_MemInfo_varsize_alloc(i8* %raw, i64 %size) #0 {{
entry:
  %data = call i8* @NRT_Allocate(i64 %size)
  %failed = icmp eq i8* %data, null
  br i1 %failed, label %done, label %set
set:
  %mi = bitcast i8* %raw to %MemInfo*
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  store i8* %data, i8** %data_slot, align 8
  %size_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 4
  store i64 %size, i64* %size_slot, align 8
  br label %done
done:
  ret i8* %data
}}

define i8* @NRT_MemInfo_varsize_realloc(i8* %raw, i64 %size) #0 {{
entry:
  %mi = bitcast i8* %raw to %MemInfo*
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  %old = load i8*, i8** %data_slot, align 8
  %size_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 4
  %old_size = load i64, i64* %size_slot, align 8
  %new = call i8* @NRT_Allocate(i64 %size)
  %failed = icmp eq i8* %new, null
  br i1 %failed, label %fail, label %copy
copy:
  %no_old = icmp eq i8* %old, null
  br i1 %no_old, label %set, label %move
move:
  %shrink = icmp ult i64 %size, %old_size
  %keep = select i1 %shrink, i64 %size, i64 %old_size
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %new, i8* %old, i64 %keep, i1 false)
  call void @NRT_Free(i8* %old)
  br label %set
set:
  store i8* %new, i8** %data_slot, align 8
  store i64 %size, i64* %size_slot, align 8
  ret i8* %new
fail:
  ret i8* null
}}

define void @NRT_MemInfo_varsize_free(i8* %raw, i8* %ptr) #0 {{
entry:
  call void @NRT_Free(i8* %ptr)
  %mi = bitcast i8* %raw to %MemInfo*
  %data_slot = getelementptr %MemInfo, %MemInfo* %mi, i32 0, i32 3
  %data = load i8*, i8** %data_slot, align 8
  %same = icmp eq i8* %data, %ptr
  br i1 %same, label %clear, label %done
clear:
  store i8* null, i8** %data_slot, align 8
  br label %done
done:
  ret void
}}

attributes #0 = {{ noinline }}
"""


def nrt_ir():
    """The NRT module as NVVM IR text, ready for libNVVM (layout, triple, ``!nvvmir.version``)."""
    from . import nvvm

    version = ", ".join(f"i32 {v}" for v in nvvm.ir_version())
    body = NRT_IR_BODY.format(memsys=MEMSYS_GLOBAL, alloc=_ALLOC, free=_FREE,
                              mi_alloc=_MI_ALLOC, mi_free=_MI_FREE, fill=_DEBUG_FILL - 256)
    return (f'target triple = "{nvvm.TRIPLE}"\ntarget datalayout = "{nvvm.DATA_LAYOUT}"\n'
            f"{body}\n!nvvmir.version = !{{!0}}\n!0 = !{{{version}}}\n")


_LIBRARY = None


def nrt_library():
    """The finalized ``CUDACodeLibrary`` of the NRT module (one per process), linked by every
    library whose code calls the NRT."""
    global _LIBRARY
    if _LIBRARY is None:
        from .codelibrary import CUDACodegen

        library = CUDACodegen("numba_cuda.nrt").create_library("numba_cuda_nrt")
        library.add_ir_text("nrt", nrt_ir())
        library.is_nrt = True
        library.finalize()
        _LIBRARY = library
    return _LIBRARY


def uses_nrt(library):
    """True if ``library`` or a library it links calls the NRT."""
    return any(getattr(lib, "is_nrt", False) for lib in library.all_libraries())


class CUDANRTContext(NRTContext):
    """Numba's lowering interface to the NRT (``context.nrt``), for CUDA code: the calls it
    emits are those of Numba's CPU target; each code library using them links the NRT module."""

    def _require_nrt(self):
        if not self._enabled:
            raise errors.NumbaRuntimeError(no_nrt_message("this operation"))
        try:
            library = self._context.active_code_library
        except IndexError:  # not lowering into a library (nothing is emitted then)
            return
        library.add_linking_library(nrt_library())

    def get_nrt_api(self, builder):
        raise errors.NumbaRuntimeError(
            "the NRT's C API table (NRT_get_api) exists only on the host; CUDA code cannot "
            "call it")


@overload_classmethod(types.Array, "_allocate", target="cuda")
def _array_allocate(cls, allocsize, align):
    """How Numba's array constructors (``np.empty`` ...) get memory on this target: a meminfo
    with aligned data (Numba's own intrinsic, which calls ``context.nrt``), as on the CPU."""
    from numba.np.arrayobj import intrin_alloc

    def impl(cls, allocsize, align):
        return intrin_alloc(allocsize, align)

    return impl


def name_the_nrt_setting(exc):
    """Numba's refusal of a returned array without the NRT, in ``exc`` (a NumbaError of a
    compile without the NRT), replaced by the message naming the setting that allows it."""
    text = str(exc)
    if _NUMBA_NO_NRT_RETURN in text:
        exc.patch_message(text.replace(_NUMBA_NO_NRT_RETURN, no_nrt_message()))

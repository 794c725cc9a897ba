"""Kernel wrappers made from text templates (``kernel_wrapper``) are byte for byte the wrappers
built with ``llvmlite.ir`` under the real names, for many argument kinds, ``max_registers`` and
error reporting; the PTX of template-made kernels passes ptxas; wrappers with debug info are
still built directly.  Also: ``!nvvmir.version`` added as text, and the relinking of module
text (``codelibrary``)."""

import numpy as np
import pytest
from numba import cuda, from_dtype, types

from numba_cuda.compiler import codelibrary, kernel_wrapper, nvvm, nvvmir
from numba_cuda.compiler.target import cuda_target
from numba_cuda.dispatch.registration import ensure_registered
from tests.support.ptx_helpers import ptxas_or_skip

_RECORD = from_dtype(np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64)], align=True))
_PACKED = from_dtype(np.dtype([("x", np.int8), ("y", np.float32)]))

SIGNATURES = {
    "scalars": (types.int8, types.uint16, types.int32, types.int64, types.float32,
                types.float64, types.boolean),
    "complex": (types.complex64, types.complex128),
    "c_arrays": (types.float32[::1], types.int64[:, ::1], types.uint8[:, :, ::1]),
    "f_and_any_arrays": (types.float64[::1, :], types.float32[:, :], types.int16[:]),
    "readonly_array": (types.Array(types.float32, 2, "C", readonly=True),),
    "complex_arrays": (types.complex128[:, ::1], types.complex64[:]),
    "records": (_RECORD, _PACKED),
    "record_arrays": (_RECORD[::1], _PACKED[:, :]),
    "tuples": (types.UniTuple(types.float64, 3), types.Tuple((types.int32, types.float32)),
               types.Tuple((types.UniTuple(types.int64, 2), types.complex64))),
    "array_tuple": (types.Tuple((types.float32[::1], types.int32)),),
    "no_arguments": (),
}

NAMES = [
    ("_ZN6cudapy8__main__1kB2v1E5ArrayIfLi1E1C7mutable7alignedE", "_ZN8__main__1kB2v1E5Array"),
    ('odd"entry\\name', 'odd\\callee"name'),  # both escapes llvmlite applies in references
]


@pytest.fixture(scope="module")
def context():
    ensure_registered()
    return cuda_target.target_context


def _direct(context, argtypes, entry, callee, max_registers, report_errors):
    """The wrapper as make_kernel built it before templates: llvmlite.ir, printed, with
    ``!nvvmir.version`` added before printing and post-LLVM-7 attributes removed."""
    module, ll_args = context.build_kernel_wrapper(argtypes, types.none, entry, callee,
                                                   max_registers, report_errors)
    nvvmir.add_ir_version(module)
    return nvvmir.downgrade_for_llvm7(str(module)), ll_args


@pytest.mark.parametrize("kind", sorted(SIGNATURES))
@pytest.mark.parametrize("max_registers", [None, 40])
@pytest.mark.parametrize("report_errors", [False, True])
def test_template_text_is_the_directly_built_wrapper(context, kind, max_registers, report_errors):
    argtypes = SIGNATURES[kind]
    template = context.kernel_wrapper_template(argtypes, types.none, max_registers, report_errors)
    for entry, callee in NAMES:
        expected, ll_args = _direct(context, argtypes, entry, callee, max_registers, report_errors)
        assert template.render(entry, callee) == expected
        assert [str(t) for t in template.ll_args] == [str(t) for t in ll_args]
    text = template.render(*NAMES[0])
    assert ('!"maxnreg", i32 40' in text) == (max_registers is not None)
    assert (f'@"{NAMES[0][0]}__errors"' in text) == report_errors
    assert "\x01" not in text


def test_templates_are_made_once_per_key(context):
    argtypes = (types.float32[::1], types.int16)
    first = context.kernel_wrapper_template(argtypes, types.none)
    assert context.kernel_wrapper_template(argtypes, types.none) is first
    assert context.kernel_wrapper_template(argtypes, types.none, 32) is not first
    assert context.kernel_wrapper_template(argtypes, types.none, None, True) is not first


def test_template_refuses_text_where_a_placeholder_is_not_a_whole_global_name():
    header = f'; ModuleID = "{kernel_wrapper.module_name(kernel_wrapper.ENTRY)}"\n'
    kernel_wrapper.WrapperTemplate(header + f'call void @"{kernel_wrapper.CALLEE}"()', ())
    for body in (f'%"{kernel_wrapper.ENTRY}" = add', f'@"x{kernel_wrapper.ENTRY}"',
                 f'@"{kernel_wrapper.CALLEE}x"', "\x01unknown\x01", "\x01"):
        with pytest.raises(ValueError):
            kernel_wrapper.WrapperTemplate(header + body, ())
    with pytest.raises(ValueError, match="module id"):
        kernel_wrapper.WrapperTemplate('; ModuleID = "other"\n', ())


def _fill(a, r, t):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, 0] = r.a + t[0] + i


_FILL_SIG = (types.float64[:, ::1], _RECORD, types.UniTuple(types.float64, 2))


@pytest.mark.parametrize("options", [{}, {"max_registers": 32}, {"boundscheck": True},
                                     {"max_registers": 48, "boundscheck": True}],
                         ids=["plain", "max_registers", "boundscheck", "both"])
def test_template_kernels_pass_ptxas(options):
    run_ptxas = ptxas_or_skip()
    kernel = cuda.jit(**options)(_fill).compile(_FILL_SIG)
    llvm = kernel.inspect_llvm()
    assert "DISubprogram" not in llvm
    assert f'@"{kernel.entry_name}"' in llvm
    for cc in ((7, 5), (9, 0)):
        ptx = kernel.get_ptx(cc)
        assert f".entry {kernel.entry_name}(" in ptx
        if "max_registers" in options:
            assert f".maxnreg {options['max_registers']}" in ptx
        if options.get("boundscheck"):
            assert f"{kernel.entry_name}__errors" in ptx
            assert kernel.error_global == f"{kernel.entry_name}__errors"
        proc = run_ptxas(ptx, cc)
        assert proc.returncode == 0, proc.stderr


def test_two_kernels_with_one_template_keep_their_own_names():
    def first(a):
        a[0] = 1.0

    def second(a):
        a[0] = 2.0

    sig = (types.float32[::1],)
    k1 = cuda.jit(first).compile(sig)
    k2 = cuda.jit(second).compile(sig)
    assert k1.entry_name != k2.entry_name
    for kernel, other in ((k1, k2), (k2, k1)):
        ptx = kernel.get_ptx((9, 0))
        assert f".entry {kernel.entry_name}(" in ptx
        assert other.entry_name not in ptx


@pytest.mark.parametrize("option", ["debug", "lineinfo"])
def test_wrappers_with_debug_info_are_built_directly(option):
    options = {"debug": True, "opt": False} if option == "debug" else {"lineinfo": True}
    kernel = cuda.jit(**options)(_fill).compile(_FILL_SIG)
    llvm = kernel.inspect_llvm()
    start = llvm.index(f'define void @"{kernel.entry_name}"(')
    wrapper = llvm[start:llvm.index("\n}", start)]
    assert "!dbg !" in wrapper  # the call in the wrapper has a source location


def test_ir_version_text_numbers_after_the_modules_own_nodes():
    version = ", ".join(f"i32 {v}" for v in nvvm.ir_version())
    module = nvvmir.new_module("m")
    module.add_metadata([nvvmir.ir.IntType(32)(7)])
    module.add_metadata([nvvmir.ir.IntType(32)(8)])
    text = nvvmir.ir_version_text(module, str(module))
    assert text.endswith(f"!nvvmir.version = !{{ !2 }}\n!2 = !{{ {version} }}")
    empty = nvvmir.new_module("e")
    assert nvvmir.ir_version_text(empty, str(empty)).endswith(f"!0 = !{{ {version} }}")
    nvvmir.add_ir_version(module)
    assert nvvmir.ir_version_text(module, str(module)) == str(module)


_MODULE = """; ModuleID = "m"
@"g1" = global i32 0
@g2 = internal global i32 0
@"llvm.used" = appending global [0 x i8*] zeroinitializer
define i32 @"f"(i32 %"x")
{
  ret i32 %"x"
}
define internal void @h()
{
  ret void
}
define dso_local void @"kernel"()
{
  ret void
}
declare i32 @"d"(i32 %".1")
"""


def test_definitions_and_relink():
    defs = codelibrary.Definitions(_MODULE)
    assert defs.names == {"g1", "g2", "llvm.used", "f", "h", "kernel"}
    assert [name for _offset, name in defs.unlinked] == ["g1", "f", "kernel"]
    relinked = codelibrary._relink(_MODULE, {"kernel"})
    assert '@"g1" = linkonce_odr global i32 0' in relinked
    assert "@g2 = internal global" in relinked
    assert '@"llvm.used" = appending global' in relinked
    assert 'define linkonce_odr i32 @"f"(' in relinked
    assert "define internal void @h()" in relinked
    assert 'define dso_local void @"kernel"()' in relinked
    assert 'declare i32 @"d"' in relinked
    assert codelibrary._relink(_MODULE, {"kernel", "f", "g1"}) == _MODULE


def test_ir_modules_are_computed_once_per_library():
    kernel = cuda.jit(_fill).compile(_FILL_SIG)
    library = kernel.library
    first = library.ir_modules()
    assert library.ir_modules() == first
    assert library.ir_modules() is not first  # callers get their own list
    names = [name for name, _text in first]
    assert len(names) == 2 and names[0].endswith(".kernel")

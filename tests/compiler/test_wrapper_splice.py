"""A pass-through kernel wrapper is spliced into the module defining the function it calls before
libNVVM compiles the kernel (``kernel_wrapper.splice``, ``CUDACodeLibrary.program_modules``):
one module fewer, the same PTX for every corpus kernel and for the annotations
``max_registers``/``launch_bounds`` add; nothing is spliced where that is not certain to give
the same program (debug info, a wrapper that reports errors, a module with its own
``@llvm.used``, ``!nvvm.annotations``, IR version or data layout)."""

import re

import pytest
from numba import cuda, float32, int32, void

from numba_cuda.compiler import api, codelibrary, kernel_wrapper, nvvm
from numba_cuda.dispatch.registration import ensure_registered
from tests.support import corpus

def _corpus_kernels():
    return [pytest.param(fn, sig, id=name)
            for name, fn, sig, device in corpus.entries("splice") if not device]


def _library(fn, sig, **options):
    """The kernel's code library, as ``compile_ptx(fn, sig, cc=(9, 0), **options)`` makes it."""
    ensure_registered()
    library, _resty, _cc = api._compile_library(
        fn, sig, options.get("debug"), options.get("lineinfo", False), False, False, (9, 0),
        None, "numba", None, "ptx", False, options.get("launch_bounds"))
    return library


def _kernel_library(fn, sig, **jit_options):
    """The code library of ``cuda.jit(sig, **jit_options)(fn)`` (max_registers, boundscheck ...
    are cuda.jit's options)."""
    kernel = cuda.jit(sig, **jit_options)(fn)
    (compiled,) = kernel.overloads.values()
    return compiled.library


def _ptx(modules, library):
    return nvvm.compile_ir(modules, "compute_90", library.nvvm_options)


def _metadata_ids(text):
    return re.findall(r"^!(\d+) = ", text, re.M)


@pytest.mark.parametrize("fn, sig", _corpus_kernels())
def test_corpus_kernels_are_spliced_and_compile_to_the_same_ptx(fn, sig):
    library = _library(fn, sig)
    separate, spliced = library.ir_modules(), library.program_modules()
    assert len(spliced) == len(separate) - 1
    merged = [text for name, text in spliced if text not in {t for _n, t in separate}]
    assert len(merged) == 1
    ids = _metadata_ids(merged[0])
    assert len(ids) == len(set(ids)), "metadata node numbers are not unique"
    assert merged[0].count("!nvvmir.version") == 1
    assert _ptx(spliced, library) == _ptx(separate, library)


def _add(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += b[i]


SIG = void(float32[::1], float32[::1])


@pytest.mark.parametrize("launch_bounds", [None, 128, (256, 2)])
def test_annotations_are_renumbered_and_kept(launch_bounds):
    library = _library(_add, SIG, launch_bounds=launch_bounds)
    (_name, merged), = [m for m in library.program_modules()]
    wanted = 1 + (0 if launch_bounds is None else len(launch_bounds) if isinstance(
        launch_bounds, tuple) else 1)
    annotations = re.search(r"^!nvvm\.annotations = !\{ (.*) \}$", merged, re.M).group(1)
    refs = [ref.strip() for ref in annotations.split(",")]
    assert len(refs) == wanted
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", merged, re.M))
    assert all(ref in nodes for ref in refs)
    assert '!"kernel", i32 1' in nodes[refs[0]]
    ptx = library.get_ptx((9, 0))
    assert ptx == _ptx(library.ir_modules(), library)
    if launch_bounds is not None:
        assert ".maxntid" in ptx


def test_get_ptx_compiles_the_spliced_program(monkeypatch):
    seen = []
    real = nvvm.compile_ir

    def spy(modules, *args, **kwargs):
        seen.append(len(modules))
        return real(modules, *args, **kwargs)

    monkeypatch.setattr(nvvm, "compile_ir", spy)
    cuda.compile_ptx(_add, SIG, cc=(9, 0))
    cuda.compile(_add, SIG, device=False, abi="numba", cc=(9, 0), output="ltoir")
    assert seen == [1, 1]


@pytest.mark.parametrize("options", [{"debug": True, "opt": False}, {"lineinfo": True}])
def test_wrappers_with_debug_info_are_not_spliced(options):
    library = _library(_add, SIG, **options)
    assert not library.spliceable_wrappers
    assert library.program_modules() == library.ir_modules()


def test_a_wrapper_that_reports_errors_is_not_spliced():
    def kernel(a):
        a[0] = a[1]

    library = _kernel_library(kernel, "void(int32[::1])", boundscheck=True)
    assert not library.spliceable_wrappers
    assert library.program_modules() == library.ir_modules()


def _pair():
    """(wrapper text, callee name, body text) of ``_add``'s kernel."""
    library = _library(_add, SIG)
    (wrapper_name, callee), = library.spliceable_wrappers.items()
    modules = dict(library.ir_modules())
    wrapper = modules.pop(f"{library.name}:{wrapper_name}")
    (body,) = [text for text in modules.values() if codelibrary._defines(text, callee)]
    return wrapper, callee, body


def test_splice_refuses_a_module_it_cannot_merge_with_certainty():
    wrapper, callee, body = _pair()
    assert kernel_wrapper.splice(wrapper, callee, body) is not None
    used = '@"llvm.used" = appending global [0 x i8*] [], section "llvm.metadata"\n'
    version_node = re.search(r"^!nvvmir\.version = !\{ (!\d+) \}$", body, re.M).group(1)
    refused = {
        "its own llvm.used": body + used,
        "its own annotations": body + "!nvvm.annotations = !{ }\n",
        "another IR version": re.sub(rf"^{version_node} = .*$", f"{version_node} = !{{ i32 1, i32 0 }}",
                                     body, flags=re.M),
        "another data layout": body.replace("target datalayout = \"e-", "target datalayout = \"E-"),
        "the kernel's name": body + f"; {wrapper.split('define void ')[1].split('(')[0]}\n",
    }
    for why, text in refused.items():
        assert kernel_wrapper.splice(wrapper, callee, text) is None, why
    # a wrapper not laid out as pass_through_text writes it
    assert kernel_wrapper.splice(wrapper.replace("\ndeclare ", "\n; declare "), callee, body) is None
    assert kernel_wrapper.splice(wrapper, callee + "x", body) is None


def test_a_refused_splice_compiles_the_two_modules(monkeypatch):
    monkeypatch.setattr(kernel_wrapper, "splice", lambda *args: None)
    library = _library(_add, SIG)
    assert library.program_modules() == library.ir_modules()
    assert len(library.ir_modules()) == 2
    assert ".entry" in library.get_ptx((9, 0))


def test_defines_finds_only_a_definition():
    text = ('define linkonce_odr i32 @"f"(i32 %".1")\n{\nentry:\n  ret i32 0\n}\n'
            'define void @"g"()\n{\nentry:\n  %".1" = call i32 @"h"(i32 0)\n  ret void\n}\n'
            'declare i32 @"h"(i32 %".1")\n')
    assert codelibrary._defines(text, "f")
    assert codelibrary._defines(text, "g")
    assert not codelibrary._defines(text, "h")  # called and declared, not defined
    assert not codelibrary._defines(text, "k")


def test_int_kernel_with_max_registers_is_spliced():
    def kernel(a):
        a[0] = 1

    library = _kernel_library(kernel, void(int32[::1]), max_registers=40)
    modules = library.program_modules()
    assert len(modules) == len(library.ir_modules()) - 1
    assert _ptx(modules, library) == _ptx(library.ir_modules(), library)
    assert ".maxnreg 40" in _ptx(modules, library)


def test_numbered_nodes_are_found_at_line_starts_only():
    text = ('; ModuleID = "m"\n!0 = !{ i32 2, i32 0 }\n  call void @f(), !dbg !7\n'
            '!nvvmir.version = !{ !0 }\n!12 = !{ !"x" }')
    assert kernel_wrapper._numbered_nodes(text) == {"0": "!{ i32 2, i32 0 }", "12": '!{ !"x" }'}
    assert kernel_wrapper._numbered_nodes("!3 = !{ }\n") == {"3": "!{ }"}
    assert kernel_wrapper._numbered_nodes('; ModuleID = "m"\n') == {}

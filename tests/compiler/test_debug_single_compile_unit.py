"""debug=True / lineinfo=True programs reach libNVVM as one module with one debug compile unit
(CUDA 13's libNVVM refuses -g and -generate-line-info for compute_100+ otherwise), for every cc
the installed libNVVM accepts, keeping the line info of every function; programs without debug
info are handed over exactly as before (one module per library, no merge)."""

import os
import re

import pytest
from numba import cuda, float64

from numba_cuda.compiler import capability, module_merge
from numba_cuda.errors import NvvmError
from tests.support.ptx_helpers import ptxas_or_skip


@cuda.jit(device=True, debug=True, opt=False)
def _scale(x):
    doubled = x * 2.0  # line: scale
    return doubled


@cuda.jit(device=True, debug=True, opt=False)
def _shift(x):
    moved = x + 1.0  # line: shift
    return moved


@cuda.jit(device=True)
def _plain_scale(x):
    return x * 2.0


@cuda.jit(device=True)
def _plain_shift(x):
    return x + 1.0


def _two_plain_calls(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _plain_scale(a[i]) + _plain_shift(a[i])


def _two_calls(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _scale(a[i]) + _shift(a[i])  # line: kernel


def _line(marker):
    with open(__file__) as fh:
        for number, text in enumerate(fh, 1):
            if text.rstrip().endswith(f"# line: {marker}"):
                return number
    raise AssertionError(marker)


@pytest.fixture(scope="module")
def ptxas():
    return ptxas_or_skip()


def _loc_lines(ptx):
    """{(file path, line)} of the ``.loc`` directives of ``ptx``."""
    files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', ptx, re.M))
    return {(files.get(f), int(line)) for f, line in re.findall(r"^\s*\.loc\s+(\d+)\s+(\d+)", ptx, re.M)}


OPTIONS = {"debug": dict(debug=True, opt=False), "lineinfo": dict(lineinfo=True)}


@pytest.fixture(scope="module", params=sorted(OPTIONS))
def compiled(request):
    kernel = cuda.jit(_two_calls, **OPTIONS[request.param]).compile((float64[::1],))
    return request.param, kernel


def test_program_is_one_module_with_one_compile_unit(compiled):
    _kind, kernel = compiled
    library = kernel.library
    assert len(library.all_libraries()) >= 3  # kernel, _scale, _shift: several modules
    modules = library.ir_modules()
    assert len(modules) == 1
    text = modules[0][1]
    assert len(re.findall(r"!DICompileUnit\(", text)) == 1
    assert re.search(r"^!llvm\.dbg\.cu = !\{ !\d+ \}$", text, re.M)
    assert text.count("\n!llvm.module.flags = ") == 1
    assert text.count("\n!nvvmir.version = ") == 1
    # every subprogram points at the single unit
    unit = re.search(r"^(!\d+) = distinct !DICompileUnit\(", text, re.M).group(1)
    units = set(re.findall(r"unit: (!\d+)", text))
    assert units == {unit}


@pytest.mark.parametrize("cc", capability.supported_ccs(), ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def test_every_cc_compiles_with_line_info_and_passes_ptxas(compiled, cc, ptxas):
    kind, kernel = compiled
    ptx = kernel.library.get_ptx(cc)
    locs = _loc_lines(ptx)
    here = os.path.abspath(__file__)
    seen = {line for path, line in locs if path and os.path.abspath(path) == here}
    assert _line("kernel") in seen, sorted(locs)
    if kind == "debug":  # opt=False: the device functions stay calls, with their own lines
        assert {_line("scale"), _line("shift")} <= seen, sorted(locs)
        assert re.search(r"\.section\s+\.debug_info", ptx)
    proc = ptxas(ptx, cc)
    assert proc.returncode == 0, f"ptxas sm_{cc[0]}{cc[1]}:\n{proc.stderr}"


def test_compile_ptx_debug_for_compute_100_and_newer():
    newer = [cc for cc in capability.supported_ccs() if cc >= (10, 0)]
    if not newer:
        pytest.skip("this libNVVM has no compute_100+ target")
    for cc in newer:
        ptx, _ = cuda.compile_ptx(_two_calls, (float64[::1],), debug=True, opt=False, cc=cc)
        assert ".loc" in ptx and ".file" in ptx


def test_programs_without_debug_info_are_not_merged(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("merge called for a program without debug info")

    monkeypatch.setattr(module_merge, "merge", refuse)
    kernel = cuda.jit(_two_plain_calls).compile((float64[::1],))
    library = kernel.library
    modules = library.ir_modules()
    texts = [text for lib in library.all_libraries() for _name, text in lib._texts]
    assert len(modules) == len(texts) >= 3
    assert all("!llvm.dbg.cu" not in text for _name, text in modules)
    assert library.get_ptx((8, 0))


# ---- the merge itself, on small modules -----------------------------------------------------
_HEADER = 'target triple = "nvptx64-nvidia-cuda"\n'


def _module(body, cu=True):
    meta = (
        "!llvm.dbg.cu = !{ !1 }\n"
        "!llvm.module.flags = !{ !2 }\n"
        "!nvvmir.version = !{ !3 }\n"
        '!0 = !DIFile(directory: "/d", filename: "f.py")\n'
        "!1 = distinct !DICompileUnit(emissionKind: FullDebug, file: !0, language: DW_LANG_C_plus_plus)\n"
        '!2 = !{ i32 1, !"Debug Info Version", i32 3 }\n'
        "!3 = !{ i32 2, i32 0, i32 3, i32 2 }\n"
    ) if cu else ""
    return _HEADER + body + meta


def test_merge_renumbers_metadata_and_keeps_one_unit():
    first = _module('define void @"a"() !dbg !4 {\nentry:\n  ret void, !dbg !5\n}\n'
                    "!4 = distinct !DISubprogram(name: \"a\", unit: !1, file: !0)\n"
                    "!5 = !DILocation(line: 3, scope: !4)\n")
    second = _module('define void @"b"() !dbg !4 {\nentry:\n  ret void, !dbg !5\n}\n'
                     "!4 = distinct !DISubprogram(name: \"b\", unit: !1, file: !0)\n"
                     "!5 = !DILocation(line: 9, scope: !4)\n")
    _name, text = module_merge.merge([("a", first), ("b", second)])
    ids = re.findall(r"^!(\d+) = ", text, re.M)
    assert len(ids) == len(set(ids))
    assert text.count("DICompileUnit(") == 1
    assert set(re.findall(r"unit: (!\d+)", text)) == {"!1"}
    assert re.search(r'define void @"b"\(\) !dbg !(\d+)', text).group(1) == "10"
    assert "!10 = distinct !DISubprogram(name: \"b\", unit: !1, file: !6)" in text
    assert "!11 = !DILocation(line: 9, scope: !10)" in text
    assert "!llvm.module.flags = !{ !2 }" in text and "!nvvmir.version = !{ !3 }" in text


def test_merge_applies_the_linkers_rules_to_symbols():
    first = _module(
        '@"s" = internal global i32 1\n'
        'define linkonce_odr i32 @"shared"() {\nentry:\n  %"v" = load i32, i32* @"s"\n  ret i32 %"v"\n}\n'
        'declare i32 @"later"()\n'
        '@"llvm.used" = appending global [1 x i8*] [i8* bitcast (i32 ()* @"shared" to i8*)], '
        'section "llvm.metadata"\n'
    )
    second = _module(
        '@"s" = internal global i32 2\n'
        'define linkonce_odr i32 @"shared"() {\nentry:\n  ret i32 7\n}\n'
        'define i32 @"later"() {\nentry:\n  %"v" = load i32, i32* @"s"\n  ret i32 %"v"\n}\n'
        '@"llvm.used" = appending global [1 x i8*] [i8* bitcast (i32 ()* @"later" to i8*)], '
        'section "llvm.metadata"\n'
    )
    _name, text = module_merge.merge([("a", first), ("b", second)])
    assert '@"s" = internal global i32 1' in text
    assert '@"s.merged1" = internal global i32 2' in text
    assert 'load i32, i32* @"s.merged1"' in text  # the second module's use follows the rename
    assert text.count('@"shared"() {') == 1 and "ret i32 7" not in text
    assert 'declare i32 @"later"' not in text and 'define i32 @"later"()' in text
    assert text.count('@"llvm.used" = ') == 1
    assert '[2 x i8*] [i8* bitcast (i32 ()* @"shared" to i8*), i8* bitcast (i32 ()* @"later" to i8*)]' in text


def test_merge_refuses_two_strong_definitions():
    body = 'define void @"f"() {\nentry:\n  ret void\n}\n'
    with pytest.raises(NvvmError, match="defined twice"):
        module_merge.merge([("a", _module(body)), ("b", _module(body))])


def test_merge_refuses_conflicting_named_types():
    with pytest.raises(NvvmError, match="type"):
        module_merge.merge([("a", _module('%"T" = type {i32}\n')), ("b", _module('%"T" = type {i64}\n'))])

"""Linking with nvJitLink offline (no GPU): every input kind, LTO, errors."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from numba_cuda.errors import LinkerError
from numba_cuda.linking import (
    LTOIR,
    Archive,
    Cubin,
    CUSource,
    Fatbin,
    Linker,
    Object,
    PTXSource,
    compile_source,
    cubin_arch,
    detect_kind,
    from_file,
    link_cubin,
    nvjitlink_version,
)


def _caller_ptx(cu, cc):
    return compile_source(CUSource(cu.caller, name="caller.cu"), cc)


def _calls(ptx):
    return re.findall(r"^\s*call(?:\.uni)?\b.*$", ptx, re.MULTILINE)


def _assert_cubin_for(cubin, cc):
    assert detect_kind("out", cubin) == "cubin"
    assert cubin_arch(cubin) == cc


def test_nvjitlink_version_matches_the_toolkit_major():
    from numba_cuda.toolkit import get_toolkit

    assert nvjitlink_version()[0] == get_toolkit().cuda_major


def test_ptx_with_a_cu_source(cu, cc):
    cubin = link_cubin(cc, [_caller_ptx(cu, cc), CUSource(cu.addone, name="addone.cu")])
    _assert_cubin_for(cubin, cc)


def test_cu_file_on_disk_and_half_header(cu, cc, tmp_path):
    path = tmp_path / "helpers.cu"
    path.write_text(cu.addone + cu.half)
    linker = Linker(cc).add(_caller_ptx(cu, cc)).add(str(path))
    result = linker.link_result()
    _assert_cubin_for(result.cubin, cc)


def test_ptx_cubin_and_ptx_inputs(cu, cc):
    helper_cubin = compile_source(cu.addone, cc, output="cubin")
    _assert_cubin_for(link_cubin(cc, [_caller_ptx(cu, cc), helper_cubin]), cc)
    helper_ptx = compile_source(cu.addone, cc, output="ptx")
    _assert_cubin_for(link_cubin(cc, [_caller_ptx(cu, cc), helper_ptx]), cc)


def test_unresolved_symbol_is_a_linker_error_with_the_log(cu):
    with pytest.raises(LinkerError) as info:
        link_cubin((9, 0), [_caller_ptx(cu, (9, 0))])
    message = str(info.value)
    assert "nvJitLink could not link for sm_90" in message
    assert "addone" in message  # the log names the undefined symbol


def test_duplicate_definition_is_a_linker_error(cu):
    # nvJitLink itself only prints this to stderr and links anyway.
    with pytest.raises(LinkerError, match=r"multiple definition of 'addone': in b\.ptx and in a\.ptx"):
        link_cubin((9, 0), [_caller_ptx(cu, (9, 0)), CUSource(cu.addone, name="a.cu"),
                            CUSource(cu.addone + "\n", name="b.cu")])


def test_ptx_definitions_skip_declarations(cu):
    from numba_cuda.linking.nvjitlink import ptx_definitions

    caller = _caller_ptx(cu, (9, 0)).data
    assert b"addone" in caller  # declared (.extern) ...
    assert ptx_definitions(caller) == ["caller"]  # ... but only the kernel is defined
    forward = (b".visible .func  (.param .b32 r) f(\n .param .b64 p\n)\n;\n"
               b".visible .func  (.param .b32 r) f(\n .param .b64 p\n)\n{\n ret;\n}\n")
    assert ptx_definitions(forward) == ["f"]


def test_garbage_input_is_a_linker_error_naming_it():
    with pytest.raises(LinkerError, match=r"while adding junk\.ptx"):
        link_cubin((9, 0), [PTXSource(".version 99.0\n.target sm_90\nnot ptx at all", name="junk.ptx")])


def test_lto_links_ltoir_and_optimises(cu, cc):
    caller = compile_source(CUSource(cu.caller, name="caller.cu"), cc, output="ltoir")
    helper = compile_source(cu.addone, cc, output="ltoir")
    linker = Linker(cc, lto=True).add(caller).add(helper)
    _assert_cubin_for(linker.link(), cc)
    # With LTO the call is inlined across the two modules: the linked PTX has no call left.
    assert _calls(_caller_ptx(cu, cc).data.decode())  # (without LTO there is one)
    ptx = Linker(cc, lto=True).add(caller).add(helper).link_ptx()
    assert ".entry caller" in ptx
    assert not _calls(ptx)


def test_lto_compiles_cu_inputs_to_ltoir(cu):
    caller = compile_source(CUSource(cu.caller, name="caller.cu"), (9, 0), output="ltoir")
    ptx = Linker((9, 0), lto=True).add(caller).add(CUSource(cu.addone)).link_ptx()
    assert not _calls(ptx)


def test_ltoir_without_lto_is_refused_with_the_fix(cu):
    helper = compile_source(cu.addone, (9, 0), output="ltoir")
    with pytest.raises(LinkerError, match="lto=True"):
        link_cubin((9, 0), [_caller_ptx(cu, (9, 0)), helper])


def test_want_ptx_needs_lto(cu):
    with pytest.raises(ValueError, match="lto=True"):
        Linker((9, 0)).add(_caller_ptx(cu, (9, 0))).link_ptx()


def test_options_reach_nvjitlink(cu):
    linker = Linker((9, 0), max_registers=32, lineinfo=True)
    assert linker.link_options() == ["-arch=sm_90", "-maxrregcount=32", "-lineinfo"]
    linker.add(_caller_ptx(cu, (9, 0))).add(CUSource(cu.addone))
    _assert_cubin_for(linker.link(), (9, 0))
    with pytest.raises(LinkerError, match="rejected the options"):
        Linker((9, 0), options=["-no-such-option"]).add(CUSource(cu.addone)).link()


def test_nothing_to_link():
    with pytest.raises(LinkerError, match="nothing to link"):
        Linker((9, 0)).link()


def test_fatbin_input(cu, cc, tmp_path, cuda_tool):
    fatbinary = cuda_tool("fatbinary")
    cubin = tmp_path / "addone.cubin"
    cubin.write_bytes(compile_source(cu.addone, cc, output="cubin").data)
    fatbin = tmp_path / "addone.fatbin"
    subprocess.run(
        [fatbinary, f"--create={fatbin}", f"--image3=kind=elf,sm={cc[0]}{cc[1]},file={cubin}"],
        check=True, capture_output=True,
    )
    code = from_file(fatbin)
    assert isinstance(code, Fatbin)
    _assert_cubin_for(link_cubin(cc, [_caller_ptx(cu, cc), code]), cc)


def _nvcc_object(nvcc, source_path, cc, out):
    arch = f"{cc[0]}{cc[1]}"
    proc = subprocess.run(
        [nvcc, "-dc", f"-gencode=arch=compute_{arch},code=sm_{arch}", str(source_path), "-o", str(out)],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"nvcc could not build a host object here (no host compiler?): {proc.stderr[-300:]}")


def test_object_and_static_library_inputs(cu, tmp_path, cuda_tool):
    nvcc = cuda_tool("nvcc")
    cc = (9, 0)
    src = tmp_path / "addone.cu"
    src.write_text(cu.addone)
    obj = tmp_path / "addone.o"
    _nvcc_object(nvcc, src, cc, obj)
    code = from_file(obj)
    assert isinstance(code, Object)
    _assert_cubin_for(link_cubin(cc, [_caller_ptx(cu, cc), code]), cc)

    ar = cuda_tool("ar")
    lib = tmp_path / "libaddone.a"
    subprocess.run([ar, "rcs", str(lib), str(obj)], check=True)
    code = from_file(lib)
    assert isinstance(code, Archive)
    _assert_cubin_for(link_cubin(cc, [_caller_ptx(cu, cc), str(lib)]), cc)


def test_in_memory_classes_round_trip(cu):
    cubin = compile_source(cu.addone, (8, 0), output="cubin")
    assert isinstance(cubin, Cubin)
    ltoir = compile_source(cu.addone, (8, 0), output="ltoir")
    assert isinstance(ltoir, LTOIR)
    assert PTXSource("abc\x00").data == b"abc"
    with pytest.raises(TypeError, match="link= items"):
        Linker((9, 0)).add(42)


def _run_without_toolkit(code):
    env = dict(os.environ, NUMBA_CUDA_DISABLE_SOURCES="all")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120)


def test_lto_without_nvjitlink_names_nvjitlink():
    proc = _run_without_toolkit(
        """
        import warnings; warnings.simplefilter("ignore")
        from numba_cuda.errors import ToolkitError
        from numba_cuda.linking import Linker, LTOIR
        try:
            Linker((9, 0), lto=True).add(LTOIR(b"\\xedCN\\x7f" + bytes(16))).link()
        except ToolkitError as exc:
            print("COMPONENT", exc.component)
            print(exc)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "COMPONENT nvjitlink" in proc.stdout
    assert "lto=True (link-time optimisation) needs nvJitLink" in proc.stdout
    assert "Fix" in proc.stdout  # the toolkit's install command travels with it


def test_cu_without_nvrtc_names_nvrtc():
    proc = _run_without_toolkit(
        """
        import warnings; warnings.simplefilter("ignore")
        from numba_cuda.errors import ToolkitError
        from numba_cuda.linking import compile_source
        try:
            compile_source("__device__ int f() { return 0; }", (9, 0))
        except ToolkitError as exc:
            print("COMPONENT", exc.component)
            print(exc)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "COMPONENT nvrtc" in proc.stdout and "NVRTC" in proc.stdout

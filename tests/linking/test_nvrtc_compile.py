"""CUDA C/C++ to PTX, LTO-IR and cubin with the discovered NVRTC (no GPU needed)."""

import warnings

import pytest

from numba_cuda.errors import LinkerError
from numba_cuda.linking import CUSource, NvrtcWarning, compile_source, cubin_arch, detect_kind
from numba_cuda.linking import nvrtc as nvrtc_module


def test_ptx_for_each_arch(cu, cc):
    ptx = compile_source(cu.addone, cc)
    text = ptx.data.decode()
    assert f".target sm_{cc[0]}{cc[1]}" in text
    assert ".visible .func" in text and "addone(" in text  # extern "C": unmangled, linkable
    assert not ptx.data.endswith(b"\x00")
    assert detect_kind(ptx.name, ptx.data) == "ptx"


def test_ltoir_and_cubin_outputs(cu, cc):
    ltoir = compile_source(cu.addone, cc, output="ltoir")
    assert detect_kind("x", ltoir.data) == "ltoir"
    cubin = compile_source(cu.addone, cc, output="cubin")
    assert detect_kind("x", cubin.data) == "cubin"
    assert cubin_arch(cubin.data) == cc


def test_toolkit_headers_are_on_the_include_path(cu):
    # cuda_fp16.h is not one of NVRTC's built-in headers: it comes from discovery's include folder.
    ptx = compile_source(cu.half, (8, 0)).data.decode()
    assert "mul_half" in ptx
    assert "mul.f16" in ptx or "mul.rn.f16" in ptx


def test_user_include_dirs(tmp_path):
    (tmp_path / "myheader.h").write_text("#define MAGIC_NUMBER 4242\n")
    src = '#include "myheader.h"\nextern "C" __device__ int magic(int* r) { *r = MAGIC_NUMBER; return 0; }\n'
    ptx = compile_source(src, (9, 0), include_dirs=[tmp_path]).data.decode()
    assert "4242" in ptx


def test_compile_error_is_a_linker_error_with_the_log():
    src = 'extern "C" __device__ int broken(int* r) { *r = undefined_name; return 0; }\n'
    with pytest.raises(LinkerError) as info:
        compile_source(CUSource(src, name="broken.cu"), (9, 0))
    message = str(info.value)
    assert "NVRTC could not compile broken.cu for compute_90" in message
    assert "undefined_name" in message and "broken.cu" in message


def test_warnings_in_the_log_are_reported():
    src = 'extern "C" __device__ int warn(int* r) { int unused_variable_xyz; *r = 1; return 0; }\n'
    with pytest.warns(NvrtcWarning):
        # 177: "variable declared but never referenced", raised to a warning explicitly.
        compile_source(src, (9, 0), options=["--diag-warn=177"])


def test_results_are_memoised(cu):
    first = compile_source(cu.addone, (9, 0))
    assert compile_source(cu.addone, (9, 0)) is first
    assert compile_source(cu.addone, (8, 0)) is not first


def test_bad_arguments():
    with pytest.raises(ValueError, match="output must be"):
        compile_source("", (9, 0), output="sass")
    with pytest.raises(ValueError, match="cc must be"):
        compile_source("", "sm_90")


def test_nvrtc_version_matches_the_toolkit_major():
    from numba_cuda.toolkit import get_toolkit

    assert nvrtc_module.nvrtc_version()[0] == get_toolkit().cuda_major


def test_nvidias_compile_gives_the_code_and_the_log(cu):
    from numba.cuda.cudadrv.nvrtc import compile

    ptx, log = compile(cu.addone, "addone.cu", (9, 0))
    assert ".target sm_90" in ptx.code.decode() and ptx.code == ptx.data
    assert log == ""
    ltoir, _ = compile(cu.addone, "addone.cu", (9, 0), ltoir=True)
    assert detect_kind("x", ltoir.code) == "ltoir"
    src = 'extern "C" __device__ int w(int* r) { int unused_var_q; *r = 1; return 0; }\n'
    with pytest.warns(NvrtcWarning):
        _, log = compile(src, "w.cu", (9, 0))
    assert "unused_var_q" in log and not log.startswith("NVRTC compiled")


def test_an_architecture_suffix_is_passed_to_nvrtc(cu):
    ptx = compile_source(cu.addone, (9, 0, "a"))
    assert ".target sm_90a" in ptx.data.decode()
    with pytest.raises(ValueError, match="suffix must be 'a' or 'f'"):
        compile_source(cu.addone, (9, 0, "b"))

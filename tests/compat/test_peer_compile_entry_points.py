"""NVIDIA's lower-level compile path, as nvmath-python uses it for its FFT prolog and epilog
callbacks: ``numba.cuda.cudadrv.nvrtc.get_arch_option``, ``numba.cuda.compiler.compile_cuda``
(keyword options), ``numba.cuda.compiler.cabi_wrap_function``, the library's ``llvm_strs`` and
``numba.cuda.cudadrv.nvvm.compile_ir`` with Numba's keyword options (``**{"gen-lto": None}``)."""

import json

import pytest

from numba_cuda.compiler import nvvm
from tests.support.subprocesses import run_python

# The sequence of calls of such a library, written out: imports as it makes them (attribute
# access through ``numba.cuda`` after ``import numba.cuda``), in a fresh interpreter.
CODE = """
import json
import numba
import numba.cuda
from numba import types

def load(data_in, offset, user_info, unused):
    return data_in[offset] * 2.0 + user_info[0]

nvrtc, nvvm = numba.cuda.cudadrv.nvrtc, numba.cuda.cudadrv.nvvm
get_arch_option = nvrtc.get_arch_option if hasattr(nvrtc, "get_arch_option") else None
out = {"arch": get_arch_option(8, 0), "closest": nvrtc.find_closest_arch((8, 9))}
options = {"opt": 3, "arch": out["arch"]}
f32p = types.CPointer(types.float32)
args = (f32p, types.uint64, f32p, types.CPointer(types.void))
results = {}
for representation in ("ptx", "ltoir"):
    nvvm_options = dict(options)
    if representation == "ltoir":
        nvvm_options["gen-lto"] = None
    with numba.core.compiler_lock.global_compiler_lock:
        cres = numba.cuda.compiler.compile_cuda(load, types.float32, args, debug=False,
                                                lineinfo=False, nvvm_options=nvvm_options,
                                                cc=(8, 0))
        lib = numba.cuda.compiler.cabi_wrap_function(cres.target_context, cres.library,
                                                     cres.fndesc, "my_load", nvvm_options)
        code = nvvm.compile_ir(lib.llvm_strs, **nvvm_options)
    results[representation] = code
out["ptx_is_bytes"] = isinstance(results["ptx"], bytes)
ptx = results["ptx"].decode()
out["exports_my_load"] = ".visible .func  (.param .b32 func_retval0) my_load(" in ptx
out["ptx_target"] = [line for line in ptx.splitlines() if line.startswith(".target")]
out["ltoir_magic"] = results["ltoir"][:4].hex()
print(json.dumps(out))
"""


def test_nvmath_style_callback_compile():
    proc = run_python(CODE, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["arch"] == "compute_80"
    assert out["closest"] == [8, 9]
    assert out["ptx_is_bytes"] and out["exports_my_load"], out
    assert out["ptx_target"] == [".target sm_80"]
    assert out["ltoir_magic"] == "ed434e7f"  # LTO-IR (0x7F4E43ED, little-endian)


def test_keyword_options_are_written_as_nvidias():
    assert nvvm.option_strings({"opt": 3, "gen-lto": None, "prec_div": False, "ftz": True}) == [
        "-opt=3", "-gen-lto", "-prec-div=0", "-ftz=1"]
    assert nvvm.option_strings({"fastmath": True}) == [
        "-ftz=1", "-fma=1", "-prec-div=0", "-prec-sqrt=0"]


def test_arch_option_of_an_unsupported_cc_names_the_supported_ones():
    from numba.cuda.cudadrv import nvvm as compat_nvvm

    from numba_cuda.compiler.capability import UnsupportedCCError

    with pytest.raises(UnsupportedCCError, match="is not supported"):
        compat_nvvm.get_arch_option(1, 0)
    with pytest.raises(ValueError, match="arch-specific"):
        compat_nvvm.get_arch_option(9, 9, "a")  # no libNVVM knows 9.9: the closest is older


def test_compile_cuda_refuses_the_c_abi_naming_the_wrapper():
    from numba import types
    from numba.cuda import compiler

    with pytest.raises(ValueError, match="cabi_wrap_function"):
        compiler.compile_cuda(lambda x: x, types.int32, (types.int32,), abi="c")


def test_nvrtc_module_has_nvidias_version_and_arch_helpers():
    from numba.cuda.cudadrv import nvrtc

    from numba_cuda.linking.nvrtc import nvrtc_version

    assert nvrtc._get_nvrtc_version() == tuple(nvrtc_version())
    assert nvrtc.get_arch_option(9, 0, "a") == "compute_90a"
    assert nvrtc.find_closest_arch((9, 0)) == (9, 0)


def test_pipeline_classes_under_nvidias_names():
    from numba.core.compiler import CompilerBase
    from numba.cuda import compiler

    from numba_cuda.compiler import pipeline

    assert compiler.CUDACompiler is pipeline.CUDACompiler
    assert issubclass(compiler.CUDACompiler, CompilerBase)
    assert compiler.CUDABackend is pipeline.CUDABackend
    assert compiler.CUDANativeLowering is pipeline.CUDANativeLowering

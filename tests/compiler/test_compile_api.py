"""compile / compile_ptx / jit / dispatcher behaviour up to PTX."""

import io
import re

import numpy as np
import pytest
from numba import float32, float64, int32, int64, njit, types, void
from numba.core.errors import TypingError

CC = (8, 0)


def axpy(out, a, x, y):
    i = 0
    while i < out.size:
        out[i] = a * x[i] + y[i]
        i += 1


AXPY_SIG = void(float32[::1], float32, float32[::1], float32[::1])


def add(x, y):
    return x + y


def test_compile_ptx_kernel_returns_ptx_and_none(cuda):
    ptx, resty = cuda.compile_ptx(axpy, AXPY_SIG, cc=CC)
    assert resty == types.none
    assert ".target sm_80" in ptx
    assert re.search(r"^\.visible \.entry _ZN6cudapy", ptx, re.M)
    assert ".address_size 64" in ptx


def test_compile_ptx_device_function_numba_abi(cuda):
    ptx, resty = cuda.compile_ptx(add, (int32, int32), device=True, cc=CC)
    assert resty == types.int64
    assert ".visible .func" in ptx
    assert ".entry" not in ptx


def test_compile_c_abi_uses_the_requested_name(cuda):
    ptx, resty = cuda.compile(add, float32(float32, float32), device=True, abi="c",
                              abi_info={"abi_name": "my_add"}, cc=CC)
    assert resty == float32
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\)\s+my_add\(", ptx)


def test_c_abi_name_of_a_lambda_is_escaped_and_a_bad_one_refused(cuda):
    # (the Python name "<lambda>" is no symbol: libNVVM said "Symbol name with unsupported
    # characters"; it is escaped as Numba's mangler escapes names)
    ptx, _ = cuda.compile_ptx(lambda x: x, int32(int32), device=True, abi="c", cc=CC)
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\)\s+_3clambda_3e\(", ptx)
    assert "NumbaEnv" not in ptx
    with pytest.raises(ValueError, match=r"abi_name'\] must be a C identifier.*'my add'"):
        cuda.compile(add, float32(float32, float32), device=True, abi="c",
                     abi_info={"abi_name": "my add"}, cc=CC)


def test_compile_rejects_c_abi_for_kernels_and_bad_output(cuda):
    with pytest.raises(ValueError, match="abi='c'"):
        cuda.compile(axpy, AXPY_SIG, device=False, abi="c")
    with pytest.raises(ValueError, match="output"):
        cuda.compile(add, (int32, int32), output="cubin")


def test_compile_ltoir(cuda):
    code, resty = cuda.compile(add, (int32, int32), device=True, output="ltoir", cc=CC)
    assert isinstance(code, bytes) and len(code) > 100
    assert resty == types.int64


def test_default_cc_is_lowest_nvvm_accepts(cuda, cuda_major):
    ptx, _ = cuda.compile_ptx(axpy, AXPY_SIG)
    expected = "sm_50" if cuda_major == 12 else "sm_75"
    assert f".target {expected}" in ptx
    from numba_cuda.compiler import capability

    assert capability.resolve_cc(None) == ((5, 0) if cuda_major == 12 else (7, 5))


def test_ir_is_typed_pointer_nvvm_ir(cuda):
    from numba_cuda.compiler import nvvm, nvvmir

    kernel = cuda.jit(AXPY_SIG)(axpy)
    llvm = kernel.inspect_llvm(AXPY_SIG.args)
    assert f'target datalayout = "{nvvmir.DATA_LAYOUT}"' in llvm
    assert 'target triple = "nvptx64-nvidia-cuda"' in llvm
    version = ", ".join(f"i32 {v}" for v in nvvm.ir_version())
    assert f"!{{ {version} }}" in llvm
    assert '!"kernel", i32 1' in llvm
    assert " ptr " not in llvm and "ptr)" not in llvm  # typed pointers only
    assert "float*" in llvm


def test_jit_forms_and_overloads(cuda):
    lazy = cuda.jit(axpy)
    assert lazy.signatures == []
    eager = cuda.jit("void(float32[::1], float32, float32[::1], float32[::1])")(axpy)
    assert len(eager.signatures) == 1
    multi = cuda.jit([void(int32[::1]), void(float64[::1])])(lambda a: None)
    assert len(multi.overloads) == 2
    dev = cuda.jit("int64(int64, int64)", device=True)(add)
    assert dev.signatures == [(int64, int64)]

    @cuda.jit(fastmath=True, max_registers=32)
    def options_kernel(a):
        a[0] = 1

    assert options_kernel.options.fastmath and options_kernel.options.max_registers == 32


def test_unknown_jit_option_is_reported(cuda):
    with pytest.raises(TypeError, match="unknown @cuda.jit options: bogus"):
        cuda.jit(bogus=True)


def test_compiled_kernel_attributes_and_caches(cuda):
    kernel = cuda.jit(AXPY_SIG, lineinfo=True)(axpy)
    compiled = kernel.overloads[AXPY_SIG.args]
    assert kernel.compile(AXPY_SIG) is compiled  # in-memory cache per signature
    image = compiled.image(CC)
    assert compiled.image(CC) is image  # ... and per compute capability
    assert image.cc == CC
    assert f".entry {image.entry_name}(" in image.ptx
    assert image.argtypes == AXPY_SIG.args
    assert image.link_files == () and image.cooperative is False
    assert image.lineinfo is True and image.debug is False and image.max_registers is None
    assert compiled.image((9, 0)).ptx != image.ptx


def test_inspection(cuda):
    kernel = cuda.jit(AXPY_SIG)(axpy)
    assert ".entry" in kernel.inspect_asm(AXPY_SIG.args, cc=CC)
    assert list(kernel.inspect_llvm()) == [AXPY_SIG.args]
    out = io.StringIO()
    kernel.inspect_types(file=out)
    assert "axpy" in out.getvalue() and "float32" in out.getvalue()


def test_fastmath_and_max_registers_reach_the_ptx(cuda):
    def div(a, b):
        a[0] = a[0] / b

    precise, _ = cuda.compile_ptx(div, (float32[::1], float32), cc=CC)
    fast, _ = cuda.compile_ptx(div, (float32[::1], float32), cc=CC, fastmath=True)
    assert "div.rn.f32" in precise
    # Numba's CUDA target divides with __nv_fast_fdividef under fastmath (div.full is not it)
    assert "div.approx.ftz.f32" in fast and "div.full" not in fast
    kernel = cuda.jit((float32[::1], float32), max_registers=40)(div)
    assert ".maxnreg 40" in kernel.inspect_asm((float32[::1], float32), cc=CC)


def _div(a, b):
    a[0] = a[0] / b
    a[1] /= b


@pytest.mark.parametrize("value, fast", [
    (True, True), (False, False), (None, False), ({"fast"}, True), ({"nnan", "ninf"}, True),
    (frozenset({"arcp"}), True), (["contract"], True), ({"nnan": True}, True),
    ({"nnan": False}, False), (set(), False), ({}, False),
])
def test_fastmath_accepts_numba_flag_sets(cuda, value, fast):
    ptx, _ = cuda.compile_ptx(_div, (float32[::1], float32), cc=CC, fastmath=value)
    assert ptx.count("div.approx.ftz.f32") == (2 if fast else 0), value
    assert ptx.count("div.rn.f32") == (0 if fast else 2), value


@pytest.mark.parametrize("value, named", [
    ({"warp_drive"}, "warp_drive"), ({"nnan": True, "fasst": True}, "fasst"), ("fast", "'fast'"),
    (2, "2"), (1.0, "1.0"), ({"nnan", 3}, "3"),
])
def test_fastmath_refuses_anything_else_naming_it(cuda, value, named):
    with pytest.raises(ValueError, match=r"fastmath") as info:
        cuda.compile_ptx(_div, (float32[::1], float32), cc=CC, fastmath=value)
    assert named in str(info.value)
    with pytest.raises(ValueError, match=r"fastmath"):
        cuda.jit(fastmath=value)(_div)


def test_fastmath_tanh_is_the_approximate_instruction_from_sm75(cuda):
    import math

    from numba_cuda.compiler import capability

    def k(a):
        a[0] = math.tanh(a[0])

    for cc in capability.supported_ccs():
        fast, _ = cuda.compile_ptx(k, (float32[::1],), cc=cc, fastmath=True)
        precise, _ = cuda.compile_ptx(k, (float32[::1],), cc=cc)
        assert ("tanh.approx.f32" in fast) == (cc >= (7, 5)), cc
        assert "tanh.approx.f32" not in precise, cc


def test_fastmath_flags_are_a_stable_part_of_the_options(cuda):
    # the cache key holds repr(options): it must not depend on set ordering
    from numba_cuda.compiler.pipeline import CompileOptions

    a = CompileOptions.from_user(fastmath={"nsz", "arcp", "nnan"})
    b = CompileOptions.from_user(fastmath=["nnan", "nsz", "arcp"])
    assert a == b and repr(a) == repr(b) and a.fastmath == ("arcp", "nnan", "nsz")


def test_lineinfo_and_debug_emit_line_tables(cuda):
    for options in ({"lineinfo": True}, {"debug": True}):
        ptx, _ = cuda.compile_ptx(axpy, AXPY_SIG, cc=CC, **options)
        assert ".loc" in ptx and ".file" in ptx, options
    plain, _ = cuda.compile_ptx(axpy, AXPY_SIG, cc=CC)
    assert ".loc" not in plain


def test_specialize_and_forall_configuration(cuda):
    @cuda.jit
    def fill(a):
        a[0] = 1

    spec = fill.specialize(np.zeros(4, dtype=np.int64))
    assert spec.specialized and len(spec.signatures) == 1
    assert fill.forall(1000).tpb > 0


def test_launch_configuration_is_validated(cuda):
    from numba_cuda.errors import LaunchConfigError

    @cuda.jit
    def k(a):
        a[0] = 1

    config = k[(2, 3), 64]
    assert config.griddim == (2, 3, 1) and config.blockdim == (64, 1, 1)
    assert k[1, 1, 0, 128].sharedmem == 128
    for bad in ((0, 32), (1, (1, 2, 3, 4)), (1, -1), (1, "x")):
        with pytest.raises(LaunchConfigError):
            k[bad]
    with pytest.raises(LaunchConfigError):
        k[1]
    with pytest.raises(TypeError, match="launch it with a configuration"):
        k(np.zeros(1))


def test_device_function_cannot_be_called_or_launched_from_host(cuda):
    dev = cuda.jit(device=True)(add)
    with pytest.raises(TypeError, match="device function"):
        dev(1, 2)
    with pytest.raises(TypeError, match="cannot be launched"):
        dev[1, 1]


def test_njit_function_called_from_kernel(cuda):
    @njit
    def triple(x):
        return 3 * x

    def k(a):
        a[0] = triple(a[0])

    ptx, _ = cuda.compile_ptx(k, (int64[::1],), cc=CC)
    assert "mul.lo.s64" in ptx or "mad.lo.s64" in ptx or "shl.b64" in ptx


def test_declare_device_calls_external_symbol_and_carries_link_files(cuda, tmp_path):
    ext = cuda.declare_device("ext_scale", "float32(float32)", link=[str(tmp_path / "ext.cu")])

    def k(a):
        a[0] = ext(a[0])

    ptx, _ = cuda.compile_ptx(k, (float32[::1],), cc=CC)
    assert ".extern .func" in ptx and "ext_scale" in ptx
    kernel = cuda.jit((float32[::1],))(k)
    assert kernel.overloads[(float32[::1],)].link_files == [str(tmp_path / "ext.cu")]


def test_target_overload_and_intrinsic_extensions(cuda):
    from llvmlite import ir
    from numba.extending import intrinsic, overload

    def host_only(x):
        raise NotImplementedError

    @overload(host_only, target="cuda")
    def _ol_host_only(x):
        return lambda x: x * 7

    @intrinsic(target="cuda")
    def add_one(typingctx, x):
        def codegen(context, builder, sig, args):
            return builder.add(args[0], ir.Constant(args[0].type, 1))

        return x(x), codegen

    def k(a):
        a[0] = host_only(a[0]) + add_one(a[1])

    ptx, _ = cuda.compile_ptx(k, (int64[::1],), cc=CC)
    assert ".entry" in ptx


def test_generic_overload_still_available(cuda):
    def k(a):
        a[0] = max(a[1], a[2]) + min(a[1], 3)

    ptx, _ = cuda.compile_ptx(k, (int64[::1],), cc=CC)
    assert "max.s64" in ptx or "selp" in ptx or "setp" in ptx


def test_cuda_jit_typing_errors_name_the_file_and_line(cuda):
    def k(a):
        a[0] = undefined_name  # noqa: F821

    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(k, (int64[::1],), cc=CC)
    assert "test_compile_api.py" in str(info.value)
    assert "undefined_name" in str(info.value)


def test_kernel_attribute_getters_read_the_runtime_attribute_names(cuda, monkeypatch):
    """The dispatcher's get_* methods and runtime.launch.kernel_attributes agree on names
    (checked without a GPU: the runtime side is replaced by a fake answering exactly
    KERNEL_ATTRIBUTE_NAMES)."""
    from types import SimpleNamespace

    from numba_cuda.runtime import api as runtime_api
    from numba_cuda.runtime import launch

    fake = {name: i + 1 for i, name in enumerate(launch.KERNEL_ATTRIBUTE_NAMES)}
    monkeypatch.setattr(launch, "kernel_attributes", lambda image, context=None: dict(fake))
    monkeypatch.setattr(runtime_api, "get_current_device",
                        lambda: SimpleNamespace(compute_capability=(8, 0)))

    @cuda.jit("void(float32[::1])")
    def k(a):
        a[0] = 1

    assert k.get_regs_per_thread(signature=k.signatures[0]) == fake["regs"]
    assert k.get_shared_mem_per_block(signature=k.signatures[0]) == fake["shared"]
    assert k.get_local_mem_per_thread(signature=k.signatures[0]) == fake["local"]
    assert k.get_const_mem_size(signature=k.signatures[0]) == fake["const"]
    assert k.get_max_threads_per_block(signature=k.signatures[0]) == fake["max_threads"]


def test_laneid_and_warpsize_imported_by_name_read_the_special_registers(cuda):
    from numba import int32

    from numba.cuda import laneid, warpsize

    def k(a):
        a[0] = laneid
        a[1] = warpsize

    ptx, _ = cuda.compile_ptx(k, (int32[::1],), cc=(8, 0))
    assert "%laneid" in ptx and "WARP_SZ" in ptx


@pytest.mark.parametrize("cc", [(7, 5), (9, 0), (10, 0)])
def test_debug_kernel_using_every_dim3_object(cuda, cc):
    """Debug info describes every variable, so cuda.threadIdx and friends need a data model."""
    from numba import float64

    def k(a):
        a[cuda.threadIdx.x] = cuda.blockIdx.y + cuda.blockDim.z + cuda.gridDim.x

    ptx, _ = cuda.compile_ptx(k, (float64[:],), debug=True, opt=False, cc=cc)
    assert "%tid.x" in ptx and "%ctaid.y" in ptx and ".debug_info" in ptx


@pytest.mark.parametrize("option, value", [
    ("debug", "no"), ("lineinfo", "yes"), ("opt", "fast"), ("boundscheck", [1]), ("lto", 0.5),
    ("cache", "true"), ("inline", "sometimes"), ("max_registers", True), ("max_registers", 0),
])
def test_on_off_options_refuse_values_that_only_look_true(cuda, option, value):
    # like fastmath, any truthy value used to switch these on
    with pytest.raises(ValueError, match=option):
        cuda.jit(**{option: value})(_div)


@pytest.mark.parametrize("option, value", [
    ("debug", 0), ("opt", 3), ("lineinfo", 1), ("boundscheck", None), ("inline", "always"),
    ("inline", True), ("cache", False),
])
def test_on_off_options_accept_bools_ints_and_none(cuda, option, value):
    cuda.jit(**{option: value})(_div)


def test_compile_all_returns_the_code_and_the_code_of_the_linked_files(tmp_path):
    """cuda.compile_all (NVIDIA's): the function's code first, then every linked file's -- CUDA
    C/C++ compiled by NVRTC to the same output, other files as code objects."""
    from numba import cuda, int32

    from numba_cuda.errors import UnsupportedCompileOption
    from numba_cuda.linking import LTOIR, PTXSource, CUSource
    from tests.support.ptx_helpers import assemble

    src = 'extern "C" __device__ int twice(int* r, int x) { *r = 2 * x; return 0; }'
    ptx_file = tmp_path / "three.ptx"
    def times3(x):
        return x * 3

    ptx_file.write_text(cuda.compile_ptx(times3, (int32,), device=True, cc=(7, 5), abi="c",
                                         abi_info={"abi_name": "thrice"})[0])
    twice = cuda.declare_device("twice", "int32(int32)", link=[CUSource(src)])
    thrice = cuda.declare_device("thrice_numba", "int32(int32)", link=[str(ptx_file)])

    def f(x):
        return twice(x) + thrice(x)

    codes, resty = cuda.compile_all(f, (int32,), device=True, cc=(7, 5))
    assert resty == int64 and isinstance(codes[0], bytes) and len(codes) == 3
    assert isinstance(codes[1], LTOIR) and isinstance(codes[2], PTXSource)
    assert codes[2].name == str(ptx_file)
    codes, _ = cuda.compile_all(f, (int32,), device=True, cc=(7, 5), output="ptx")
    assert isinstance(codes[0], str) and ".visible .func" in codes[0]
    assert isinstance(codes[1], PTXSource) and b"twice" in codes[1].data
    assemble(codes[1].data.decode(), (7, 5))
    plain, _ = cuda.compile_all(times3, (int32,), device=True, cc=(7, 5), output="ptx")
    assert len(plain) == 1
    with pytest.raises(UnsupportedCompileOption, match="Unsupported output type: cubin"):
        cuda.compile_all(f, (int32,), output="cubin")
    with pytest.raises(ValueError, match="forceinline=True needs output='ltoir'"):
        cuda.compile_all(f, (int32,), output="ptx", forceinline=True)


def test_for_current_device_from_the_compiler_package_use_the_device_query(cuda, monkeypatch):
    # numba.cuda.compiler (NVIDIA's path) offers them; they are the dispatch layer's, which asks
    # the current device (the compiler itself knows no device)
    from numba.cuda.compiler import compile_for_current_device, compile_ptx_for_current_device

    from numba_cuda.dispatch import api

    assert compile_ptx_for_current_device is cuda.compile_ptx_for_current_device
    assert compile_for_current_device is api.compile_for_current_device
    monkeypatch.setattr(api, "current_device_cc", lambda: (8, 6))
    ptx, _ = compile_ptx_for_current_device(axpy, AXPY_SIG)
    assert ".target sm_86" in ptx
    code, _ = compile_for_current_device(add, (int32, int32))
    assert ".target sm_86" in code
    monkeypatch.setattr(api, "current_device_cc", lambda: None)
    with pytest.raises(Exception, match="no CUDA device is available"):
        compile_ptx_for_current_device(axpy, AXPY_SIG)

"""Python kernels calling external CUDA C/C++ (``cuda.jit(link=...)``, ``cuda.declare_device``),
linked by nvJitLink offline into cubins -- the path the runtime takes at load time."""

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import cuda, float32, int32

from numba_cuda.errors import LinkerError
from numba_cuda.linking import (
    LTOIR,
    CUSource,
    Linker,
    PTXSource,
    compile_source,
    cubin_arch,
)


def _runtime_link(ptx, cc, link_files):
    """The runtime's own load-time link step (nvJitLink, no driver)."""
    from numba_cuda.runtime.launch import link_cubin

    return link_cubin(ptx, f"sm_{cc[0]}{cc[1]}", link_files)


@pytest.fixture
def addone_cu(tmp_path, cu):
    path = tmp_path / "addone.cu"
    path.write_text(cu.addone)
    return str(path)


def test_jit_link_cu_file(addone_cu, cc):
    addone = cuda.declare_device("addone", int32(int32))

    @cuda.jit(link=[addone_cu])
    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = addone(a[i])

    compiled = kernel.compile((int32[::1],))
    assert compiled.link_files == [addone_cu]
    ptx = compiled.get_ptx(cc)
    assert re.search(r"\.extern \.func .*addone", ptx)  # declared, defined by the .cu
    cubin = _runtime_link(ptx, cc, compiled.link_files)
    assert cubin_arch(cubin) == cc


def test_declare_device_link_and_half_header(tmp_path, cu, cc):
    path = tmp_path / "half.cu"
    path.write_text(cu.half)
    mul_half = cuda.declare_device("mul_half", float32(float32, float32), link=str(path))

    @cuda.jit
    def kernel(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = mul_half(x[i], y[i])

    compiled = kernel.compile((float32[::1], float32[::1], float32[::1]))
    assert compiled.link_files == [str(path)]
    cubin = _runtime_link(compiled.get_ptx(cc), cc, compiled.link_files)
    assert cubin_arch(cubin) == cc


def test_link_in_memory_code_objects(cu, cc):
    # link= also takes code objects: a PTX text and a cubin made elsewhere.
    helper_ptx = compile_source(cu.addone, cc, output="ptx")
    addone = cuda.declare_device("addone", int32(int32), link=[helper_ptx])

    @cuda.jit
    def kernel(a):
        a[0] = addone(a[0])

    compiled = kernel.compile((int32[::1],))
    assert compiled.link_files == [helper_ptx]
    assert cubin_arch(_runtime_link(compiled.get_ptx(cc), cc, compiled.link_files)) == cc
    helper_cubin = compile_source(cu.addone, cc, output="cubin")
    assert cubin_arch(_runtime_link(compiled.get_ptx(cc), cc, [helper_cubin])) == cc


def test_missing_definition_is_a_linker_error():
    nowhere = cuda.declare_device("not_defined_anywhere", int32(int32))

    @cuda.jit
    def kernel(a):
        a[0] = nowhere(a[0])

    ptx = kernel.compile((int32[::1],)).get_ptx((9, 0))
    with pytest.raises(LinkerError, match="not_defined_anywhere"):
        _runtime_link(ptx, (9, 0), [])


def test_broken_cu_file_is_a_linker_error_with_the_nvrtc_log(tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __device__ int addone(int* r, int x) { *r = x + ; return 0; }\n')
    addone = cuda.declare_device("addone", int32(int32), link=str(bad))

    @cuda.jit
    def kernel(a):
        a[0] = addone(a[0])

    compiled = kernel.compile((int32[::1],))
    with pytest.raises(LinkerError, match=r"(?s)NVRTC could not compile .*bad\.cu.*expected an expression"):
        _runtime_link(compiled.get_ptx((9, 0)), (9, 0), compiled.link_files)


def test_compile_ltoir_links_with_cu_ltoir_under_lto(cu, cc):
    addone = cuda.declare_device("addone", int32(int32))

    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = addone(a[i])

    ltoir, _ = cuda.compile(kernel, (int32[::1],), device=False, abi="numba", cc=cc, output="ltoir")
    assert ltoir[:4] == (0x7F4E43ED).to_bytes(4, "little")
    helper = compile_source(cu.addone, cc, output="ltoir")
    linker = Linker(cc, lto=True).add(LTOIR(ltoir, name="kernel.ltoir")).add(helper)
    assert cubin_arch(linker.link()) == cc
    # Link-time optimisation inlines the C function into the Python kernel: no call is left.
    ptx = Linker(cc, lto=True).add(LTOIR(ltoir, name="kernel.ltoir")).add(helper).link_ptx()
    assert ".entry" in ptx
    assert not re.findall(r"^\s*call", ptx, re.MULTILINE)
    # ...and a .cu source given as such is compiled to LTO-IR automatically under lto=True.
    assert cubin_arch(Linker(cc, lto=True).add(LTOIR(ltoir)).add(CUSource(cu.addone)).link()) == cc


def test_python_device_function_called_from_cuda_c_with_lto(cu):
    # The other direction: a Python device function compiled with the C ABI, called from C.
    def py_triple(x):
        return x * 3

    ltoir, _ = cuda.compile(py_triple, int32(int32), device=True, abi="c",
                            abi_info={"abi_name": "py_triple"}, cc=(9, 0), output="ltoir")
    caller = compile_source(CUSource(
        'extern "C" __device__ int py_triple(int);\n'
        'extern "C" __global__ void use(int* a) { a[threadIdx.x] = py_triple(a[threadIdx.x]); }\n',
        name="use.cu"), (9, 0), output="ltoir")
    linker = Linker((9, 0), lto=True).add(caller).add(LTOIR(ltoir, name="py_triple.ltoir"))
    ptx = linker.link_ptx()
    assert ".entry use" in ptx and not re.findall(r"^\s*call", ptx, re.MULTILINE)


def test_kernel_ptx_is_a_linkable_ptx_input(addone_cu):
    addone = cuda.declare_device("addone", int32(int32))

    @cuda.jit(link=[addone_cu])
    def kernel(a):
        a[0] = addone(a[0])

    compiled = kernel.compile((int32[::1],))
    linker = Linker((8, 0)).add(PTXSource(compiled.get_ptx((8, 0)), name="kernel.ptx"))
    for item in compiled.link_files:
        linker.add(item)
    result = linker.link_result()
    assert cubin_arch(result.cubin) == (8, 0)


@pytest.mark.gpu
def test_linked_kernel_runs_on_the_gpu(tmp_path, cu):
    path = tmp_path / "addone.cu"
    path.write_text(cu.addone)
    code = f"""
        import numpy as np
        from numba import cuda, int32
        addone = cuda.declare_device("addone", int32(int32), link={str(path)!r})

        @cuda.jit
        def kernel(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = addone(a[i])

        a = np.arange(64, dtype=np.int32)
        kernel[2, 32](a)
        assert (a == np.arange(1, 65)).all(), a
        print("ok")
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-2000:]

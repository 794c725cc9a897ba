"""External CUDA C/C++ calling the device NRT: code linked with ``nrt=True`` (NVIDIA's
``LinkableCode(..., nrt=True)``) gets the NRT linked into the kernel, its functions visible,
so nvJitLink resolves the calls -- offline, the runtime's own load-time link step."""

import re

import pytest
from numba import cuda, int32

from numba_cuda.errors import LinkerError
from numba_cuda.linking import PTXSource, cubin_arch
from numba_cuda.linking.nvrtc import compile as nvrtc_compile

ROUNDTRIP_CU = r'''
#include <nrt.cuh>
extern "C" __device__ int nrt_roundtrip(int* result, int n)
{
    void* p = NRT_Allocate(n);
    *result = p != 0;
    NRT_Free(p);
    return 0;
}
'''


def _runtime_link(ptx, cc, link_files):
    from numba_cuda.runtime.launch import link_cubin

    return link_cubin(ptx, f"sm_{cc[0]}{cc[1]}", link_files)


@pytest.mark.parametrize("nrt", [True, False])
def test_linked_code_calling_the_nrt(cc, nrt):
    from numba.cuda.memory_management.nrt import get_include

    source = ROUNDTRIP_CU.replace("<nrt.cuh>", f"<{get_include()}/nrt.cuh>")  # as NVIDIA's tests
    ptx, log = nvrtc_compile(source, "roundtrip.cu", cc)
    assert log == "" and b"NRT_Allocate" in ptx.code
    helper = PTXSource(ptx.code, nrt=nrt)
    roundtrip = cuda.declare_device("nrt_roundtrip", int32(int32), link=[helper])

    @cuda.jit
    def kernel(a):
        a[0] = roundtrip(a[0])

    compiled = kernel.compile((int32[::1],))
    kernel_ptx = compiled.get_ptx(cc)
    if nrt:
        assert re.search(r"\.visible \.func\s+\(\.param \.b64 func_retval0\) NRT_Allocate\(", kernel_ptx)
        assert compiled.nrt_global == "numba_cuda_nrt_memsys"
        assert cubin_arch(_runtime_link(kernel_ptx, cc, compiled.link_files)) == cc
    else:
        assert "NRT_Allocate" not in kernel_ptx and compiled.nrt_global is None
        with pytest.raises(LinkerError, match="NRT_Allocate"):
            _runtime_link(kernel_ptx, cc, compiled.link_files)


MEMINFO_INIT_CU = r'''
#include <nrt.cuh>
extern "C" __device__ int meminfo_in_place(int* result, int n)
{
    // a meminfo placed in memory of one's own, as cuDF's string UDFs do
    NRT_MemInfo* mi = (NRT_MemInfo*)NRT_Allocate(sizeof(NRT_MemInfo) + n);
    NRT_MemInfo_init(mi, (char*)mi + sizeof(NRT_MemInfo), n, 0, 0);
    *result = (int)mi->refct + (int)mi->size;
    NRT_decref(mi);
    return 0;
}
'''


def test_linked_code_initialising_a_meminfo_in_place(cc):
    from numba.cuda.memory_management.nrt import get_include

    source = MEMINFO_INIT_CU.replace("<nrt.cuh>", f"<{get_include()}/nrt.cuh>")
    ptx, log = nvrtc_compile(source, "meminfo_init.cu", cc)
    assert log == "" and b"NRT_MemInfo_init" in ptx.code
    in_place = cuda.declare_device("meminfo_in_place", int32(int32),
                                   link=[PTXSource(ptx.code, nrt=True)])

    @cuda.jit
    def kernel(a):
        a[0] = in_place(a[0])

    compiled = kernel.compile((int32[::1],))
    kernel_ptx = compiled.get_ptx(cc)
    assert re.search(r"\.visible \.func NRT_MemInfo_init\(", kernel_ptx)
    assert cubin_arch(_runtime_link(kernel_ptx, cc, compiled.link_files)) == cc

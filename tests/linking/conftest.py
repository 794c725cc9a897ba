"""Fixtures for the linking tests: CUDA C sources and the toolkit's command-line tools."""

import os
import shutil

import pytest

#: A device function with C linkage, as a user's .cu file would hold it.
ADDONE_CU = r'''
extern "C" __device__ int addone(int* result, int x)
{
    *result = x + 1;
    return 0;
}
'''

#: Uses the half-precision header that discovery's include folder provides.
HALF_CU = r'''
#include <cuda_fp16.h>
extern "C" __device__ int mul_half(float* result, float a, float b)
{
    *result = __half2float(__hmul(__float2half(a), __float2half(b)));
    return 0;
}
'''

#: A kernel written in CUDA C that calls addone() from another translation unit.
CALLER_CU = r'''
extern "C" __device__ int addone(int* result, int x);
extern "C" __global__ void caller(int* a)
{
    int r;
    addone(&r, a[threadIdx.x]);
    a[threadIdx.x] = r;
}
'''

ARCHES = [(7, 5), (8, 0), (9, 0)]


def find_cuda_tool(name):
    """Path of a CUDA command-line tool (nvcc, fatbinary): the discovered toolkit's bin folder,
    then /usr/local/cuda/bin, then PATH; None if absent."""
    from numba_cuda.toolkit import ptxas_path

    places = []
    ptxas = ptxas_path()
    if ptxas:
        places.append(os.path.dirname(ptxas))
    places.append("/usr/local/cuda/bin")
    for folder in places:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


@pytest.fixture
def cuda_tool():
    def get(name):
        path = find_cuda_tool(name)
        if path is None:
            pytest.skip(f"the CUDA tool {name!r} is not installed (looked next to ptxas, "
                        "in /usr/local/cuda/bin and on PATH)")
        return path

    return get


@pytest.fixture
def cu():
    """The CUDA C sources above, as attributes: cu.addone, cu.half, cu.caller."""
    from types import SimpleNamespace

    return SimpleNamespace(addone=ADDONE_CU, half=HALF_CU, caller=CALLER_CU)


@pytest.fixture(params=ARCHES, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def cc(request):
    return request.param

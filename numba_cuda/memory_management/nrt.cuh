/*
 * numba-cuda's device NRT, for CUDA C/C++ linked into kernels with nrt=True
 * (cuda.jit(link=[CUSource(..., nrt=True)]) ...): the functions the kernels'
 * NVVM IR defines (numba_cuda/compiler/nrt.py), made visible to the linked code.
 *
 *   #include <nrt.cuh>      (folder: numba.cuda.memory_management.nrt.get_include())
 */
#pragma once

/* size_t: NVRTC and nvcc define it for device code without an include. */

typedef void (*NRT_dtor_function)(void *data, size_t size, void *info);

/* A reference-counted block: Numba's layout.  Change refct through NRT_incref/NRT_decref
 * only (they use device-scope atomics). */
typedef struct NRT_MemInfo {
    size_t refct;
    NRT_dtor_function dtor;
    void *dtor_info;
    void *data;
    size_t size;
    void *external_allocator;
} NRT_MemInfo;

extern "C" {
__device__ void *NRT_Allocate(size_t size);
__device__ void NRT_Free(void *ptr);
__device__ void NRT_MemInfo_init(NRT_MemInfo *mi, void *data, size_t size,
                                 NRT_dtor_function dtor, void *dtor_info);
__device__ NRT_MemInfo *NRT_MemInfo_new(void *data, size_t size, NRT_dtor_function dtor,
                                        void *dtor_info);
__device__ NRT_MemInfo *NRT_MemInfo_alloc(size_t size);
__device__ NRT_MemInfo *NRT_MemInfo_alloc_aligned(size_t size, unsigned align);
__device__ NRT_MemInfo *NRT_MemInfo_alloc_dtor(size_t size, NRT_dtor_function dtor);
__device__ void NRT_MemInfo_call_dtor(NRT_MemInfo *mi);
__device__ NRT_MemInfo *NRT_MemInfo_new_varsize(size_t size);
__device__ void *NRT_MemInfo_data_fast(NRT_MemInfo *mi);
__device__ void NRT_incref(NRT_MemInfo *mi);
__device__ void NRT_decref(NRT_MemInfo *mi);
}

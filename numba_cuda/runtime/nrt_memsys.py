"""The device NRT's allocation statistics: one block of counters per context.

Kernels compiled with the device NRT (``NUMBA_CUDA_ENABLE_NRT=1``) have a pointer global, named by
their image's ``nrt_global``, to five ``u64`` in device memory: ``enabled``, ``alloc``, ``free``,
``mi_alloc``, ``mi_free``.  While ``enabled`` is non-zero the NRT functions count, with atomics,
every block allocated and freed and every meminfo created and destroyed.  The block belongs to
the context: it is allocated (zeroed; enabled when ``NUMBA_CUDA_NRT_STATS`` is set) when the
first NRT kernel is loaded there, or when the statistics are first asked for, and every NRT
kernel loaded in the context points at it.  Reading synchronises the context, so the counts
include every kernel launched before.
"""

import numpy as np

from numba_cuda.runtime import cudriver

#: the counters, in their order in device memory (u64 each)
SLOTS = ("enabled", "alloc", "free", "mi_alloc", "mi_free")
_BYTES = 8 * len(SLOTS)
_KEY = "numba_cuda.nrt_memsys"


class MemSys:
    """The statistics block of one context."""

    def __init__(self, context, enabled):
        drv = cudriver.driver()
        self.context = context
        with context.active():
            self.pointer = int(cudriver.call(drv.cuMemAlloc, _BYTES))
            cudriver.check(drv.cuMemsetD8(drv.CUdeviceptr(self.pointer), 0, _BYTES)[0],
                           "clearing the NRT statistics")
        if enabled:
            self.set_enabled(True)

    def set_enabled(self, enabled):
        drv = cudriver.driver()
        value = np.array([1 if enabled else 0], dtype=np.uint64)
        with self.context.active():
            cudriver.check(drv.cuCtxSynchronize()[0], "synchronising before switching NRT stats")
            cudriver.check(drv.cuMemcpyHtoD(drv.CUdeviceptr(self.pointer), value.ctypes.data, 8)[0],
                           "switching the NRT statistics")

    def read(self):
        """``{slot: int}`` after every kernel launched in the context so far."""
        drv = cudriver.driver()
        host = np.zeros(len(SLOTS), dtype=np.uint64)
        with self.context.active():
            cudriver.check(drv.cuCtxSynchronize()[0], "synchronising before reading NRT stats")
            cudriver.check(drv.cuMemcpyDtoH(host.ctypes.data, drv.CUdeviceptr(self.pointer),
                                            _BYTES)[0], "reading the NRT statistics")
        return {name: int(v) for name, v in zip(SLOTS, host)}


def memsys(context, stats_setting=False):
    """The statistics block of ``context`` (created on first use; ``stats_setting``: the
    ``NUMBA_CUDA_NRT_STATS`` setting, which enables counting from the start)."""
    found = context.extras.get(_KEY)
    if found is None:
        found = context.extras[_KEY] = MemSys(context, stats_setting)
    return found


def attach(module, context, global_name, stats_setting=False):
    """Point the NRT global ``global_name`` of ``module`` (just loaded in ``context``) at the
    context's statistics block."""
    drv = cudriver.driver()
    block = memsys(context, stats_setting)
    pointer, size = cudriver.call(drv.cuModuleGetGlobal, module, global_name.encode())
    if int(size) != 8:
        raise RuntimeError(f"the NRT global {global_name} has {int(size)} bytes, expected 8: the "
                           "kernel was compiled by another version")
    value = np.array([block.pointer], dtype=np.uint64)
    cudriver.check(drv.cuMemcpyHtoD(pointer, value.ctypes.data, 8)[0],
                   f"setting the NRT global {global_name}")

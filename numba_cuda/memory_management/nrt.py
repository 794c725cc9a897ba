"""``numba.cuda.memory_management.nrt``: the device NRT's runtime side, ``rtsys``.

With ``NUMBA_CUDA_ENABLE_NRT=1`` kernels can create arrays (``np.empty``, ``np.zeros`` ...); the
memory comes from CUDA's device-side ``malloc`` and is freed when its last reference goes (see
:mod:`numba_cuda.compiler.nrt`).  ``rtsys`` reads and switches the NRT's allocation counters,
kept per context in device memory (:mod:`numba_cuda.runtime.nrt_memsys`)::

    rtsys.memsys_enable_stats()
    before = rtsys.get_allocation_stats()
    kernel[1, 1]()
    after = rtsys.get_allocation_stats()   # alloc, free, mi_alloc, mi_free

Counting starts enabled when ``NUMBA_CUDA_NRT_STATS=1``.  The counters are those of the current
context; reading them synchronises it.  ``stream`` arguments are accepted as in NVIDIA's package
(the counters are switched and read synchronously).

In the simulator (``NUMBA_ENABLE_CUDASIM=1``) arrays made in kernels are NumPy's; nothing
allocates device memory and the counters stay zero.
"""

from collections import namedtuple

#: The same fields as NVIDIA's ``rtsys.get_allocation_stats()``.
AllocationStats = namedtuple("nrt_mstats", ["alloc", "free", "mi_alloc", "mi_free"])

_DISABLED = "NRT stats are disabled."


def get_include():
    """The folder of ``nrt.cuh``, the declarations of the device NRT's functions for CUDA C/C++
    linked with ``nrt=True`` (``#include <nrt.cuh>`` with this folder on the include path)."""
    import os

    return os.path.dirname(os.path.abspath(__file__))


class DeviceRuntime:
    """``rtsys``: the device NRT's allocation counters of the current context."""

    def _memsys(self):
        from numba_cuda.runtime.devices import current_context
        from numba_cuda.runtime.nrt_memsys import memsys
        from numba_cuda.common.unsupported import nrt_stats_enabled

        return memsys(current_context(), nrt_stats_enabled())

    # NVIDIA's set-up steps: here the counters are made on first use.
    def allocate(self, stream=None):
        self._memsys()

    ensure_allocated = initialize = ensure_initialized = allocate

    def close(self):
        """Nothing to release: the counters belong to their context."""

    def memsys_enable_stats(self, stream=None):
        self._memsys().set_enabled(True)

    def memsys_disable_stats(self, stream=None):
        self._memsys().set_enabled(False)

    def memsys_stats_enabled(self, stream=None):
        return bool(self._memsys().read()["enabled"])

    def _read(self):
        counts = self._memsys().read()
        if not counts["enabled"]:
            raise RuntimeError(_DISABLED)
        return counts

    def get_allocation_stats(self, stream=None):
        """Blocks allocated and freed, meminfos created and destroyed, by NRT code in the
        current context while counting was on; RuntimeError when it is off."""
        counts = self._read()
        return AllocationStats(*(counts[name] for name in AllocationStats._fields))

    def memsys_get_stats_alloc(self, stream=None):
        return self._read()["alloc"]

    def memsys_get_stats_free(self, stream=None):
        return self._read()["free"]

    def memsys_get_stats_mi_alloc(self, stream=None):
        return self._read()["mi_alloc"]

    def memsys_get_stats_mi_free(self, stream=None):
        return self._read()["mi_free"]

    def print_memsys(self, stream=None):
        counts = self._memsys().read()
        for name, value in counts.items():
            print(f"TheMSys->stats.{name} {value}")


class SimulatorRuntime:
    """``rtsys`` of the simulator: arrays made in kernels are NumPy's, so nothing is counted;
    switching counting on and off is remembered, and the counters are zero."""

    def __init__(self):
        from numba_cuda.common.unsupported import nrt_stats_enabled

        self._enabled = nrt_stats_enabled()

    def allocate(self, stream=None):
        pass

    ensure_allocated = initialize = ensure_initialized = allocate

    def close(self):
        pass

    def memsys_enable_stats(self, stream=None):
        self._enabled = True

    def memsys_disable_stats(self, stream=None):
        self._enabled = False

    def memsys_stats_enabled(self, stream=None):
        return self._enabled

    def _check(self):
        if not self._enabled:
            raise RuntimeError(_DISABLED)
        return 0

    def get_allocation_stats(self, stream=None):
        self._check()
        return AllocationStats(alloc=0, free=0, mi_alloc=0, mi_free=0)

    def memsys_get_stats_alloc(self, stream=None):
        return self._check()

    memsys_get_stats_free = memsys_get_stats_mi_alloc = memsys_get_stats_mi_free = \
        memsys_get_stats_alloc

    def print_memsys(self, stream=None):
        print("the simulator has no device NRT: nothing is counted")


def _make_rtsys():
    import numba_cuda

    return SimulatorRuntime() if numba_cuda.USE_SIMULATOR else DeviceRuntime()


rtsys = _make_rtsys()

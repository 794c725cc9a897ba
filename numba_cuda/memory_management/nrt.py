"""``numba.cuda.memory_management.nrt.rtsys``: the device NRT's allocation counters.

There is no device NRT here (see :mod:`numba_cuda.memory_management`), so nothing is ever
allocated through it: the counters are genuinely zero and stay zero, which is what leak checks
written against NVIDIA's package (``rtsys.get_allocation_stats()`` before and after) compare.
Everything that would need the NRT itself (``get_include``, ``rtsys.allocate`` ...) raises
``NotImplementedError`` saying so.
"""

from collections import namedtuple

#: The same fields as NVIDIA's ``rtsys.get_allocation_stats()``.
AllocationStats = namedtuple("nrt_mstats", ["alloc", "free", "mi_alloc", "mi_free"])

_NO_NRT = (
    "numba-cuda has no device NRT (Numba's reference-counted runtime): {what} is not "
    "available; kernels cannot allocate memory, so use arrays passed in, cuda.local.array "
    "or cuda.shared.array instead"
)


def get_include():
    """NVIDIA's NRT headers do not exist here."""
    raise NotImplementedError(_NO_NRT.format(what="numba.cuda.memory_management.get_include()"))


class DeviceRuntime:
    """``rtsys``: counters of a device runtime that never allocates."""

    def __init__(self):
        self._stats_enabled = False

    def memsys_enable_stats(self, stream=None):
        self._stats_enabled = True

    def memsys_disable_stats(self, stream=None):
        self._stats_enabled = False

    def memsys_stats_enabled(self, stream=None):
        return self._stats_enabled

    def get_allocation_stats(self, stream=None):
        """Allocations and frees made through the NRT: none, since there is no NRT."""
        return AllocationStats(alloc=0, free=0, mi_alloc=0, mi_free=0)

    def memsys_get_stats_alloc(self, stream=None):
        return 0

    def memsys_get_stats_free(self, stream=None):
        return 0

    def memsys_get_stats_mi_alloc(self, stream=None):
        return 0

    def memsys_get_stats_mi_free(self, stream=None):
        return 0

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(_NO_NRT.format(what=f"rtsys.{name}"))


rtsys = DeviceRuntime()

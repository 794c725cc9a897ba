"""The one simulated device, its context, and the device-management API."""

import contextlib
import functools
import os

from ..errors import CudaSupportError
from . import launchconfig

COMPUTE_CAPABILITY = (8, 0)

_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": launchconfig.MAX_THREADS_PER_BLOCK,
    "MAX_BLOCK_DIM_X": launchconfig.MAX_BLOCK_DIM[0],
    "MAX_BLOCK_DIM_Y": launchconfig.MAX_BLOCK_DIM[1],
    "MAX_BLOCK_DIM_Z": launchconfig.MAX_BLOCK_DIM[2],
    "MAX_GRID_DIM_X": launchconfig.MAX_GRID_DIM[0],
    "MAX_GRID_DIM_Y": launchconfig.MAX_GRID_DIM[1],
    "MAX_GRID_DIM_Z": launchconfig.MAX_GRID_DIM[2],
    "MAX_SHARED_MEMORY_PER_BLOCK": launchconfig.MAX_SHARED_MEMORY_PER_BLOCK,
    "WARP_SIZE": 32,
    "MULTIPROCESSOR_COUNT": 1,
    "MAX_THREADS_PER_MULTI_PROCESSOR": 2048,
    "MAX_REGISTERS_PER_BLOCK": 65536,
    "COMPUTE_CAPABILITY_MAJOR": COMPUTE_CAPABILITY[0],
    "COMPUTE_CAPABILITY_MINOR": COMPUTE_CAPABILITY[1],
    "UNIFIED_ADDRESSING": 1,
    "CAN_MAP_HOST_MEMORY": 1,
    "CONCURRENT_MANAGED_ACCESS": 1,
    "COOPERATIVE_LAUNCH": 1,
    "PCI_BUS_ID": 0,
    "PCI_DEVICE_ID": 0,
    "PCI_DOMAIN_ID": 0,
    "CLOCK_RATE": 1_000_000,
    "TOTAL_CONSTANT_MEMORY": 65536,
    "L2_CACHE_SIZE": 0,
}


class Device:
    """The simulated GPU."""

    id = 0
    name = "SIMULATOR"
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    compute_capability = COMPUTE_CAPABILITY
    supports_float16 = True
    supports_bfloat16 = True

    def __getattr__(self, name):
        try:
            return _ATTRIBUTES[name]
        except KeyError:
            raise AttributeError(f"the simulated device has no attribute {name!r}") from None

    def get_device_identity(self):
        return {"pci_domain_id": 0, "pci_bus_id": 0, "pci_device_id": 0}

    def reset(self):
        pass

    def __repr__(self):
        return "<CUDA device 0 'SIMULATOR'>"


_DEVICE = Device()

# Whether the simulated context exists, as on the real target: none before
# anything needs it (``cuda.gpus.current`` is None then), made by
# ``cuda.gpus[i]``, ``current_context()``, ``get_current_device()``,
# ``select_device()`` and launches, dropped by ``close()``.
_state = {"active": False}


def activate():
    """Make the simulated context current (what the real target does on first use)."""
    _state["active"] = True


def _host_memory():
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        avail = os.sysconf("SC_AVPHYS_PAGES")
        return avail * size, pages * size
    except (ValueError, OSError, AttributeError):
        return 8 << 30, 16 << 30


class FakeCUDAContext:
    """The context of the simulated device (named as in Numba's simulator, which code checks
    with ``type(cuda.current_context()).__name__ == "FakeCUDAContext"``)."""

    device = _DEVICE

    def __init__(self):
        from .memory_managers import PendingDeallocations

        #: deferred frees: never any in the simulator (``clear()`` is valid and does nothing)
        self.deallocations = PendingDeallocations()

    @property
    def referent(self):
        """This context itself, also through a ``weakref.proxy`` (which EMM plugins written for
        Numba pass to ``MemoryPointer``): memory objects keep the context itself."""
        return self

    def get_memory_info(self):
        """``MemoryInfo(free, total)`` bytes: the host's memory, which simulated arrays use."""
        from ..common.emm import MemoryInfo

        return MemoryInfo(*_host_memory())

    def reset(self):
        pass

    def synchronize(self):
        pass

    def memalloc(self, size):
        """``size`` bytes of simulated device memory (a device array of uint8)."""
        import numpy as np

        from .devicearray import DeviceNDArray

        return DeviceNDArray(np.zeros(size, dtype=np.uint8))

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """``size`` bytes of host memory (device and host memory are one in the simulator)."""
        import numpy as np

        return np.zeros(size, dtype=np.uint8)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @property
    def id(self):
        return 0

    @property
    def compute_capability(self):
        return COMPUTE_CAPABILITY

    def __repr__(self):
        return "<simulated CUDA context on device 0>"


Context = FakeCUDAContext
_CONTEXT = FakeCUDAContext()


class DeviceEntry:
    """``cuda.gpus[i]``: the device and a context manager that selects it."""

    def __init__(self):
        self.device = _DEVICE

    def __getattr__(self, name):
        return getattr(self.device, name)

    def __enter__(self):
        activate()
        return _CONTEXT

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return repr(self.device)


class DeviceList:
    """``cuda.gpus``: one simulated device."""

    def __init__(self):
        self._entries = [DeviceEntry()]

    def __getitem__(self, index):
        if index not in (0, -1):
            raise IndexError(f"the simulator has one device (0), not {index!r}")
        activate()
        return self._entries[0]

    def __len__(self):
        return 1

    def __iter__(self):
        return iter(self._entries)

    @property
    def lst(self):
        """The devices as a list (the real target's ``cuda.gpus.lst``)."""
        return list(self._entries)

    @property
    def current(self):
        """The device whose context is current, None before any context and after ``close()``."""
        return self._entries[0] if _state["active"] else None

    def __repr__(self):
        return "<simulated device list: [SIMULATOR]>"


gpus = DeviceList()


def is_available():
    """The simulator always has its device."""
    return True


def detect():
    """Print the simulated device; returns True."""
    print("Found 1 CUDA devices")
    print(f"id 0    {'SIMULATOR':>20} {'[SUPPORTED]':>40}")
    print(f"{'Compute Capability':>40}: {COMPUTE_CAPABILITY[0]}.{COMPUTE_CAPABILITY[1]}")
    print(f"{'PCI Device ID':>40}: 0")
    print(f"{'PCI Bus ID':>40}: 0")
    print("Summary:")
    print("\t1/1 devices are supported")
    return True


def list_devices():
    return gpus


def select_device(device_id):
    if device_id != 0:
        raise CudaSupportError(f"the simulator has one device (0); cannot select device {device_id}")
    activate()
    return _DEVICE


def get_current_device():
    activate()
    return _DEVICE


def current_context(devnum=None):
    activate()
    return _CONTEXT


def close():
    """Release the context: ``cuda.gpus.current`` is None until something needs one again."""
    _state["active"] = False


def require_context(fn):
    """Decorator: run ``fn`` with a current context (always true in the simulator)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        activate()
        return fn(*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def defer_cleanup():
    yield


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield

"""Devices and their primary contexts.

Each device is used through its *primary* context (the one the CUDA runtime,
CuPy and PyTorch use too), so memory and streams are shared with those
libraries.  The context current in a thread is tracked here, in a
thread-local stack: the first use in a thread binds device 0 (or the device
of a context some other library made current), ``select_device(i)`` switches,
and ``with cuda.gpus[i]:`` pushes a device for the block.
"""

import threading

from numba_cuda.errors import CudaSupportError, DriverError
from numba_cuda.runtime import context_stack, cudriver
from numba_cuda.runtime.context import Context, MemoryInfo  # noqa: F401 - MemoryInfo: public here too
from numba_cuda.runtime.context_stack import (  # noqa: F401 - public here too
    has_current_context,
    pop_context,
    push_context,
)

_lock = threading.RLock()
_devices = None  # list of Device, created on first use


def _attribute_enum(drv, name):
    member = getattr(drv.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name, None)
    if member is None:
        raise AttributeError(f"CUDA devices have no attribute {name!r}")
    return member


class Device:
    """One CUDA device.

    Device attributes are available by their driver names without the
    ``CU_DEVICE_ATTRIBUTE_`` prefix (``dev.MAX_THREADS_PER_BLOCK``,
    ``dev.MULTIPROCESSOR_COUNT`` ...).  Usable as a context manager to run a
    block with this device current.
    """

    def __init__(self, ordinal):
        drv = cudriver.driver()
        self.id = ordinal
        self.handle = cudriver.call(drv.cuDeviceGet, ordinal)
        raw = cudriver.call(drv.cuDeviceGetName, 256, self.handle)
        self.name = raw.split(b"\0", 1)[0].decode(errors="replace")
        attr = drv.CUdevice_attribute
        major = cudriver.call(drv.cuDeviceGetAttribute,
                              attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.handle)
        minor = cudriver.call(drv.cuDeviceGetAttribute,
                              attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.handle)
        self.compute_capability = (major, minor)
        self._primary = None

    # -- attributes -----------------------------------------------------------
    def __getattr__(self, name):
        if name.startswith("_") or not name.isupper():
            raise AttributeError(name)
        drv = cudriver.driver()
        value = cudriver.call(drv.cuDeviceGetAttribute, _attribute_enum(drv, name), self.handle)
        setattr(self, name, value)  # attributes are constant: cache on the instance
        return value

    @property
    def uuid(self):
        from numba_cuda.runtime.probe import format_uuid

        drv = cudriver.driver()
        return format_uuid(bytes(cudriver.call(drv.cuDeviceGetUuid, self.handle).bytes))

    @property
    def total_memory(self):
        drv = cudriver.driver()
        return int(cudriver.call(drv.cuDeviceTotalMem, self.handle))

    @property
    def supports_float16(self):
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self):
        return self.compute_capability >= (8, 0)

    def get_device_identity(self):
        return {
            "pci_domain_id": self.PCI_DOMAIN_ID,
            "pci_bus_id": self.PCI_BUS_ID,
            "pci_device_id": self.PCI_DEVICE_ID,
        }

    # -- contexts -------------------------------------------------------------
    def get_primary_context(self):
        """This device's primary context (retained once per process)."""
        with _lock:
            if self._primary is None or self._primary.closed:
                drv = cudriver.driver()
                handle = cudriver.call(drv.cuDevicePrimaryCtxRetain, self.handle)
                try:
                    self._primary = Context(self, handle, primary=True)
                except BaseException:  # e.g. the memory manager cannot be loaded
                    drv.cuDevicePrimaryCtxRelease(self.handle)
                    raise
            return self._primary

    def reset(self):
        """Release this device's primary context held by numba-cuda (see ``cuda.close``)."""
        with _lock:
            ctx = self._primary
            self._primary = None
        if ctx is not None:
            context_stack.forget_context(ctx)
            ctx.close()

    def __enter__(self):
        push_context(self.get_primary_context())
        return self

    def __exit__(self, *exc):
        pop_context()

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cuda-device", self.id))


def devices():
    """Every CUDA device (raises CudaSupportError without a driver)."""
    global _devices
    if _devices is None:
        drv = cudriver.driver()
        count = cudriver.call(drv.cuDeviceGetCount)
        with _lock:
            if _devices is None:
                _devices = [Device(i) for i in range(count)]
    return _devices


def get_device(ordinal=0):
    devs = devices()
    if not devs:
        raise CudaSupportError("the NVIDIA driver reports no CUDA device")
    if not 0 <= ordinal < len(devs):
        raise CudaSupportError(
            f"there is no CUDA device {ordinal}: {len(devs)} device(s) found "
            f"(ids 0..{len(devs) - 1}; check CUDA_VISIBLE_DEVICES)")
    return devs[ordinal]


# -- the current context, per thread (the stack itself: numba_cuda.runtime.context_stack) --
def current_context():
    """The context current in this thread, binding one on first use.

    Fast path: one thread-local look-up.
    """
    ctx = context_stack.top()
    if ctx is not None:
        return ctx
    return _bind_initial_context()


def _bind_initial_context():
    drv = cudriver.driver()
    handle = cudriver.call(drv.cuCtxGetCurrent)
    device = None
    if handle is not None and int(handle) != 0:
        # Some other library made a context current: use its device's primary context.
        dev_handle = cudriver.call(drv.cuCtxGetDevice)
        ordinal = int(dev_handle)
        device = get_device(ordinal)
        ctx = device.get_primary_context()
        if int(ctx.handle) != int(handle):
            raise CudaSupportError(
                f"the CUDA context current in this thread ({int(handle):#x}) is not device "
                f"{ordinal}'s primary context; numba-cuda works with primary contexts only "
                f"(create the other library's context with cuDevicePrimaryCtxRetain, or pop it first)")
    else:
        device = get_device(0)
        ctx = device.get_primary_context()
    context_stack.activate(ctx)
    context_stack.stack().append(ctx)
    return ctx


def select_device(ordinal):
    """Make device ``ordinal``'s primary context current in this thread; return the device."""
    device = get_device(ordinal)
    ctx = device.get_primary_context()
    context_stack.activate(ctx)
    stack = context_stack.stack()
    if stack:
        stack[-1] = ctx
    else:
        stack.append(ctx)
    return device


def get_current_device():
    return current_context().device


def close():
    """Release numba-cuda's contexts.

    In the main thread every primary context numba-cuda retained is released
    (memory numba-cuda allocated in it is freed with it once no other library
    holds it); in other threads only this thread's binding is dropped.
    """
    if _devices is None:
        return
    context_stack.clear()
    if threading.current_thread() is not threading.main_thread():
        return
    for device in list(_devices):
        try:
            device.reset()
        except DriverError:
            pass
    try:
        drv = cudriver.driver()
        drv.cuCtxSetCurrent(drv.CUcontext(0))
    except Exception:  # noqa: BLE001 - nothing is current any more either way
        pass


class DeviceList:
    """``cuda.gpus``: indexable list of devices; ``cuda.gpus.current`` is this thread's."""

    def __getitem__(self, index):
        return devices()[index]

    def __len__(self):
        return len(devices())

    def __iter__(self):
        return iter(devices())

    @property
    def lst(self):
        return list(devices())

    @property
    def current(self):
        """This thread's device, or None when no context is current in this thread.

        As in Numba and NVIDIA's numba-cuda, it asks the driver, so without one it raises
        CudaSupportError (libraries probe for a GPU this way); a context some other library
        made current counts, without being bound here.
        """
        if has_current_context():
            return current_context().device
        drv = cudriver.driver()
        handle = cudriver.call(drv.cuCtxGetCurrent)
        if handle is None or int(handle) == 0:
            return None
        return get_device(int(cudriver.call(drv.cuCtxGetDevice)))

    def __repr__(self):
        try:
            return f"<CUDA devices {devices()!r}>"
        except CudaSupportError as exc:
            return f"<CUDA devices: unavailable ({exc})>"


gpus = DeviceList()

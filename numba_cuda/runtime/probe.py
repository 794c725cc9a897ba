"""Non-raising probes of the driver and the devices, for diagnostics.

``numba-cuda sysinfo`` and ``cuda.detect()`` use these.  They never raise:
a problem is reported in the returned data instead.
"""

from numba_cuda.errors import CudaSupportError

#: Oldest compute capability each CUDA major's toolkit compiles for.
MIN_COMPUTE_CAPABILITY = {12: (5, 0), 13: (7, 5)}


def toolkit_cuda_major():
    """The CUDA major of the toolkit in use (discovered toolkit, else cuda-bindings), or None."""
    try:
        from numba_cuda import toolkit

        major = getattr(toolkit.get_toolkit(), "cuda_major", None)
        if major:
            return int(major)
    except Exception:  # noqa: BLE001 - fall back to the bindings' major
        pass
    try:
        from cuda.bindings import __version__ as version

        return int(version.split(".")[0])
    except Exception:  # noqa: BLE001
        return None


def is_supported_cc(cc, cuda_major=None):
    """Whether the toolkit of ``cuda_major`` can compile for compute capability ``cc``."""
    if cuda_major is None:
        cuda_major = toolkit_cuda_major()
    minimum = MIN_COMPUTE_CAPABILITY.get(cuda_major, (7, 5))
    return tuple(cc) >= minimum


def format_driver_version(number):
    """``13000`` -> ``"13.0"``, ``12080`` -> ``"12.8"``."""
    number = int(number)
    return f"{number // 1000}.{(number % 1000) // 10}"


def probe_driver():
    """``{"version": "13.0" | None, "error": str | None}``; never raises."""
    try:
        from numba_cuda.runtime import cudriver

        drv = cudriver.driver()
        res, number = drv.cuDriverGetVersion()
        if res != drv.CUresult.CUDA_SUCCESS:
            return {"version": None, "error": f"cuDriverGetVersion returned {res.name}"}
        return {"version": format_driver_version(number), "error": None}
    except CudaSupportError as exc:
        return {"version": None, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - a diagnostic must not raise
        return {"version": None, "error": f"{type(exc).__name__}: {exc}"}


def _device_record(drv, ordinal, cuda_major):
    attr = drv.CUdevice_attribute
    ok = drv.CUresult.CUDA_SUCCESS
    res, dev = drv.cuDeviceGet(ordinal)
    if res != ok:
        return {"id": ordinal, "name": None, "compute_capability": None, "uuid": None,
                "total_memory": None, "supported": False, "error": f"cuDeviceGet returned {res.name}"}
    res, name = drv.cuDeviceGetName(256, dev)
    name = name.split(b"\0", 1)[0].decode(errors="replace") if res == ok else None
    _, major = drv.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
    _, minor = drv.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    res, uuid = drv.cuDeviceGetUuid(dev)
    uuid_text = format_uuid(bytes(uuid.bytes)) if res == ok else None
    res, total = drv.cuDeviceTotalMem(dev)
    return {
        "id": ordinal,
        "name": name,
        "compute_capability": f"{major}.{minor}",
        "uuid": uuid_text,
        "total_memory": int(total) if res == ok else None,
        "supported": is_supported_cc((major, minor), cuda_major),
    }


def format_uuid(raw):
    """16 raw bytes -> ``GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`` (nvidia-smi's form)."""
    h = bytes(raw[:16]).hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def probe_devices():
    """One dict per device: id, name, compute_capability ("9.0"), uuid,
    total_memory (bytes), supported (bool).  Empty without a driver; never raises."""
    try:
        from numba_cuda.runtime import cudriver

        drv = cudriver.driver()
        res, count = drv.cuDeviceGetCount()
        if res != drv.CUresult.CUDA_SUCCESS:
            return []
        cuda_major = toolkit_cuda_major()
        records = []
        for ordinal in range(count):
            try:
                records.append(_device_record(drv, ordinal, cuda_major))
            except Exception as exc:  # noqa: BLE001
                records.append({"id": ordinal, "name": None, "compute_capability": None,
                                "uuid": None, "total_memory": None, "supported": False,
                                "error": f"{type(exc).__name__}: {exc}"})
        return records
    except Exception:  # noqa: BLE001 - CudaSupportError included: no driver means no devices
        return []

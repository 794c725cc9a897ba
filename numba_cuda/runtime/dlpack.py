"""DLPack export (``__dlpack__``/``__dlpack_device__``) and the capsules of import (arrays over
an imported tensor are made by ``interop.from_dlpack``).

The DLPack C structures are declared with ctypes and capsules are made and
read through the CPython C API (``ctypes.pythonapi``).  Exported tensors keep
their device array alive in a registry until the consumer calls the deleter
(or the unconsumed capsule is collected).  Both the legacy ``dltensor`` and
the versioned (DLPack 1.x) ``dltensor_versioned`` capsules are produced and
accepted.
"""

import ctypes
import threading

import numpy as np

# Device types (dlpack.h DLDeviceType)
kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3
kDLCUDAManaged = 13

# Data type codes (DLDataTypeCode)
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = range(7)

DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1

#: The DLPack version this module produces for versioned capsules.
DLPACK_VERSION = (1, 0)

_NAME = b"dltensor"
_USED_NAME = b"used_dltensor"
_NAME_VERSIONED = b"dltensor_versioned"
_USED_NAME_VERSIONED = b"used_dltensor_versioned"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# -- the CPython capsule API ---------------------------------------------------------
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.c_void_p]

# -- export ----------------------------------------------------------------------------
_exports = {}  # address of the managed tensor -> what keeps it and its array alive
_exports_lock = threading.Lock()


def _release_export(address):
    with _exports_lock:
        _exports.pop(address, None)


@_Deleter
def _managed_deleter(address):
    _release_export(address)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # Only an unconsumed capsule still owns its tensor; a consumer renamed it.
    for name in (_NAME, _NAME_VERSIONED):
        if _api.PyCapsule_IsValid(capsule, name):
            address = _api.PyCapsule_GetPointer(capsule, name)
            if address:
                _release_export(address)
            return


def dl_dtype(dtype):
    """numpy dtype -> DLDataType (raises BufferError for types DLPack cannot express)."""
    dtype = np.dtype(dtype)
    codes = {"i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex, "b": kDLBool}
    if dtype.kind not in codes or dtype.fields is not None or dtype.byteorder == ">":
        raise BufferError(f"DLPack cannot describe dtype {dtype}")
    return DLDataType(codes[dtype.kind], dtype.itemsize * 8, 1)


def np_dtype(dl):
    """DLDataType -> numpy dtype."""
    if dl.lanes != 1:
        raise BufferError(f"DLPack vector types (lanes={dl.lanes}) are not supported")
    kinds = {kDLInt: "i", kDLUInt: "u", kDLFloat: "f", kDLComplex: "c", kDLBool: "b"}
    if dl.code not in kinds or dl.bits % 8:
        raise BufferError(f"DLPack data type code {dl.code} with {dl.bits} bits is not supported")
    if dl.code == kDLBool:
        return np.dtype(np.bool_)
    return np.dtype(f"{kinds[dl.code]}{dl.bits // 8}")


def make_capsule(pointer, shape, strides, dtype, device_type, device_id, owner,
                 versioned=False, readonly=False, copied=False):
    """A DLPack capsule describing memory at ``pointer`` (``strides`` in bytes);
    ``owner`` is kept alive until the consumer releases the tensor."""
    dtype = np.dtype(dtype)
    ndim = len(shape)
    itemsize = dtype.itemsize
    elem_strides = []
    for stride in strides:
        if stride % itemsize:
            raise BufferError(f"stride {stride} bytes is not a multiple of the item size "
                              f"{itemsize}: DLPack counts strides in elements")
        elem_strides.append(stride // itemsize)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*elem_strides)
    tensor = DLTensor()
    tensor.data = pointer or None
    tensor.device = DLDevice(device_type, device_id)
    tensor.ndim = ndim
    tensor.dtype = dl_dtype(dtype)
    tensor.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(*DLPACK_VERSION)
        managed.flags = ((DLPACK_FLAG_BITMASK_READ_ONLY if readonly else 0)
                         | (DLPACK_FLAG_BITMASK_IS_COPIED if copied else 0))
        name = _NAME_VERSIONED
    else:
        managed = DLManagedTensor()
        name = _NAME
    managed.dl_tensor = tensor
    managed.manager_ctx = None
    managed.deleter = _managed_deleter
    address = ctypes.addressof(managed)
    with _exports_lock:
        _exports[address] = (managed, shape_arr, strides_arr, owner)
    destructor = ctypes.cast(_capsule_destructor, ctypes.c_void_p)
    return _api.PyCapsule_New(address, name, destructor)


def _consumer_stream_wait(arr, stream):
    """DLPack's stream rule: the consumer's ``stream`` must see the producer's work."""
    from numba_cuda.runtime.array_interface import order_after
    from numba_cuda.runtime.current_streams import as_stream

    producer = arr.stream
    producer_value = producer.handle_value if hasattr(producer, "handle_value") else 0
    if stream == -1 or producer_value in (0,):
        return
    consumer = 1 if stream is None else int(stream)
    if consumer == 0:
        raise BufferError("stream=0 is ambiguous for DLPack on CUDA: pass 1 (legacy default) "
                          "or 2 (per-thread default)")
    ctx = arr.gpu_data.context
    order_after(producer_value, as_stream(consumer) if consumer not in (1, 2)
                else ctx.special_stream(consumer), ctx)


def export_device_array(arr, stream=None, max_version=None, dl_device=None, copy=None):
    """``DeviceNDArray.__dlpack__``."""
    device = (kDLCUDA, arr.gpu_data.context.device.id)
    if dl_device is not None and tuple(dl_device) != device:
        raise BufferError(f"this array lives on {device}; export to {tuple(dl_device)} "
                          f"needs a copy through the host (copy_to_host)")
    copied = False
    if copy:
        from numba_cuda.runtime import memcopy

        fresh = type(arr)(arr.shape, None, arr.dtype, stream=arr.stream)  # a DeviceNDArray
        memcopy.assign(fresh, arr, arr.stream, arr)
        arr, copied = fresh, True
    _consumer_stream_wait(arr, stream)
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    return make_capsule(arr.device_pointer_value, arr.shape, arr.strides, arr.dtype,
                        device[0], device[1], arr, versioned=versioned, copied=copied)


# -- import ----------------------------------------------------------------------------
class _ImportedTensor:
    """Keeps a consumed DLPack tensor alive; calls its deleter when collected."""

    def __init__(self, address, deleter, producer):
        self.address = address
        self.deleter = deleter
        self.producer = producer  # the exporting object, kept alive too

    def __del__(self):
        deleter, self.deleter = self.deleter, None
        if deleter:
            deleter(self.address)


def is_cuda_device(dev):
    return tuple(dev)[0] in (kDLCUDA, kDLCUDAManaged)


def consume_capsule(capsule, producer=None):
    """Read and take ownership of a DLPack capsule.

    Returns ``(info, keeper)`` where info is a dict with device_type,
    device_id, pointer (data + byte_offset), shape, strides (bytes), dtype,
    readonly; ``keeper`` calls the producer's deleter when collected.
    """
    capsule_addr = id(capsule)
    if _api.PyCapsule_IsValid(capsule_addr, _NAME_VERSIONED):
        address = _api.PyCapsule_GetPointer(capsule_addr, _NAME_VERSIONED)
        managed = DLManagedTensorVersioned.from_address(address)
        if managed.version.major > DLPACK_VERSION[0]:
            raise BufferError(f"DLPack {managed.version.major}.{managed.version.minor} tensors "
                              f"are newer than this reader ({DLPACK_VERSION[0]}.x)")
        readonly = bool(managed.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
        used = _USED_NAME_VERSIONED
    elif _api.PyCapsule_IsValid(capsule_addr, _NAME):
        address = _api.PyCapsule_GetPointer(capsule_addr, _NAME)
        managed = DLManagedTensor.from_address(address)
        readonly = False
        used = _USED_NAME
    else:
        name = _api.PyCapsule_GetName(capsule_addr)
        raise BufferError(f"not an unconsumed DLPack capsule (name {name!r})")
    tensor = managed.dl_tensor
    dtype = np_dtype(tensor.dtype)
    ndim = tensor.ndim
    shape = tuple(tensor.shape[i] for i in range(ndim))
    if tensor.strides:
        strides = tuple(tensor.strides[i] * dtype.itemsize for i in range(ndim))
    else:
        from numba_cuda.runtime.array_layout import c_strides

        strides = c_strides(shape, dtype.itemsize)
    info = {
        "device_type": tensor.device.device_type,
        "device_id": tensor.device.device_id,
        "pointer": (tensor.data or 0) + tensor.byte_offset,
        "shape": shape,
        "strides": strides,
        "dtype": dtype,
        "readonly": readonly,
    }
    deleter = managed.deleter
    deleter = deleter if ctypes.cast(deleter, ctypes.c_void_p).value else None
    _api.PyCapsule_SetName(capsule_addr, used)  # consumed: the capsule no longer owns it
    return info, _ImportedTensor(address, deleter, producer)

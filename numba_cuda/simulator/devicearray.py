"""Device arrays of the simulator: host numpy memory behind the device-array API.

:class:`DeviceNDArray` wraps a numpy array and offers what the real class
offers (``copy_to_host``, ``copy_to_device``, slicing, ``reshape``, ``split``,
``__cuda_array_interface__`` version 3 whose pointer is the host address).
Kernels receive the wrapped numpy array itself, so element access in
simulated kernels runs at numpy speed.  Mapped and managed arrays are numpy
arrays that are also device arrays (:class:`MappedNDArray`), as on the GPU.
"""

import contextlib
import weakref

import numpy as np

from ..common.cuda_array_interface import parse_cuda_array_interface
from ..common.unsupported import OBJECT_ARRAY, check_dtype
from .graph_capture import CAPTURES
from .hostmemory import access_problem


class _Interface:
    """A numpy view of a checked CUDA Array Interface (host memory in the simulator)."""

    def __init__(self, parsed, owner):
        dtype = parsed.dtype
        self.__array_interface__ = {
            "shape": parsed.shape,
            "typestr": dtype.str,
            "data": (parsed.pointer, parsed.readonly),
            "strides": parsed.strides,
            "descr": dtype.descr if dtype.fields is not None else [("", dtype.str)],
            "version": 3,
        }
        self._owner = owner


def _host_view(desc, owner):
    """The numpy array over the memory ``desc`` describes, after the real target's checks
    (:func:`numba_cuda.common.cuda_array_interface.parse_cuda_array_interface`) and a check that
    the memory is this process's (a wild pointer raises instead of crashing)."""
    parsed = parse_cuda_array_interface(desc)
    if parsed.hi <= parsed.lo:
        return np.empty(parsed.shape, dtype=parsed.dtype)
    problem = access_problem(parsed.pointer, parsed.lo, parsed.hi, parsed.readonly)
    if problem is not None:
        raise ValueError(
            f"invalid __cuda_array_interface__: the {parsed.hi - parsed.lo} bytes at "
            f"0x{parsed.pointer + parsed.lo:x} {problem}; the simulator reads device memory "
            "as host memory, so an interface pointer must address memory of this process "
            "(simulated device arrays, host arrays)")
    view = np.asarray(_Interface(parsed, owner))
    if view.dtype != parsed.dtype:  # structured dtypes come back as void: restore the real one
        view = view.view(parsed.dtype)
    return view


def _interface_of(ary, stream=None):
    return {
        "shape": ary.shape,
        "strides": None if ary.flags.c_contiguous else ary.strides,
        "data": (ary.__array_interface__["data"][0] if ary.size else 0, not ary.flags.writeable),
        "typestr": ary.dtype.str,
        "descr": ary.dtype.descr if ary.dtype.fields else [("", ary.dtype.str)],
        "stream": None if stream in (None, 0) else int(stream),
        "version": 3,
    }


def _root(ary):
    while isinstance(ary.base, np.ndarray):
        ary = ary.base
    return ary


#: id(root numpy array) -> weak reference to it, for the device memory freed early
#: (``gpu_data.free()``); read by the sanitizer's memcheck (:mod:`.sanitizer`).
_FREED = {}


def is_freed(devary):
    """Whether the memory under the device array ``devary`` was freed with ``gpu_data.free()``."""
    root = _root(devary._ary)
    ref = _FREED.get(id(root))
    return ref is not None and ref() is root


class SimDeviceMemory:
    """``DeviceNDArray.gpu_data``: the device memory under a simulated device array (its root
    numpy buffer).  ``free()`` ends its life early, as on the GPU; the memory stays readable
    on the host, and the sanitizer's memcheck (``NUMBA_CUDASIM_SANITIZE=memcheck``) reports a
    kernel's use of it."""

    __slots__ = ("_root",)

    def __init__(self, ary):
        self._root = _root(ary)

    @property
    def device_pointer_value(self):
        return self._root.__array_interface__["data"][0] if self._root.size else None

    @property
    def size(self):
        return self._root.nbytes

    def free(self):
        root = self._root
        key = id(root)
        _FREED[key] = weakref.ref(root, lambda _ref, key=key: _FREED.pop(key, None))


class DeviceNDArray:
    """A simulated device array: ``shape``, ``dtype``, copies, slicing, the CUDA Array Interface."""

    __cuda_memory__ = True

    def __init__(self, ary, stream=0):
        if ary.dtype.hasobject:
            raise TypeError(OBJECT_ARRAY)
        self._ary = ary
        self.stream = stream

    # -- description
    shape = property(lambda self: self._ary.shape)
    strides = property(lambda self: self._ary.strides)
    ndim = property(lambda self: self._ary.ndim)
    size = property(lambda self: self._ary.size)
    dtype = property(lambda self: self._ary.dtype)
    nbytes = property(lambda self: self._ary.nbytes)
    flags = property(lambda self: self._ary.flags)

    @property
    def gpu_data(self):
        return SimDeviceMemory(self._ary)

    @property
    def alloc_size(self):
        return self._ary.nbytes

    @property
    def __cuda_array_interface__(self):
        return _interface_of(self._ary, self.stream)

    @property
    def device_ctypes_pointer(self):
        import ctypes

        return ctypes.c_void_p(self._ary.__array_interface__["data"][0] if self._ary.size else None)

    @property
    def _numba_type_(self):
        from numba import typeof

        return typeof(self._ary)

    def __dlpack__(self, *args, **kwargs):
        return self._ary.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._ary.__dlpack_device__()

    def is_c_contiguous(self):
        return self._ary.flags.c_contiguous

    def is_f_contiguous(self):
        return self._ary.flags.f_contiguous

    def __len__(self):
        return len(self._ary)

    def __repr__(self):
        return f"<simulated DeviceNDArray shape={self.shape} dtype={self.dtype}>"

    def __array__(self, dtype=None, copy=None):
        # Convenience of the simulator (the GPU needs copy_to_host()).
        return self._ary if dtype is None else self._ary.astype(dtype)

    def get_ipc_handle(self):
        """CUDA IPC needs a GPU."""
        from .unavailable import not_available

        raise not_available("DeviceNDArray.get_ipc_handle (CUDA IPC)")

    # -- transfers
    def copy_to_host(self, ary=None, stream=0):
        if CAPTURES:
            return self._captured_copy_to_host(ary, stream)
        return self._copy_to_host(ary)

    def _captured_copy_to_host(self, ary, stream):
        from .graph_capture import check_no_host_step, record

        contiguous = self._ary.flags.c_contiguous or self._ary.flags.f_contiguous
        if stream and not contiguous:
            check_no_host_step(stream, "copy_to_host of a non-contiguous device array")
        if stream and ary is not None and (ary.strides != self._ary.strides
                                           or ary.shape != self._ary.shape):
            check_no_host_step(stream, "copy_to_host into a host array of another layout")

        if ary is None:  # filled at each launch of the graph, as on the GPU
            ary = np.empty_like(self._ary, order="K", subok=False)
        if not record(stream, "a copy (copy_to_host)", ("memcpy", "DtoH"),
                      lambda: self._copy_to_host(ary)):
            return self._copy_to_host(ary)
        return ary

    def _copy_to_host(self, ary=None):
        if ary is None:
            # the device array's layout (an F-ordered array stays F-ordered), as on the GPU
            out = np.empty_like(self._ary, order="K", subok=False)
            np.copyto(out, self._ary)
            return out
        if ary.shape != self._ary.shape or ary.dtype != self._ary.dtype:
            if ary.size == self._ary.size and ary.dtype == self._ary.dtype:
                ary.reshape(-1)[...] = self._ary.reshape(-1)
                return ary
            raise ValueError(
                f"copy_to_host: the host array has shape {ary.shape} and dtype {ary.dtype}, "
                f"the device array {self.shape} and {self.dtype}"
            )
        np.copyto(ary, self._ary)
        return ary

    def copy_to_device(self, ary, stream=0):
        if CAPTURES:
            from .graph_capture import record

            kind = "DtoD" if isinstance(ary, DeviceNDArray) else "HtoD"
            contiguous = self._ary.flags.c_contiguous or self._ary.flags.f_contiguous
            if stream and (not contiguous or kind == "DtoD" and ary.strides != self.strides):
                from .graph_capture import check_no_host_step

                check_no_host_step(stream, "a copy into a non-contiguous device array"
                                   if not contiguous else
                                   "copy_to_device between device arrays of two layouts")
            if kind == "HtoD" and stream:
                from .graph_capture import check_host_source

                check_host_source(stream, ary, self.dtype, self.shape,
                                  "F" if self._ary.flags.f_contiguous and self.ndim > 1 else "C",
                                  "a copy to a device array")
            if record(stream, "a copy (copy_to_device)", ("memcpy", kind),
                      lambda: self._copy_to_device(ary)):
                return
        self._copy_to_device(ary)

    def _copy_to_device(self, ary):
        src = ary._ary if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        if src.size != self._ary.size or (src.shape != self._ary.shape and src.ndim == self._ary.ndim):
            raise ValueError(
                f"copy_to_device: the source has shape {src.shape}, the device array {self.shape}"
            )
        if src.shape != self._ary.shape:
            src = src.reshape(self._ary.shape)
        np.copyto(self._ary, src, casting="same_kind" if src.dtype != self._ary.dtype else "no")

    def bind(self, stream=0):
        return DeviceNDArray(self._ary, stream)

    # -- views
    def __getitem__(self, index):
        item = self._ary[index]
        if isinstance(item, np.ndarray):
            return DeviceNDArray(item, self.stream)
        if CAPTURES:  # an element read is a synchronous copy to the host on the GPU
            from .graph_capture import check_synchronous

            check_synchronous("reading an element of a device array")
        return item

    def getitem(self, index, stream=0):
        return self[index]

    def __setitem__(self, index, value):
        if CAPTURES:  # a copy on the array's stream (synchronous for stream 0) on the GPU
            from .graph_capture import check_host_source, record

            view = self._ary[index]
            if isinstance(value, DeviceNDArray):
                kind = "DtoD"
            else:
                kind = "HtoD"
                if self.stream:
                    check_host_source(self.stream, value, self.dtype, np.shape(view),
                                      "F" if view.ndim > 1 and view.flags.f_contiguous and
                                      not view.flags.c_contiguous else "C",
                                      "assigning to a device array (d[...] = value)")
            if record(self.stream or None, "assigning to a device array (d[...] = value)",
                      ("memcpy", kind), lambda: self._setitem(index, value)):
                return
        self._setitem(index, value)

    def _setitem(self, index, value):
        if isinstance(value, DeviceNDArray):
            value = value._ary
        self._ary[index] = value

    def setitem(self, index, value, stream=0):
        self[index] = value

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        out = self._ary.reshape(newshape, order=order)
        if not np.shares_memory(out, self._ary) and out.size:
            raise NotImplementedError("reshape of a non-contiguous device array would need a copy")
        return DeviceNDArray(out, self.stream)

    def ravel(self, order="C", stream=0):
        out = self._ary.ravel(order=order)
        if not np.shares_memory(out, self._ary) and out.size:
            raise NotImplementedError("ravel of a non-contiguous device array would need a copy")
        return DeviceNDArray(out, stream or self.stream)

    def view(self, dtype):
        return DeviceNDArray(self._ary.view(dtype), self.stream)

    @property
    def T(self):
        return self.transpose()

    def transpose(self, axes=None):
        return DeviceNDArray(self._ary.transpose(axes), self.stream)

    def split(self, section, stream=0):
        flat = self._ary.reshape(-1)
        return [DeviceNDArray(flat[i:i + section], stream or self.stream)
                for i in range(0, flat.size, section)]


    # -- convenience comparisons (host semantics)
    def __eq__(self, other):
        return self._ary == (other._ary if isinstance(other, DeviceNDArray) else other)

    def __ne__(self, other):
        return self._ary != (other._ary if isinstance(other, DeviceNDArray) else other)

    __hash__ = object.__hash__


class DeviceRecord(DeviceNDArray):
    """A device copy of a numpy record (a 0-d structured array)."""


class MappedNDArray(DeviceNDArray, np.ndarray):
    """Host memory visible to kernels: a numpy array that is also a device array."""

    def __new__(cls, shape, dtype=np.float64, strides=None, order="C"):
        return np.ndarray.__new__(cls, shape, dtype=dtype, strides=strides, order=order)

    def __init__(self, *args, **kwargs):
        pass

    def __array_finalize__(self, obj):
        pass

    @property
    def _ary(self):
        return self.view(np.ndarray)

    stream = 0
    shape = np.ndarray.shape
    strides = np.ndarray.strides
    ndim = np.ndarray.ndim
    size = np.ndarray.size
    dtype = np.ndarray.dtype
    nbytes = np.ndarray.nbytes
    flags = np.ndarray.flags
    __getitem__ = np.ndarray.__getitem__
    __setitem__ = np.ndarray.__setitem__
    __len__ = np.ndarray.__len__
    __eq__ = np.ndarray.__eq__
    __ne__ = np.ndarray.__ne__
    __repr__ = np.ndarray.__repr__
    __array__ = np.ndarray.__array__
    reshape = np.ndarray.reshape
    ravel = np.ndarray.ravel
    view = np.ndarray.view
    transpose = np.ndarray.transpose
    T = np.ndarray.T
    __hash__ = None


ManagedNDArray = MappedNDArray


# ---- constructors ------------------------------------------------------------------------
def _host(ary):
    if isinstance(ary, DeviceNDArray) and not isinstance(ary, np.ndarray):
        return ary._ary
    return np.asarray(ary)


def to_device(obj, stream=0, copy=True, to=None):
    """A device copy of a host array (or, with ``to``, copy ``obj`` into that device array)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, np.void) or (isinstance(obj, np.ndarray) and obj.dtype.fields and obj.ndim == 0):
        return DeviceRecord(np.array(obj, copy=True), stream)
    src = _host(obj)
    check_dtype(src.dtype)
    if CAPTURES and copy:
        from .graph_capture import check_host_source, record

        if stream:
            check_host_source(stream, obj, src.dtype, src.shape,
                              "F" if src.ndim > 1 and src.flags.f_contiguous and
                              not src.flags.c_contiguous else "C", "to_device")

        dev = DeviceNDArray(np.empty_like(src, order="K", subok=False), stream)
        if record(stream, "a copy (to_device)", ("memcpy", "HtoD"),
                  lambda: dev._copy_to_device(obj)):
            return dev  # uninitialised until the graph is launched, as on the GPU
    ary = np.array(src, copy=True, order="K", subok=False) if copy else np.empty_like(src)
    return DeviceNDArray(ary, stream)


def _fresh(shape, dtype, strides, order):
    check_dtype(dtype)
    ary = np.zeros(shape, dtype=dtype, order=order)
    if strides is None or ary.strides == tuple(strides):
        return ary
    strides = tuple(int(s) for s in strides)
    if len(strides) != ary.ndim or any(s < 0 for s in strides):
        raise ValueError(f"strides {strides} do not describe a new array of shape {ary.shape}")
    nbytes = 0 if ary.size == 0 else sum((n - 1) * s for n, s in zip(ary.shape, strides)) + ary.itemsize
    buf = np.zeros(max(nbytes, 1), dtype=np.uint8)
    return np.ndarray(ary.shape, dtype=ary.dtype, buffer=buf, strides=strides)


def _strides_like(ary):
    """Contiguous strides ordering the dimensions as ``ary``'s (Numba's ``*_like`` rule), or
    None when the order's default strides already are."""
    if ary.flags["C_CONTIGUOUS"] or ary.flags["F_CONTIGUOUS"] or ary.ndim <= 1:
        return None
    out = [0] * ary.ndim
    step = ary.dtype.itemsize
    for dim in sorted(range(ary.ndim), key=lambda d: ary.strides[d]):
        out[dim] = step
        step *= ary.shape[dim]
    return tuple(out)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised device array (zero-filled in the simulator, for determinism)."""
    return DeviceNDArray(_fresh(shape, dtype, strides, order), stream)


def _order_of(ary):
    return "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"


def device_array_like(ary, stream=0):
    return device_array(ary.shape, ary.dtype, _strides_like(ary), _order_of(ary), stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return _fresh(shape, dtype, strides, order)


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, _strides_like(ary), _order_of(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    check_dtype(dtype)
    ary = MappedNDArray(shape, dtype=dtype, strides=strides, order=order)
    ary.fill(0)
    return ary


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, _strides_like(ary), _order_of(ary), stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    return mapped_array(shape, dtype, strides, order, stream)


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock host arrays for the duration of the block (a no-op in the simulator)."""
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Map host arrays into the device; yields device arrays over the same memory."""
    views = [DeviceNDArray(_host(a), kws.get("stream", 0)) for a in arylist]
    yield views[0] if len(views) == 1 else views


# ---- CUDA Array Interface ----------------------------------------------------------------
def is_cuda_array(obj):
    """True for objects exporting ``__cuda_array_interface__``."""
    return hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over the memory described by a CUDA Array Interface dict."""
    return DeviceNDArray(_host_view(desc, owner))


def as_cuda_array(obj, sync=True):
    """A device array sharing the memory of an object that exports the interface."""
    if isinstance(obj, DeviceNDArray):
        return obj if not isinstance(obj, np.ndarray) else DeviceNDArray(obj._ary)
    if not is_cuda_array(obj):
        raise TypeError(f"{type(obj).__name__} does not export __cuda_array_interface__")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


def from_dlpack(obj):
    """A simulated device array sharing the memory of a DLPack producer (the simulator's
    "device" memory is host memory, so producers on the CPU are accepted)."""
    if isinstance(obj, DeviceNDArray):
        return obj
    try:
        ary = np.from_dlpack(obj)
    except (AttributeError, TypeError, BufferError, RuntimeError) as exc:
        raise TypeError(
            f"{type(obj).__name__} cannot be imported through DLPack in the simulator, which "
            f"reads host memory only: {exc}") from exc
    if not ary.flags.writeable:
        ary = _writable_producer_view(obj, ary)
    return DeviceNDArray(ary)


def _writable_producer_view(obj, ary):
    """``ary`` (imported read-only) or the producer's own writable view of the same memory.

    NumPy before 2.3 imports every DLPack capsule read-only, even from a writable producer.
    A producer that also exposes its host memory through the array interface or the buffer
    protocol (NumPy arrays do) gives a writable view when it is writable itself; it is used
    only if it is exactly the same memory, shape and strides.
    """
    try:
        view = np.asarray(obj)
    except Exception:  # noqa: BLE001 - not a host array: keep what DLPack gave
        return ary
    same = (view.__array_interface__["data"][0] == ary.__array_interface__["data"][0]
            and view.shape == ary.shape and view.strides == ary.strides and view.dtype == ary.dtype)
    return view if same and view.flags.writeable else ary


def kernel_view(obj):
    """The numpy array a simulated kernel sees for an argument exporting the interface."""
    return _host_view(obj.__cuda_array_interface__, obj)


def auto_device(obj, stream=0, copy=True):
    """``(device array, whether it was copied)`` for a host or device array."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if is_cuda_array(obj):
        return as_cuda_array(obj), False
    if isinstance(obj, np.ndarray):
        from ..common.array_layout import sentry_contiguous

        sentry_contiguous(obj)  # as Numba's auto_device (cuda.to_device copies any layout)
    return to_device(obj, stream, copy), True

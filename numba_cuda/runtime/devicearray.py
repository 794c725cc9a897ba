"""Device arrays: :class:`DeviceNDArray`, and numpy arrays over mapped/managed memory; zero-copy
views of CUDA Array Interface producers (``from_cuda_array_interface``).

Index arithmetic (slicing, views, transposes) is done by numpy on a *layout
array* (``array_layout``): an ndarray whose data pointer is the device address
and whose memory is never read.  Only operations that numpy performs without
touching the data are used on it (basic indexing, strided views); everything
that moves bytes goes through the driver (``memcopy``).
"""

import numbers

import numpy as np

from numba_cuda.runtime import cudriver, dlpack, memcopy
from numba_cuda.runtime.array_interface import parse_cuda_array_interface, synchronize_producer
from numba_cuda.runtime.array_layout import (  # noqa: F401 - public here too
    _NULL_BASE,
    c_strides,
    f_strides,
    is_contiguous_layout,
    layout_array,
    span,
    strides_like,
)
from numba_cuda.runtime.ipc import register_array_type
from numba_cuda.common.unsupported import check_dtype

def _basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, (slice, numbers.Integral)):
            continue
        if isinstance(item, np.integer):
            continue
        raise IndexError(
            f"device arrays support basic indexing only (integers, slices, ..., None); got "
            f"{type(item).__name__}: copy to the host for fancy or boolean indexing")


def _stream_or(stream, default):
    return default if (stream is None or (not hasattr(stream, "handle") and stream == 0)) \
        else stream


class DeviceNDArray:
    """An n-dimensional array in GPU memory.

    ``shape``, ``strides`` (bytes), ``dtype``, ``size``, ``ndim``, ``nbytes``;
    ``copy_to_host``, ``copy_to_device``, slicing, ``reshape``, ``ravel``,
    ``split``, ``view``, ``T``; exports the CUDA Array Interface (v3) and
    DLPack.  ``stream`` is the stream used when an operation names none.
    """

    __cuda_memory__ = True
    __cuda_ndarray__ = True

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None):
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        if isinstance(strides, numbers.Integral):
            strides = (strides,)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        check_dtype(self.dtype)
        if strides is None:
            strides = c_strides(self.shape, self.dtype.itemsize)
        self.strides = tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape):
            raise ValueError(f"strides {self.strides} do not match shape {self.shape}")
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        lo, hi = span(self.shape, self.strides, self.dtype.itemsize)
        self.alloc_size = hi - lo
        if gpu_data is None:
            if lo != 0:
                raise ValueError("a new device array cannot have negative strides")
            from numba_cuda.runtime.devices import current_context

            gpu_data = current_context().memalloc(self.alloc_size)
        self.gpu_data = gpu_data
        self.stream = stream
        self._params = None
        self._numba_type = None

    # -- basic properties ------------------------------------------------------------
    @property
    def device_pointer_value(self):
        return self.gpu_data.device_pointer_value

    @property
    def device_ctypes_pointer(self):
        import ctypes

        return ctypes.c_void_p(self.gpu_data.device_pointer_value or None)

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def is_c_contiguous(self):
        return is_contiguous_layout(self.shape, self.strides, self.dtype.itemsize, "C")

    def is_f_contiguous(self):
        return is_contiguous_layout(self.shape, self.strides, self.dtype.itemsize, "F")

    @property
    def flags(self):
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    @property
    def layout(self):
        if self.is_c_contiguous():
            return "C"
        if self.is_f_contiguous():
            return "F"
        return "A"

    @property
    def _numba_type_(self):
        """The Numba type of this array (``numba.typeof`` gives the same)."""
        if self._numba_type is None:
            from numba.core import types
            from numba.np.numpy_support import from_dtype

            self._numba_type = types.Array(from_dtype(self.dtype), self.ndim, self.layout)
        return self._numba_type

    @property
    def kernel_params(self):
        """This array's kernel parameters: meminfo, parent, nitems, itemsize, data, shape, strides."""
        params = self._params
        if params is None:
            params = self._params = (0, 0, self.size, self.dtype.itemsize,
                                     self.gpu_data.device_pointer_value) + self.shape + self.strides
        return params

    # -- interop ---------------------------------------------------------------------
    @property
    def __cuda_array_interface__(self):
        stream = self.stream
        return {
            "shape": self.shape,
            "strides": None if self.is_c_contiguous() else self.strides,
            "data": (self.gpu_data.device_pointer_value, False),
            "typestr": self.dtype.str,
            "descr": self.dtype.descr if self.dtype.fields is not None else [("", self.dtype.str)],
            "stream": stream.cai_stream() if (hasattr(stream, "cai_stream") and stream.handle_value)
            else None,
            "version": 3,
        }

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return dlpack.export_device_array(self, stream=stream, max_version=max_version,
                                          dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return (dlpack.kDLCUDA, self.gpu_data.context.device.id)

    # -- views -----------------------------------------------------------------------
    def _layout(self):
        return layout_array(self.gpu_data.device_pointer_value, self.shape, self.strides,
                            self.dtype)

    def _from_layout(self, view, stream=None):
        base = self.gpu_data.device_pointer_value or _NULL_BASE
        offset = view.__array_interface__["data"][0] - base
        lo, hi = span(view.shape, view.strides, view.dtype.itemsize)
        if hi - lo == 0:
            data = self.gpu_data.view(0, 0)
        else:
            data = self.gpu_data.view(offset + lo, offset + hi)
            if lo:
                # the allocation view starts at the lowest address; the array starts higher
                data = _OffsetAllocation(data, -lo)  # lo < 0
        return DeviceNDArray(view.shape, view.strides, view.dtype,
                             stream=self.stream if stream is None else stream, gpu_data=data)

    def _index_view(self, index):
        """(layout view for ``self[index]`` as an ndarray, whether it selects one element)."""
        _basic_index(index)
        items = index if isinstance(index, tuple) else (index,)
        has_int = any(isinstance(i, (numbers.Integral, np.integer)) for i in items)
        if not any(i is Ellipsis for i in items):
            items = items + (Ellipsis,)  # numpy then returns a 0-d view, never an element read
        view = self._layout()[items]
        return view, (view.ndim == 0 and has_int)

    def __getitem__(self, index):
        return self.getitem(index)

    def getitem(self, index, stream=0):
        """A view for slices; the element itself (copied to the host) for a full integer index."""
        view, element = self._index_view(index)
        result = self._from_layout(view, _stream_or(stream, None))
        if element:
            return result.copy_to_host(stream=stream)[()]
        return result

    def view(self, dtype):
        """The same memory as another dtype (the last dimension must be contiguous)."""
        return self._from_layout(self._layout().view(np.dtype(dtype)))

    def transpose(self, axes=None):
        return self._from_layout(self._layout().transpose(axes))

    @property
    def T(self):
        return self.transpose()

    def squeeze(self, axis=None, stream=0):
        return self._from_layout(self._layout().squeeze(axis), _stream_or(stream, None))

    def bind(self, stream=0):
        """The same array, with ``stream`` as its default stream."""
        return DeviceNDArray(self.shape, self.strides, self.dtype, stream=stream,
                             gpu_data=self.gpu_data)

    def reshape(self, *newshape, order="C"):
        """A view with a new shape; the array must be contiguous in ``order``."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        newshape = tuple(int(s) for s in newshape)
        if order not in ("C", "F", "A"):
            raise ValueError(f"order must be 'C', 'F' or 'A', not {order!r}")
        unknown = [i for i, s in enumerate(newshape) if s < 0]
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension")
        if unknown:
            known = int(np.prod([s for s in newshape if s >= 0], dtype=np.int64))
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape {newshape}")
            newshape = tuple(self.size // known if s < 0 else s for s in newshape)
        if int(np.prod(newshape, dtype=np.int64)) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {newshape}")
        if newshape == self.shape:
            return self
        if order == "A":
            order = "F" if (self.is_f_contiguous() and not self.is_c_contiguous()) else "C"
        contiguous = self.is_c_contiguous() if order == "C" else self.is_f_contiguous()
        if not contiguous:
            raise NotImplementedError(
                f"reshape of a non-{order}-contiguous device array needs a copy; "
                f"copy it first (e.g. to the host) or reshape with the array's own order")
        itemsize = self.dtype.itemsize
        strides = c_strides(newshape, itemsize) if order == "C" else f_strides(newshape, itemsize)
        return DeviceNDArray(newshape, strides, self.dtype, stream=self.stream,
                             gpu_data=self.gpu_data)

    def ravel(self, order="C", stream=0):
        """A flat view (the array must be contiguous in ``order``)."""
        return self.reshape(self.size, order=order).bind(_stream_or(stream, self.stream))

    def split(self, section, stream=0):
        """Split a 1-D array into views of ``section`` elements (the last may be shorter)."""
        if self.ndim != 1:
            raise ValueError(f"split needs a 1-D device array, this one has {self.ndim} dims")
        if section <= 0:
            raise ValueError(f"section must be positive, got {section}")
        stream = _stream_or(stream, self.stream)
        return [self.getitem(slice(begin, min(begin + section, self.size)), stream)
                for begin in range(0, self.size, section)]

    # -- IPC -------------------------------------------------------------------------
    def get_ipc_handle(self):
        """An IpcArrayHandle sharing this array with another process (Linux); pickle it
        there and open it (``with handle as array:``)."""
        from numba_cuda.runtime.devices import current_context

        handle = current_context().get_ipc_handle(self.gpu_data)
        desc = {"shape": self.shape, "strides": self.strides, "dtype": self.dtype}
        return IpcArrayHandle(handle, desc)

    # -- data movement ---------------------------------------------------------------
    def __reduce__(self):
        # Pickles as its host copy (as Numba's device arrays travel): loading the pickle
        # allocates an array of the same shape, dtype and order on the loading process's
        # current device and copies the data there.
        return _from_host_copy, (self.copy_to_host(),)

    def copy_to_host(self, ary=None, stream=0):
        """Copy to a host array (``ary`` if given, else a new one with the same layout)."""
        return memcopy.device_to_host(self, ary, _stream_or(stream, self.stream))

    def copy_to_device(self, ary, stream=0):
        """Copy a host array, or another device array, into this one (same shape/dtype)."""
        memcopy.to_device_array(self, ary, _stream_or(stream, self.stream), device_source(ary))

    def __setitem__(self, index, value):
        self.setitem(index, value)

    def setitem(self, index, value, stream=0):
        """``self[index] = value``: a host scalar/array (broadcast) or a device array."""
        stream = _stream_or(stream, self.stream)
        view, _element = self._index_view(index)
        memcopy.assign(self._from_layout(view, stream), value, stream, device_source(value))

    def __repr__(self):
        return (f"<DeviceNDArray shape={self.shape} dtype={self.dtype} "
                f"ptr={self.gpu_data.device_pointer_value:#x}>")


def _from_host_copy(host):
    """Unpickle a ``DeviceNDArray``: a new device array holding ``host``."""
    strides = host.strides if host.flags.f_contiguous and not host.flags.c_contiguous else None
    ary = DeviceNDArray(host.shape, strides, host.dtype)
    ary.copy_to_device(host)
    return ary


class IpcArrayHandle:
    """A device array shared through CUDA IPC: pickle it to another process, then ``open()``
    it there, or use it as a context manager (closed at the end of the block)."""

    def __init__(self, ipc_handle, array_desc):
        self._array_desc = array_desc
        self._ipc_handle = ipc_handle

    def open(self):
        """The shared array, as a device array of this process's current context."""
        from numba_cuda.runtime.devices import current_context

        desc = self._array_desc
        memory = self._ipc_handle.open(current_context())
        return DeviceNDArray(desc["shape"], desc["strides"], desc["dtype"], gpu_data=memory)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


class DeviceRecord(DeviceNDArray):
    """A structured scalar (one record) in GPU memory; kernels receive it as a record.

    ``rec[field]`` reads a field (a nested record stays on the device as a DeviceRecord, a
    subarray field is a DeviceNDArray view); ``rec[field] = value`` writes one.
    """

    def __init__(self, dtype, stream=0, gpu_data=None):
        super().__init__((), (), dtype, stream=stream, gpu_data=gpu_data)
        if self.dtype.fields is None:
            raise TypeError(f"a DeviceRecord needs a structured dtype, got {self.dtype}")

    @property
    def _numba_type_(self):
        from numba.np.numpy_support import from_dtype

        return from_dtype(self.dtype)

    def _field(self, item):
        try:
            typ, offset = self.dtype.fields[item][:2]
        except KeyError:
            raise KeyError(f"the record type {self.dtype} has no field {item!r}") from None
        return typ, offset, self.gpu_data.view(offset, offset + typ.itemsize)

    def __getitem__(self, item):
        return self.getitem(item)

    def getitem(self, item, stream=0):
        stream = _stream_or(stream, self.stream)
        typ, _offset, data = self._field(item)
        if typ.shape:
            base = typ.subdtype[0]
            return DeviceNDArray(typ.shape, c_strides(typ.shape, base.itemsize), base,
                                 stream=stream, gpu_data=data)
        if typ.names is not None:
            return DeviceRecord(typ, stream=stream, gpu_data=data)
        host = np.empty(1, dtype=typ)
        memcopy.memcpy_dtoh(host.__array_interface__["data"][0], data.device_pointer_value,
                            typ.itemsize, stream)
        if not (stream is None or stream == 0):
            stream.synchronize()
        return host[0]

    def __setitem__(self, item, value):
        self.setitem(item, value)

    def setitem(self, item, value, stream=0):
        stream = _stream_or(stream, self.stream)
        typ, _offset, data = self._field(item)
        host = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=typ.base),
                                                    typ.shape)) if typ.shape else \
            np.array(value, dtype=typ)
        memcopy.memcpy_htod(data.device_pointer_value, host.__array_interface__["data"][0],
                            typ.itemsize, stream)
        if not (stream is None or stream == 0):
            stream.synchronize()  # the temporary host copy must outlive the transfer

    def copy_to_host(self, ary=None, stream=0):
        """The record as a 0-d host array, or copied into ``ary`` (a 0-d array, or a
        ``numpy.void``/``numpy.record``, whose own bytes are overwritten as in Numba)."""
        if not isinstance(ary, np.void):
            return super().copy_to_host(ary, stream)
        if ary.dtype != self.dtype:
            raise TypeError(f"copy_to_host: the record has dtype {ary.dtype}, the device "
                            f"record {self.dtype}")
        stream = _stream_or(stream, self.stream)
        # a void scalar's buffer is its own storage (or the array element it views)
        address = np.frombuffer(memoryview(ary), np.uint8).__array_interface__["data"][0]
        memcopy.memcpy_dtoh(address, self.gpu_data.device_pointer_value, self.dtype.itemsize,
                            stream)
        if not (stream is None or stream == 0):
            stream.synchronize()
        return ary

    def __reduce__(self):
        return _record_from_host_copy, (self.copy_to_host(),)

    def __repr__(self):
        return (f"<DeviceRecord dtype={self.dtype} "
                f"ptr={self.gpu_data.device_pointer_value:#x}>")


def _record_from_host_copy(host):
    """Unpickle a ``DeviceRecord``: a new device record holding ``host`` (a 0-d array)."""
    rec = DeviceRecord(host.dtype)
    rec.copy_to_device(host)
    return rec


class _OffsetAllocation:
    """An allocation whose array starts ``delta`` bytes past the allocation's lowest byte
    (arrays with negative strides).  ``view`` offsets are relative to the array start."""

    def __init__(self, data, delta):
        self._data = data
        self._delta = delta
        self.context = data.context
        self.size = data.size
        self.owner = data
        self.device_pointer_value = data.device_pointer_value + delta

    def view(self, start, stop=None):
        stop = self.size - self._delta if stop is None else stop
        return self._data.view(start + self._delta, stop + self._delta)

    @property
    def device_pointer(self):
        return cudriver.driver().CUdeviceptr(self.device_pointer_value)


# -- numpy arrays the device can address ----------------------------------------------
class _DeviceAddressable(np.ndarray):
    """A host ndarray whose memory the device can also address (mapped or managed)."""

    def __array_finalize__(self, obj):
        self._cuda_memory = getattr(obj, "_cuda_memory", None)

    def device_pointer_value_of(self):
        mem = self._cuda_memory
        return mem.device_pointer_value + (self.__array_interface__["data"][0] - mem.host_pointer)

    @property
    def __cuda_array_interface__(self):
        c_contig = self.flags["C_CONTIGUOUS"]
        return {
            "shape": self.shape,
            "strides": None if c_contig else self.strides,
            "data": (self.device_pointer_value_of(), not self.flags["WRITEABLE"]),
            "typestr": self.dtype.str,
            "descr": self.dtype.descr if self.dtype.fields is not None else [("", self.dtype.str)],
            "stream": None,
            "version": 3,
        }


class MappedNDArray(_DeviceAddressable):
    """Page-locked host memory mapped into the device's address space."""


class ManagedNDArray(_DeviceAddressable):
    """Managed (unified) memory: one pointer valid on host and device."""


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray viewing the memory an interface dict describes (zero-copy).

    ``owner`` is kept alive as long as the array; with ``sync`` the producer's
    stream is synchronised first (the interface's stream semantics), unless
    ``NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0``.
    """
    from numba_cuda.runtime.devices import current_context
    from numba_cuda.runtime.memory import DeviceAllocation
    from numba_cuda.runtime.user_settings import array_interface_sync

    parsed = parse_cuda_array_interface(desc)
    if sync and array_interface_sync():
        synchronize_producer(parsed.stream)
    ctx = current_context()
    data = DeviceAllocation(ctx, parsed.pointer + parsed.lo if parsed.hi > parsed.lo else
                            parsed.pointer, parsed.hi - parsed.lo, owner=owner)
    if parsed.lo < 0:
        data = _OffsetAllocation(data, -parsed.lo)
    return DeviceNDArray(parsed.shape, parsed.strides, parsed.dtype, stream=0, gpu_data=data)


def device_source(value):
    """A DeviceNDArray for a device-side value (a device array, or an object exporting the CUDA
    Array Interface, viewed without a copy), or None for host values (mapped/managed numpy
    arrays are read through the host side)."""
    if isinstance(value, DeviceNDArray):
        return value
    if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
        return from_cuda_array_interface(value.__cuda_array_interface__, owner=value, sync=True)
    return None


register_array_type(DeviceNDArray)  # IpcHandle.open_array builds these

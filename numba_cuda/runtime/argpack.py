"""Kernel argument packing, prepared once per signature.

A kernel's parameters are its arguments flattened the way Numba's data model
flattens them:

- arrays: ``meminfo*, parent*, nitems, itemsize, data*, shape[ndim], strides[ndim]``
  (5 + 2*ndim parameters; meminfo and parent are null on the device);
- complex numbers: real, imaginary;
- tuples (and named tuples): their members, recursively;
- types with ``argument_members`` (CUDA vector types): those members, in order;
- booleans: one byte; integers and floats (float16 too) as themselves;
- records: a pointer to a device copy (copied back after the launch);
- datetime64/timedelta64: int64 in the type's unit; IntEnum members: their value;
  raw pointers (``CPointer``/``voidptr``): 64-bit addresses.

:class:`ArgPacker` turns a tuple of Numba types into one ``struct`` format with
every parameter at its natural alignment, and a list of small converters.
Per launch it fills a reused per-thread buffer and an array of pointers into
it, the ``kernelParams`` that ``cuLaunchKernel`` reads.
"""

import ctypes
import struct
import threading
import warnings

import numpy as np

from numba.core import types

_POINTER = "Q"  # 64-bit device addresses


class LaunchState:
    """Work an argument needs around one launch: copies back and objects kept alive."""

    __slots__ = ("stream", "context", "writeback", "keepalive")

    def __init__(self, stream, context):
        self.stream = stream
        self.context = context
        self.writeback = []
        self.keepalive = []

    def finish(self):
        for fn in self.writeback:
            fn()

    @property
    def copy_back_stream(self):
        """The stream for copies back to host memory after the launch: 0 (synchronous, done
        when the launch call returns) for a default stream, else the launch's own stream.
        An async copy into page-locked memory returns before the data arrives, so copying
        back on the default stream's handle would leave pinned arguments stale."""
        stream = self.stream
        if stream is None or stream == 0 or getattr(stream, "is_default", False):
            return 0
        return stream


# -- leaf codes -----------------------------------------------------------------------
def _int_code(ty):
    codes = {8: "b", 16: "h", 32: "i", 64: "q"}
    code = codes[ty.bitwidth]
    return code if ty.signed else code.upper()


def _float_code(ty):
    return {16: "e", 32: "f", 64: "d"}[ty.bitwidth]


def _is_float16(ty):
    return isinstance(ty, types.Float) and ty.bitwidth == 16


# -- per-type plans: (list of struct codes, converter(value, out, state)) --------------
def _plan(ty, where):
    if isinstance(ty, types.Boolean):
        return ["B"], lambda v, out, st: out.append(1 if v else 0)
    if isinstance(ty, types.IntEnumMember):
        code = _int_code(ty.dtype)
        return [code], lambda v, out, st: out.append(int(getattr(v, "value", v)))
    if isinstance(ty, types.EnumMember):
        inner_codes, inner = _plan(ty.dtype, where)
        return inner_codes, lambda v, out, st: inner(getattr(v, "value", v), out, st)
    if isinstance(ty, types.Integer):
        return [_int_code(ty)], lambda v, out, st: out.append(int(v))
    if isinstance(ty, types.Float) or _is_float16(ty):
        return [_float_code(ty)], lambda v, out, st: out.append(float(v))
    if isinstance(ty, types.Complex):
        code = _float_code(ty.underlying_float)

        def complex_param(v, out, st):
            v = complex(v)
            out.append(v.real)
            out.append(v.imag)
        return [code, code], complex_param
    if isinstance(ty, (types.NPDatetime, types.NPTimedelta)):
        letter = "M8" if isinstance(ty, types.NPDatetime) else "m8"
        target = np.dtype(f"{letter}[{ty.unit}]") if ty.unit else np.dtype(letter)

        def datetime_param(v, out, st):
            out.append(int(np.asarray(v).astype(target).view(np.int64)))
        return ["q"], datetime_param
    if isinstance(ty, types.BaseTuple):
        members = [_plan(t, f"{where}[{i}]") for i, t in enumerate(ty.types)]
        codes = [c for m in members for c in m[0]]
        convs = [m[1] for m in members]

        def tuple_param(v, out, st):
            if len(v) != len(convs):
                raise TypeError(f"{where}: expected a tuple of {len(convs)} items, got {len(v)}")
            for conv, item in zip(convs, v):
                conv(item, out, st)
        return codes, tuple_param
    if isinstance(ty, types.Array):
        return _array_plan(ty, where)
    if isinstance(ty, types.Record):
        return [_POINTER], _record_converter(ty, where)
    if isinstance(ty, (types.CPointer, types.RawPointer)):
        return [_POINTER], lambda v, out, st: out.append(_address(v))
    if isinstance(ty, types.NoneType):  # an opaque (null) pointer in Numba's data model
        return [_POINTER], lambda v, out, st: out.append(0)
    if isinstance(ty, types.Omitted):  # no parameter at all
        return [], lambda v, out, st: None
    members = getattr(ty, "argument_members", None)
    if members is not None:  # passed member by member, e.g. CUDA vector types (lang.vectortypes)
        plans = [(name, _plan(t, f"{where}.{name}")) for name, t in members]

        def members_param(v, out, st):
            for name, (_codes, conv) in plans:
                conv(getattr(v, name), out, st)
        return [c for _name, (codes, _conv) in plans for c in codes], members_param
    raise TypeError(f"{where}: numba-cuda cannot pass arguments of type {ty} to a kernel")


def _address(value):
    if isinstance(value, int):
        return value
    if isinstance(value, ctypes.c_void_p):
        return value.value or 0
    for attr in ("device_pointer_value", "value"):
        got = getattr(value, attr, None)
        if isinstance(got, int):
            return got
    return int(value)


def array_params(value, ndim, state, where):
    """Kernel parameters for an array argument (device, interface, DLPack or host array)."""
    from numba_cuda.common.args import ArgHint
    from numba_cuda.runtime.devicearray import DeviceNDArray

    if isinstance(value, ArgHint):
        # host arrays get the copies the hint asks for; device-addressable ones (device,
        # mapped, managed arrays, CUDA Array Interface exporters) are passed as they are
        if isinstance(value.value, np.ndarray) and \
                not hasattr(value.value, "__cuda_array_interface__"):
            return _hinted_host_array_params(value, state, where)
        value = value.value
    if isinstance(value, DeviceNDArray):
        if state is not None:
            owner = getattr(value.gpu_data, "context", None)
            if owner is not None and owner is not state.context:
                state.context.reach(owner, f"{where} (a device array)")
        params = value._params
        if params is None:
            params = value.kernel_params
    else:
        desc = getattr(value, "__cuda_array_interface__", None)
        if desc is not None:
            from numba_cuda.runtime.array_interface import (kernel_params, order_after,
                                                            parse_cuda_array_interface)

            parsed = parse_cuda_array_interface(desc)
            if state is not None and state.stream is not None:
                order_after(parsed.stream, state.stream, state.context)
            state.keepalive.append(value) if state is not None else None
            params = kernel_params(parsed)
        elif isinstance(value, np.ndarray):
            params = _host_array_params(value, state, where)
        elif hasattr(value, "__dlpack__"):
            from numba_cuda.runtime.interop import as_cuda_array

            dev = as_cuda_array(value)
            if state is not None:
                state.keepalive.append(dev)
            params = dev.kernel_params
        else:
            raise TypeError(f"{where}: expected an array, got {type(value).__name__}")
    if len(params) != 5 + 2 * ndim:
        raise TypeError(f"{where}: the kernel was compiled for a {ndim}-d array, got a "
                        f"{(len(params) - 5) // 2}-d one")
    return params


def _host_array_params(value, state, where):
    from numba.core.errors import NumbaPerformanceWarning

    from numba_cuda.runtime.transfers import to_device
    from numba_cuda.runtime.user_settings import warn_on_implicit_copy

    if warn_on_implicit_copy():
        warnings.warn(NumbaPerformanceWarning(
            f"{where}: a host (numpy) array passed to a kernel is copied to the device before "
            f"the launch and back after it; pass a device array (cuda.to_device) to avoid the "
            f"copies, or cuda.In/Out/InOut to say which are needed "
            f"(NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0 silences this warning)"),
            stacklevel=4)
    from numba_cuda.runtime.transfers import device_to_host

    stream = state.stream if state is not None else 0
    dev = to_device(value, stream=stream)
    if state is not None:
        state.keepalive.append(dev)
        if value.flags["WRITEABLE"]:
            back = state.copy_back_stream
            state.writeback.append(lambda: device_to_host(dev, value, back))
    return dev.kernel_params


def _hinted_host_array_params(hint, state, where):
    """A host array wrapped in cuda.In/Out/InOut: only the copies the hint asks for."""
    from numba_cuda.runtime.devicearray import DeviceNDArray
    from numba_cuda.runtime.transfers import device_to_host, to_device

    value = hint.value
    stream = state.stream if state is not None else 0
    if hint.copy_in:
        dev = to_device(value, stream=stream)
    else:
        dev = DeviceNDArray(value.shape, _fresh_strides(value), value.dtype, stream=stream)
    if state is not None:
        state.keepalive.append(dev)
        if hint.copy_out:
            if not value.flags["WRITEABLE"]:
                raise ValueError(f"{where}: cuda.{type(hint).__name__} of a read-only array "
                                 f"cannot receive the kernel's results")
            back = state.copy_back_stream
            state.writeback.append(lambda: device_to_host(dev, value, back))
    return dev.kernel_params


def _fresh_strides(value):
    """Strides of a new device array for host array ``value`` (its own when contiguous)."""
    from numba_cuda.runtime.devicearray import c_strides

    if value.flags["C_CONTIGUOUS"] or value.flags["F_CONTIGUOUS"]:
        if all(s >= 0 for s in value.strides):
            return value.strides
    return c_strides(value.shape, value.dtype.itemsize)


def _array_plan(ty, where):
    ndim = ty.ndim
    codes = [_POINTER, _POINTER, "q", "q", _POINTER] + ["q"] * (2 * ndim)

    from numba_cuda.runtime.devicearray import DeviceNDArray

    nparams = 5 + 2 * ndim

    def array_param(v, out, st):
        # this package's device arrays (the common case) without the general path's look-ups
        if type(v) is DeviceNDArray:
            params = v._params or v.kernel_params
            if len(params) == nparams:
                if st is not None and v.gpu_data.context is not st.context:
                    owner = getattr(v.gpu_data, "context", None)
                    if owner is not None:
                        st.context.reach(owner, f"{where} (a device array)")
                out.extend(params)
                return
        out.extend(array_params(v, ndim, st, where))
    return codes, array_param


def _record_converter(ty, where):
    def record_param(v, out, st):
        from numba_cuda.runtime.devicearray import DeviceRecord
        from numba_cuda.runtime.transfers import memcpy_dtoh, memcpy_htod

        if isinstance(v, DeviceRecord):  # already on the device: passed by address
            st.keepalive.append(v)
            out.append(v.device_pointer_value)
            return

        host = np.asarray(v)  # a 0-d structured array sharing the record's memory
        nbytes = host.dtype.itemsize
        mem = st.context.memalloc(nbytes)
        ptr = host.__array_interface__["data"][0]
        memcpy_htod(mem.device_pointer_value, ptr, nbytes, st.stream)
        st.keepalive.append((mem, host))
        if host.flags["WRITEABLE"]:
            st.writeback.append(
                lambda: memcpy_dtoh(ptr, mem.device_pointer_value, nbytes, st.copy_back_stream))
        out.append(mem.device_pointer_value)
    return record_param


class ArgPacker:
    """Packs arguments of fixed Numba types into ``kernelParams`` (built once per signature).

    ``codes``: struct code of each kernel parameter; ``offsets``: its byte
    offset in the parameter buffer; ``struct``: the whole buffer's layout.
    """

    def __init__(self, argtypes):
        self.argtypes = tuple(argtypes)
        self.codes = []
        self._converters = []
        for i, ty in enumerate(self.argtypes):
            codes, conv = _plan(ty, f"argument {i} ({ty})")
            self.codes.extend(codes)
            self._converters.append(conv)
        fmt = ["<"]
        self.offsets = []
        pos = 0
        for code in self.codes:
            size = struct.calcsize("<" + code)
            pad = (-pos) % size
            if pad:
                fmt.append(f"{pad}x")
                pos += pad
            self.offsets.append(pos)
            fmt.append(code)
            pos += size
        self.size = pos
        self.struct = struct.Struct("".join(fmt))
        self.nparams = len(self.codes)
        self._tls = threading.local()

    def flatten(self, args, state=None):
        """The kernel parameter values for ``args`` (one value per parameter)."""
        if len(args) != len(self._converters):
            raise TypeError(f"the kernel takes {len(self._converters)} arguments, "
                            f"{len(args)} were given")
        out = []
        for conv, value in zip(self._converters, args):
            conv(value, out, state)
        return out

    def _buffers(self):
        bufs = getattr(self._tls, "bufs", None)
        if bufs is None:
            data = ctypes.create_string_buffer(max(self.size, 8))
            base = ctypes.addressof(data)
            ptrs = (ctypes.c_void_p * max(self.nparams, 1))(*[base + o for o in self.offsets])
            bufs = self._tls.bufs = (data, ptrs, ctypes.addressof(ptrs))
        return bufs

    def pack(self, args, state=None):
        """Fill this thread's parameter buffer; return the ``kernelParams`` address (void**)."""
        values = self.flatten(args, state)
        data, _ptrs, address = self._buffers()
        try:
            self.struct.pack_into(data, 0, *values)
        except struct.error as exc:
            raise TypeError(f"kernel arguments do not fit the compiled parameter types "
                            f"{self.argtypes}: {exc}") from None
        return address if self.nparams else 0

    def packed_bytes(self, args, state=None):
        """The parameter buffer's bytes for ``args`` (for inspection and tests)."""
        return self.struct.pack(*self.flatten(args, state))

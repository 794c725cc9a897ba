"""A host-memory stand-in for the part of ``cuda.bindings.driver`` the runtime uses.

What it models:

- one or more devices with H100-like attributes (cc 9.0, 132 SMs, 80 GiB, 227 KiB opt-in
  shared memory per block); primary contexts with a retain count and a per-thread current
  context stack; calls that need a current context fail with CUDA_ERROR_INVALID_CONTEXT
  without one, and a primary context released to zero frees everything allocated in it;
- device memory: each allocation is a host buffer reached through a fake 64-bit address
  above the user address space (0xD000_0000_0000 ...), so a device address used as a host
  pointer cannot alias real memory; copies (sync and async) move bytes, out-of-range or
  unknown device addresses give CUDA_ERROR_INVALID_VALUE; pinned, mapped (device pointer ==
  host pointer, as under UVA), registered and managed memory are real host memory;
- streams and events: ``log`` records every operation in order, events get a fake clock time
  when recorded; elapsed time of unrecorded events fails like the driver does;
- asynchrony of page-locked copies: an ``*Async`` copy whose host side is pinned, registered
  or mapped memory is queued and only happens at the next synchronisation (stream, event or
  context synchronize, a synchronous copy, a launch), as on a GPU where such a copy returns
  before the DMA; async copies of pageable memory complete at once, as the driver stages them;
- modules: PTX (parsed for each ``.entry``'s ``.param`` sizes and ``.global`` symbols) and
  ELF cubins are accepted; ``cuLaunchKernel`` / ``cuLaunchCooperativeKernel`` record the
  launch with a snapshot of each kernel parameter's bytes (PTX modules) read through the
  ``kernelParams`` pointer array, exactly as the driver reads it;
- argument types: while no real driver library is loadable, every call is first passed to
  the real binding, whose argument conversion runs before it tries to load libcuda: a
  TypeError there is raised here too, so the runtime cannot pass types the binding rejects.

- stream capture and graphs: between ``cuStreamBeginCapture`` and ``cuStreamEndCapture`` the
  launches, async copies and async memsets issued on the capturing stream are recorded as
  graph nodes instead of running (kernel parameters snapshotted, as the driver copies them);
  synchronous copies/memsets, work on the legacy stream (0 or 1) and synchronising the
  capturing stream or the context fail (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT/UNSUPPORTED) and
  invalidate every capture, so that ``cuStreamEndCapture`` then fails with
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; ``cuGraphLaunch`` replays an instantiated graph's
  nodes in order (launches are appended to ``launches`` with ``"graph"`` set);
  ``cuGraphExecUpdate`` takes a graph of the same node kinds in the same order (else
  CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE with the result the driver gives); ``graphs`` and
  ``graph_execs`` hold the live ones.

- IPC within one process: ``cuIpcGetMemHandle`` of an allocation's base gives a handle
  naming it; ``cuIpcOpenMemHandle`` maps that allocation at a new device address (the same
  bytes, as another process would see them) until ``cuIpcCloseMemHandle``; a handle of
  freed memory fails to open.  ``cuMemGetAddressRange`` finds an address's allocation;
  each device has its own PCI bus id (its identity).

What it does NOT model: kernels never execute (device memory only changes through copies
and memsets), no timing beyond a counter, no asynchrony beyond page-locked copies (kernels
"run" when launched, streams are not independent: any synchronisation completes all work),
no second process (IPC handles open in the exporting process, which a real driver refuses),
graphs are linear lists of nodes (no branches, events or child graphs; peer access:
enabling it is recorded, peer copies move bytes), no JIT
diagnostics or register/occupancy computation (fixed plausible numbers; the potential
block size is the largest warp multiple whose dynamic shared memory fits, calling the
block-size-to-shared-memory callback as the driver does).
"""

import bisect
import ctypes
import re
import threading

from cuda.bindings import driver as _real

SUCCESS = _real.CUresult.CUDA_SUCCESS
R = _real.CUresult

H100 = {
    "COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0,
    "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024, "MULTIPROCESSOR_COUNT": 132,
    "WARP_SIZE": 32, "PCI_DOMAIN_ID": 0, "PCI_BUS_ID": 0x18, "PCI_DEVICE_ID": 0,
    "UNIFIED_ADDRESSING": 1, "CAN_MAP_HOST_MEMORY": 1, "MANAGED_MEMORY": 1,
    "COOPERATIVE_LAUNCH": 1, "CONCURRENT_MANAGED_ACCESS": 1,
}
TOTAL_MEMORY = 80 * 2**30
DEVICE_BASE = 0xD000_0000_0000


def binding_cuda_version():
    """The CUDA version the fake driver reports by default, as the driver reports one (13050):
    that of the installed bindings, or of the toolkit's NVVM when it is newer (cuda-bindings
    13.0.2 with a CUDA 13.1 toolkit, as in the lowest-versions job), since a real driver older
    than the toolkit would need nvJitLink, which most tests stub out.  Tests of older drivers
    pass ``version=``."""
    import cuda.bindings

    major, minor = cuda.bindings.__version__.split(".")[:2]
    version = int(major) * 1000 + int(minor) * 10
    try:
        from numba_cuda.toolkit import get_toolkit

        nvvm = get_toolkit().components.get("nvvm")
        t_major, t_minor = (int(x) for x in str(nvvm.version).split(".")[:2])
    except Exception:  # noqa: BLE001 - no toolkit or no version: the bindings' version
        return version
    return max(version, t_major * 1000 + t_minor * 10)


def _no_driver_library(exc):
    """The exception a binding raises when libcuda cannot be loaded: cuda-pathfinder's
    DynamicLibNotFoundError (cuda-bindings 12.9.4+/13.x), a RuntimeError "Failed to dlopen
    libcuda.so.1" from older 12.9 releases."""
    return type(exc).__name__ == "DynamicLibNotFoundError" or (
        isinstance(exc, RuntimeError) and "dlopen" in str(exc) and "libcuda" in str(exc))


def _probe_real_binding():
    """True when calling the real binding is safe (it cannot reach a driver)."""
    try:
        _real.cuDriverGetVersion()
    except Exception as exc:  # noqa: BLE001
        return _no_driver_library(exc)
    return False


_CHECK_TYPES = _probe_real_binding()


def _check_types(name, args):
    if not _CHECK_TYPES:
        return
    try:
        getattr(_real, name)(*args)
    except TypeError:
        raise
    except Exception as exc:  # noqa: BLE001 - converted fine, then no library
        if not _no_driver_library(exc):
            raise


def _elf_data_symbols(image):
    """(name, size) of each data object (STT_OBJECT) a 64-bit little-endian ELF defines."""
    import struct

    if image[4] != 2 or image[5] != 1:
        raise DriverCallError(R.CUDA_ERROR_INVALID_IMAGE)
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize)
                for i in range(shnum)]
    found = []
    for sh_type, sh_offset, sh_size, sh_link, sh_entsize in (
            (sec[1], sec[4], sec[5], sec[6], sec[9]) for sec in sections):
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh_link]
        str_off = strtab[4]
        for at in range(sh_offset, sh_offset + sh_size, sh_entsize or 24):
            st_name, st_info, _other, st_shndx, _value, st_size = struct.unpack_from(
                "<IBBHQQ", image, at)
            if st_info & 0xF == 1 and st_shndx != 0:  # STT_OBJECT, defined
                end = image.index(b"\0", str_off + st_name)
                found.append((image[str_off + st_name:end].decode(), st_size))
    return found


class DriverCallError(Exception):
    def __init__(self, code):
        self.code = code


class _Module:
    def __init__(self, handle, image, kind):
        self.handle = handle
        self.image = image
        self.kind = kind  # "ptx" or "cubin"
        self.params = {}   # entry -> [param byte sizes]
        self.globals = {}  # name -> device address
        self.functions = {}


class FakeDriver:
    """Install with ``install(monkeypatch)``; inspect ``log``, ``launches``, ``allocations``."""

    def __init__(self, ndevices=1, version=None, attributes=None):
        self.version = binding_cuda_version() if version is None else version
        self.ndevices = ndevices
        self.attributes = dict(H100, **(attributes or {}))
        self.log = []
        self.launches = []
        self.func_attributes = {"NUM_REGS": 32, "SHARED_SIZE_BYTES": 0, "LOCAL_SIZE_BYTES": 0,
                                "CONST_SIZE_BYTES": 0, "MAX_THREADS_PER_BLOCK": 1024,
                                "MAX_DYNAMIC_SHARED_SIZE_BYTES": 48 * 1024}
        self.occupancy_per_sm = 2
        #: called as ``on_launch(fake, launch)`` after a launch is recorded: a test's stand-in
        #: for what the kernel would write (``fake.write(address, bytes)``)
        self.on_launch = None
        self._lock = threading.RLock()
        self._tls = threading.local()
        self._next = DEVICE_BASE
        self._mem = {}        # fake base -> (real base, size, ctx handle or None, keep, kind)
        self._bases = []
        self._host = {}       # host pointer -> (keep, size, kind)
        self._registered = {}
        self._primary = {}    # ordinal -> retain count
        self._handles = 0x1000
        self._streams = {}
        self._events = {}
        self._modules = {}
        self._functions = {}  # handle -> (module, name, attrs)
        self._clock = 0.0
        self._queued = []     # page-locked async copies not done yet
        self._ipc_opened = {}  # device address of an opened IPC mapping -> exported base
        self._captures = {}   # capturing stream value -> {"mode", "nodes", "invalid"}
        self.graphs = {}      # CUgraph value -> [nodes]
        self.graph_execs = {}  # CUgraphExec value -> [nodes]
        self.initialised = False

    # -- plumbing -------------------------------------------------------------------
    def install(self, monkeypatch):
        from numba_cuda.runtime import context_stack, cudriver, devices

        monkeypatch.setattr(cudriver, "_driver", self)
        monkeypatch.setattr(cudriver, "_failure", None)
        monkeypatch.setattr(devices, "_devices", None)
        monkeypatch.setattr(context_stack, "_tls", threading.local())
        self.initialised = True
        return self

    def __getattr__(self, name):
        if name.startswith("cu") and not name.startswith("cuda"):
            raise AttributeError(f"the fake driver does not implement {name}")
        return getattr(_real, name)  # types, enums and constants of the real binding

    def _new_handle(self):
        self._handles += 0x10
        return self._handles

    def _stack(self):
        stack = getattr(self._tls, "stack", None)
        if stack is None:
            stack = self._tls.stack = []
        return stack

    def _current(self):
        stack = self._stack()
        if not stack or int(stack[-1]) == 0:
            raise DriverCallError(R.CUDA_ERROR_INVALID_CONTEXT)
        handle = int(stack[-1])
        if not any(0xC000 + o == handle and n > 0 for o, n in self._primary.items()):
            raise DriverCallError(R.CUDA_ERROR_CONTEXT_IS_DESTROYED)
        return handle

    def _call(self, name, args, body):
        _check_types(name, args)
        self.log.append((name,) + tuple(args))
        try:
            with self._lock:
                out = body()
        except DriverCallError as exc:
            return (exc.code,)
        if out is None:
            return (SUCCESS,)
        if isinstance(out, tuple):
            return (SUCCESS,) + out
        return (SUCCESS, out)

    # -- memory translation ---------------------------------------------------------
    def _resolve(self, address, nbytes):
        """Real host address for ``nbytes`` at device address ``address``."""
        address = int(address)
        i = bisect.bisect_right(self._bases, address) - 1
        if i >= 0:
            base = self._bases[i]
            real, size = self._mem[base][0], self._mem[base][1]
            if address + nbytes <= base + size:
                return real + (address - base)
        raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)

    def _add_device_memory(self, fake, real, size, kind, keep):
        self._mem[fake] = (real, size, self._current(), keep, kind)
        bisect.insort(self._bases, fake)

    def _drop_device_memory(self, fake):
        self.flush()  # frees synchronise: no queued copy may outlive its memory
        if fake not in self._mem:
            raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
        del self._mem[fake]
        self._bases.remove(fake)

    def read(self, address, nbytes):
        """Bytes of device memory (for tests)."""
        return ctypes.string_at(self._resolve(address, nbytes), nbytes)

    def write(self, address, data):
        ctypes.memmove(self._resolve(address, len(data)), bytes(data), len(data))

    @property
    def allocations(self):
        return {base: entry[1] for base, entry in self._mem.items() if entry[4] == "device"}

    # -- initialisation and devices -------------------------------------------------
    def cuInit(self, flags):
        return self._call("cuInit", (flags,), lambda: None)

    def cuDriverGetVersion(self):
        return self._call("cuDriverGetVersion", (), lambda: self.version)

    def cuGetErrorString(self, res):
        return (SUCCESS, f"fake driver error {getattr(res, 'name', res)}".encode())

    def cuDeviceGetCount(self):
        return self._call("cuDeviceGetCount", (), lambda: self.ndevices)

    def _device(self, dev):
        ordinal = int(dev)
        if not 0 <= ordinal < self.ndevices:
            raise DriverCallError(R.CUDA_ERROR_INVALID_DEVICE)
        return ordinal

    def cuDeviceGet(self, ordinal):
        return self._call("cuDeviceGet", (ordinal,),
                          lambda: _real.CUdevice(self._device(ordinal)))

    def cuDeviceGetName(self, length, dev):
        def body():
            name = f"NVIDIA H100 80GB HBM3 (fake {self._device(dev)})".encode()
            return (name + b"\0" * length)[:length]
        return self._call("cuDeviceGetName", (length, dev), body)

    def cuDeviceGetAttribute(self, attrib, dev):
        def body():
            ordinal = self._device(dev)
            key = attrib.name.replace("CU_DEVICE_ATTRIBUTE_", "")
            if key == "PCI_BUS_ID":  # each device in its own PCI slot
                return self.attributes[key] + ordinal
            return self.attributes.get(key, 0)
        return self._call("cuDeviceGetAttribute", (attrib, dev), body)

    def cuDeviceGetUuid(self, dev):
        def body():
            uuid = _real.CUuuid()
            return uuid
        return self._call("cuDeviceGetUuid", (dev,), body)

    def cuDeviceTotalMem(self, dev):
        return self._call("cuDeviceTotalMem", (dev,), lambda: (self._device(dev), TOTAL_MEMORY)[1])

    # -- contexts -------------------------------------------------------------------
    def cuDevicePrimaryCtxRetain(self, dev):
        def body():
            ordinal = self._device(dev)
            self._primary[ordinal] = self._primary.get(ordinal, 0) + 1
            return _real.CUcontext(0xC000 + ordinal)
        return self._call("cuDevicePrimaryCtxRetain", (dev,), body)

    def cuDevicePrimaryCtxRelease(self, dev):
        def body():
            ordinal = self._device(dev)
            if self._primary.get(ordinal, 0) <= 0:
                raise DriverCallError(R.CUDA_ERROR_INVALID_CONTEXT)
            self._primary[ordinal] -= 1
            if self._primary[ordinal] == 0:  # destroyed: its memory goes with it
                handle = 0xC000 + ordinal
                for base in [b for b, e in self._mem.items() if e[2] == handle]:
                    self._drop_device_memory(base)
        return self._call("cuDevicePrimaryCtxRelease", (dev,), body)

    def cuCtxSetCurrent(self, ctx):
        def body():
            stack = self._stack()
            if stack:
                stack[-1] = ctx
            else:
                stack.append(ctx)
        return self._call("cuCtxSetCurrent", (ctx,), body)

    def cuCtxGetCurrent(self):
        stack = self._stack()
        return self._call("cuCtxGetCurrent", (),
                          lambda: _real.CUcontext(int(stack[-1]) if stack else 0))

    def cuCtxGetDevice(self):
        return self._call("cuCtxGetDevice", (),
                          lambda: _real.CUdevice(self._current() - 0xC000))

    def cuCtxPushCurrent(self, ctx):
        return self._call("cuCtxPushCurrent", (ctx,), lambda: self._stack().append(ctx))

    def cuCtxPopCurrent(self):
        def body():
            stack = self._stack()
            if not stack:
                raise DriverCallError(R.CUDA_ERROR_INVALID_CONTEXT)
            return _real.CUcontext(int(stack.pop()))
        return self._call("cuCtxPopCurrent", (), body)

    def cuCtxSynchronize(self):
        return self._call("cuCtxSynchronize", (),
                          lambda: (self._current(), self._refuse_sync(), self.flush())[2])

    # -- memory ---------------------------------------------------------------------
    def cuMemGetInfo(self):
        def body():
            self._current()
            used = sum(self.allocations.values())
            return (TOTAL_MEMORY - used, TOTAL_MEMORY)
        return self._call("cuMemGetInfo", (), body)

    def cuMemAlloc(self, size):
        def body():
            if size <= 0:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            self._current()
            buf = ctypes.create_string_buffer(int(size))
            fake = self._next
            self._next += (int(size) + 0xFFFF) & ~0xFFFF
            self._add_device_memory(fake, ctypes.addressof(buf), int(size), "device", buf)
            return _real.CUdeviceptr(fake)
        return self._call("cuMemAlloc", (size,), body)

    def cuMemAllocManaged(self, size, flags):
        def body():
            self._current()
            buf = ctypes.create_string_buffer(int(size))
            real = ctypes.addressof(buf)
            self._add_device_memory(real, real, int(size), "managed", buf)
            return _real.CUdeviceptr(real)
        return self._call("cuMemAllocManaged", (size, flags), body)

    def cuMemFree(self, dptr):
        def body():
            self._current()
            self._drop_device_memory(int(dptr))
        return self._call("cuMemFree", (dptr,), body)

    def _allocation_of(self, address):
        """The base of the device allocation (cuMemAlloc or IPC mapping) holding ``address``."""
        address = int(address)
        i = bisect.bisect_right(self._bases, address) - 1
        if i >= 0:
            base = self._bases[i]
            entry = self._mem[base]
            if entry[4] in ("device", "ipc") and address < base + max(entry[1], 1):
                return base
        raise DriverCallError(R.CUDA_ERROR_NOT_FOUND)

    def cuMemGetAddressRange(self, dptr):
        def body():
            self._current()
            base = self._allocation_of(dptr)
            return (_real.CUdeviceptr(base), self._mem[base][1])
        return self._call("cuMemGetAddressRange", (dptr,), body)

    _IPC_MAGIC = b"fake-cuda-ipc\0"

    def cuIpcGetMemHandle(self, dptr):
        def body():
            self._current()
            base = int(dptr)
            if base not in self._mem or self._mem[base][4] != "device":
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)  # not an allocation's base
            handle = _real.CUipcMemHandle()
            raw = self._IPC_MAGIC + base.to_bytes(8, "little")
            ctypes.memmove(handle.getPtr(), raw, len(raw))
            return handle
        return self._call("cuIpcGetMemHandle", (dptr,), body)

    def cuIpcOpenMemHandle(self, handle, flags):
        def body():
            self._current()
            raw = ctypes.string_at(handle.getPtr(), 64)
            if not raw.startswith(self._IPC_MAGIC):
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            at = len(self._IPC_MAGIC)
            base = int.from_bytes(raw[at:at + 8], "little")
            entry = self._mem.get(base)
            if entry is None or entry[4] != "device":
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)  # freed meanwhile
            fake = self._next
            self._next += (entry[1] + 0xFFFF) & ~0xFFFF
            self._add_device_memory(fake, entry[0], entry[1], "ipc", entry[3])
            self._ipc_opened[fake] = base
            return _real.CUdeviceptr(fake)
        return self._call("cuIpcOpenMemHandle", (handle, flags), body)

    def cuIpcCloseMemHandle(self, dptr):
        def body():
            self._current()
            if int(dptr) not in self._ipc_opened:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            del self._ipc_opened[int(dptr)]
            self._drop_device_memory(int(dptr))
        return self._call("cuIpcCloseMemHandle", (dptr,), body)

    @property
    def ipc_mappings(self):
        """Device addresses of the IPC mappings open now."""
        return sorted(self._ipc_opened)

    def cuMemsetD8Async(self, dst, value, count, stream):
        def body():
            self._current()
            self._stream(stream)
            self._resolve(dst, int(count))
            capture = self._capture_of(stream)
            node = {"kind": "memset", "dst": int(dst), "value": int(value),
                    "nbytes": int(count), "handle": self._new_handle()}
            if capture is not None:
                capture["nodes"].append(node)
                return
            self.flush()
            self._run_node(node, None, int(stream))
        return self._call("cuMemsetD8Async", (dst, value, count, stream), body)

    def cuMemsetD8(self, dst, value, count):
        def body():
            self._current()
            self._capture_of(None)
            self.flush()
            real = self._resolve(dst, int(count))
            ctypes.memset(real, int(value), int(count))
        return self._call("cuMemsetD8", (dst, value, count), body)

    def cuMemHostAlloc(self, size, flags):
        def body():
            self._current()
            buf = ctypes.create_string_buffer(int(size))
            real = ctypes.addressof(buf)
            self._host[real] = (buf, int(size), flags)
            if flags & _real.CU_MEMHOSTALLOC_DEVICEMAP:
                self._add_device_memory(real, real, int(size), "mapped", buf)
            return real
        return self._call("cuMemHostAlloc", (size, flags), body)

    def cuMemFreeHost(self, p):
        def body():
            self.flush()
            if int(p) not in self._host:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            del self._host[int(p)]
            if int(p) in self._mem:
                self._drop_device_memory(int(p))
        return self._call("cuMemFreeHost", (p,), body)

    def cuMemHostRegister(self, p, size, flags):
        def body():
            self._current()
            if int(p) in self._registered:
                raise DriverCallError(R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
            self._registered[int(p)] = (int(size), flags)
            if flags & _real.CU_MEMHOSTREGISTER_DEVICEMAP:
                self._add_device_memory(int(p), int(p), int(size), "mapped", None)
        return self._call("cuMemHostRegister", (p, size, flags), body)

    def cuMemHostUnregister(self, p):
        def body():
            self.flush()
            if int(p) not in self._registered:
                raise DriverCallError(R.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
            del self._registered[int(p)]
            if int(p) in self._mem:
                self._drop_device_memory(int(p))
        return self._call("cuMemHostUnregister", (p,), body)

    def cuMemHostGetDevicePointer(self, p, flags):
        def body():
            self._current()
            if flags != 0:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            self._resolve(int(p), 1)  # must be mapped
            return _real.CUdeviceptr(int(p))
        return self._call("cuMemHostGetDevicePointer", (p, flags), body)

    def _host_address(self, p):
        if isinstance(p, int) and 0 < p < DEVICE_BASE:
            return p
        raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)

    def _page_locked(self, address):
        for base, size in [(b, e[1]) for b, e in self._host.items()] + \
                [(b, e[0]) for b, e in self._registered.items()]:
            if base <= address < base + size:
                return True
        return False

    def flush(self):
        """Complete every queued page-locked copy (what a synchronisation does)."""
        queued, self._queued = self._queued, []
        for copy in queued:
            copy()

    def _copy(self, name, args, dst, src, nbytes, stream=None, host=None):
        def body():
            self._current()
            capture = self._capture_of(stream)
            if capture is not None:  # the node copies between the same addresses at each launch
                dst(), src()  # checked now, as the driver checks a memcpy node's operands
                capture["nodes"].append({"kind": "memcpy", "call": name, "dst": dst, "src": src,
                                         "nbytes": int(nbytes), "handle": self._new_handle()})
                return
            if stream is None:
                self.flush()  # synchronous copies wait for earlier work
            else:
                self._stream(stream)
            to, frm = dst(), src()
            copy = lambda: ctypes.memmove(to, frm, int(nbytes))  # noqa: E731
            if stream is not None and host is not None and self._page_locked(host):
                self._queued.append(copy)
            else:
                copy()
        return self._call(name, args, body)

    def cuMemcpyHtoD(self, dst, src, n):
        return self._copy("cuMemcpyHtoD", (dst, src, n), lambda: self._resolve(dst, n),
                          lambda: self._host_address(src), n)

    def cuMemcpyHtoDAsync(self, dst, src, n, stream):
        return self._copy("cuMemcpyHtoDAsync", (dst, src, n, stream),
                          lambda: self._resolve(dst, n), lambda: self._host_address(src), n,
                          stream, src)

    def cuMemcpyDtoH(self, dst, src, n):
        return self._copy("cuMemcpyDtoH", (dst, src, n), lambda: self._host_address(dst),
                          lambda: self._resolve(src, n), n)

    def cuMemcpyDtoHAsync(self, dst, src, n, stream):
        return self._copy("cuMemcpyDtoHAsync", (dst, src, n, stream),
                          lambda: self._host_address(dst), lambda: self._resolve(src, n), n,
                          stream, dst)

    def cuMemcpyDtoD(self, dst, src, n):
        return self._copy("cuMemcpyDtoD", (dst, src, n), lambda: self._resolve(dst, n),
                          lambda: self._resolve(src, n), n)

    def cuMemcpyDtoDAsync(self, dst, src, n, stream):
        return self._copy("cuMemcpyDtoDAsync", (dst, src, n, stream),
                          lambda: self._resolve(dst, n), lambda: self._resolve(src, n), n,
                          stream)

    def _context_of_memory(self, address):
        address = int(address)
        i = bisect.bisect_right(self._bases, address) - 1
        if i < 0:
            raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
        return self._mem[self._bases[i]][2]

    def _peer_copy(self, name, args, dst, dst_ctx, src, src_ctx, n, stream=None):
        def check():
            for address, ctx in ((dst, dst_ctx), (src, src_ctx)):
                if self._context_of_memory(address) != int(ctx):
                    raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            return self._resolve(dst, n)
        return self._copy(name, args, check, lambda: self._resolve(src, n), n, stream)

    def cuMemcpyPeer(self, dst, dst_ctx, src, src_ctx, n):
        return self._peer_copy("cuMemcpyPeer", (dst, dst_ctx, src, src_ctx, n), dst, dst_ctx,
                               src, src_ctx, n)

    def cuMemcpyPeerAsync(self, dst, dst_ctx, src, src_ctx, n, stream):
        return self._peer_copy("cuMemcpyPeerAsync", (dst, dst_ctx, src, src_ctx, n, stream),
                               dst, dst_ctx, src, src_ctx, n, stream)

    # -- peer access ------------------------------------------------------------------
    #: whether two different fake devices can access each other's memory
    peer_capable = True

    def cuDeviceCanAccessPeer(self, dev, peer):
        def body():
            a, b = self._device(dev), self._device(peer)
            return int(a != b and self.peer_capable)
        return self._call("cuDeviceCanAccessPeer", (dev, peer), body)

    def cuCtxEnablePeerAccess(self, peer_ctx, flags):
        def body():
            current = self._current()
            peers = self.__dict__.setdefault("peers", set())
            if not self.peer_capable or int(peer_ctx) == current:
                raise DriverCallError(R.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
            if (current, int(peer_ctx)) in peers:
                raise DriverCallError(R.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
            peers.add((current, int(peer_ctx)))
        return self._call("cuCtxEnablePeerAccess", (peer_ctx, flags), body)

    def cuMemsetD32(self, dst, value, count):
        def body():
            self._current()
            self._capture_of(None)
            real = self._resolve(dst, 4 * int(count))
            (ctypes.c_uint32 * int(count)).from_address(real)[:] = [int(value)] * int(count)
        return self._call("cuMemsetD32", (dst, value, count), body)

    # -- stream capture and graphs -----------------------------------------------------
    def _capture_of(self, stream):
        """The capture that work issued on ``stream`` (None: synchronous) goes into, or None to
        run it now; fails for work that conflicts with a capture in progress."""
        if not self._captures:
            return None
        if stream is None or int(stream) in (0, 1):  # the legacy stream syncs with all
            for capture in self._captures.values():
                capture["invalid"] = True
            raise DriverCallError(R.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
        return self._captures.get(int(stream))

    def _refuse_sync(self, stream=None):
        """Synchronising a capturing stream (or, ``stream`` None, the context) during a capture."""
        if self._captures and (stream is None or int(stream) in self._captures):
            for capture in self._captures.values():
                capture["invalid"] = True
            raise DriverCallError(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)

    def cuStreamBeginCapture(self, stream, mode):
        def body():
            self._current()
            value = self._stream(stream)
            if value in (0, 1):
                raise DriverCallError(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
            if value in self._captures:
                raise DriverCallError(R.CUDA_ERROR_ILLEGAL_STATE)
            self._captures[value] = {"mode": _real.CUstreamCaptureMode(int(mode)), "nodes": [],
                                     "invalid": False}
        return self._call("cuStreamBeginCapture", (stream, mode), body)

    def cuStreamIsCapturing(self, stream):
        def body():
            capture = self._captures.get(self._stream(stream))
            status = _real.CUstreamCaptureStatus
            if capture is None:
                return status.CU_STREAM_CAPTURE_STATUS_NONE
            return (status.CU_STREAM_CAPTURE_STATUS_INVALIDATED if capture["invalid"]
                    else status.CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return self._call("cuStreamIsCapturing", (stream,), body)

    def cuStreamEndCapture(self, stream):
        def body():
            capture = self._captures.pop(self._stream(stream), None)
            if capture is None:
                raise DriverCallError(R.CUDA_ERROR_ILLEGAL_STATE)
            if capture["invalid"]:
                raise DriverCallError(R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
            handle = self._new_handle()
            self.graphs[handle] = capture["nodes"]
            return _real.CUgraph(handle)
        return self._call("cuStreamEndCapture", (stream,), body)

    def _graph(self, graph):
        nodes = self.graphs.get(int(graph))
        if nodes is None:
            raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
        return nodes

    def _graph_exec(self, exec_):
        nodes = self.graph_execs.get(int(exec_))
        if nodes is None:
            raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
        return nodes

    def cuGraphGetNodes(self, graph, num_nodes=0):
        def body():
            nodes = self._graph(graph)
            handles = [_real.CUgraphNode(node["handle"]) for node in nodes[:int(num_nodes)]]
            return (handles, len(nodes) if not num_nodes else len(handles))
        return self._call("cuGraphGetNodes", (graph, num_nodes), body)

    def cuGraphInstantiate(self, graph, flags):
        def body():
            self._current()
            nodes = [dict(node) for node in self._graph(graph)]
            handle = self._new_handle()
            self.graph_execs[handle] = nodes
            return _real.CUgraphExec(handle)
        return self._call("cuGraphInstantiate", (graph, flags), body)

    def cuGraphLaunch(self, exec_, stream):
        def body():
            self._current()
            nodes = self._graph_exec(exec_)
            capture = self._capture_of(self._stream(stream))
            if capture is not None:  # a graph launched into a capture: its nodes, in order
                capture["nodes"].extend(dict(node, handle=self._new_handle()) for node in nodes)
                return
            self.flush()
            for node in nodes:
                self._run_node(node, int(exec_), int(stream))
        return self._call("cuGraphLaunch", (exec_, stream), body)

    def _run_node(self, node, exec_, stream):
        if node["kind"] == "kernel":
            launch = dict(node["launch"], stream=stream, graph=exec_)
            self.launches.append(launch)
            if self.on_launch is not None:
                self.on_launch(self, launch)
        elif node["kind"] == "memcpy":
            ctypes.memmove(node["dst"](), node["src"](), node["nbytes"])
        else:  # memset
            ctypes.memset(self._resolve(node["dst"], node["nbytes"]), node["value"],
                          node["nbytes"])

    #: the CUgraphExecUpdateResult of the last cuGraphExecUpdate (for tests)
    last_update_result = None

    def cuGraphExecUpdate(self, exec_, graph):
        _check_types("cuGraphExecUpdate", (exec_, graph))
        self.log.append(("cuGraphExecUpdate", exec_, graph))
        info = _real.CUgraphExecUpdateResultInfo()
        result = _real.CUgraphExecUpdateResult
        with self._lock:
            try:
                old, new = self._graph_exec(exec_), self._graph(graph)
            except DriverCallError as exc:
                return (exc.code, info)
            outcome = result.CU_GRAPH_EXEC_UPDATE_SUCCESS
            if len(old) != len(new):
                outcome = result.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
            else:
                for a, b in zip(old, new):
                    if a["kind"] != b["kind"]:
                        outcome = result.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED
                    elif a["kind"] == "memcpy" and a["call"] != b["call"]:
                        outcome = result.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED
                    elif a["kind"] == "kernel" and \
                            a["launch"]["kind"] != b["launch"]["kind"]:
                        outcome = result.CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE
                    if outcome != result.CU_GRAPH_EXEC_UPDATE_SUCCESS:
                        info.errorNode = _real.CUgraphNode(b["handle"])
                        info.errorFromNode = _real.CUgraphNode(a["handle"])
                        break
            info.result = outcome
            self.last_update_result = outcome
            if outcome != result.CU_GRAPH_EXEC_UPDATE_SUCCESS:
                return (R.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, info)
            self.graph_execs[int(exec_)] = [dict(node) for node in new]
            return (SUCCESS, info)

    def cuGraphExecDestroy(self, exec_):
        def body():
            self._graph_exec(exec_)
            del self.graph_execs[int(exec_)]
        return self._call("cuGraphExecDestroy", (exec_,), body)

    def cuGraphDestroy(self, graph):
        def body():
            self._graph(graph)
            del self.graphs[int(graph)]
        return self._call("cuGraphDestroy", (graph,), body)

    # -- streams and events ---------------------------------------------------------
    def _stream(self, stream):
        value = int(stream)
        if value in (0, 1, 2):
            return value
        if value not in self._streams:
            raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
        return value

    def cuStreamCreate(self, flags):
        def body():
            self._current()
            handle = self._new_handle()
            self._streams[handle] = int(flags)
            return _real.CUstream(handle)
        return self._call("cuStreamCreate", (flags,), body)

    def cuStreamDestroy(self, stream):
        def body():
            if self._stream(stream) in (0, 1, 2):
                raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
            del self._streams[int(stream)]
        return self._call("cuStreamDestroy", (stream,), body)

    def cuStreamSynchronize(self, stream):
        return self._call("cuStreamSynchronize", (stream,),
                          lambda: (self._current(), self._stream(stream),
                                   self._refuse_sync(stream), self.flush())[3])

    def cuStreamQuery(self, stream):
        return self._call("cuStreamQuery", (stream,), lambda: (self._stream(stream), None)[1])

    def cuStreamWaitEvent(self, stream, event, flags):
        def body():
            self._stream(stream)
            self._event(event)
        return self._call("cuStreamWaitEvent", (stream, event, flags), body)

    def _event(self, event):
        if int(event) not in self._events:
            raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
        return self._events[int(event)]

    def cuEventCreate(self, flags):
        def body():
            self._current()
            handle = self._new_handle()
            self._events[handle] = {"flags": int(flags), "time": None}
            return _real.CUevent(handle)
        return self._call("cuEventCreate", (flags,), body)

    def cuEventDestroy(self, event):
        def body():
            self._event(event)
            del self._events[int(event)]
        return self._call("cuEventDestroy", (event,), body)

    def cuEventRecord(self, event, stream):
        def body():
            ev = self._event(event)
            self._stream(stream)
            self._clock += 0.25
            ev["time"] = self._clock
        return self._call("cuEventRecord", (event, stream), body)

    def cuEventSynchronize(self, event):
        return self._call("cuEventSynchronize", (event,),
                          lambda: (self._event(event), self.flush())[1])

    def cuEventQuery(self, event):
        return self._call("cuEventQuery", (event,), lambda: (self._event(event), None)[1])

    def cuEventElapsedTime(self, start, end):
        def body():
            a, b = self._event(start), self._event(end)
            if a["time"] is None or b["time"] is None:
                raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
            if (a["flags"] | b["flags"]) & int(_real.CUevent_flags.CU_EVENT_DISABLE_TIMING):
                raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
            return float(b["time"] - a["time"])
        return self._call("cuEventElapsedTime", (start, end), body)

    # -- modules and launches -------------------------------------------------------
    _ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)", re.S)
    _PARAM = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+[\w$]+(?:\[(\d+)\])?")
    _GLOBAL = re.compile(r"\.global\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)(?:\[(\d+)\])?")
    _SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4,
              "u32": 4, "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}

    def _load(self, name, args, image):
        def body():
            self._current()
            data = bytes(image)
            handle = self._new_handle()
            if data.startswith(b"\x7fELF"):
                module = _Module(handle, data, "cubin")
                for gname, size in _elf_data_symbols(data):
                    buf = ctypes.create_string_buffer(max(size, 1))
                    fake = self._next
                    self._next += 0x10000
                    self._add_device_memory(fake, ctypes.addressof(buf), size, "global", buf)
                    module.globals[gname] = (fake, size)
            else:
                if not data.endswith(b"\0"):
                    raise DriverCallError(R.CUDA_ERROR_INVALID_IMAGE)  # PTX must be NUL-ended
                text = data[:-1].decode()
                if ".entry" not in text or ".target" not in text:
                    raise DriverCallError(R.CUDA_ERROR_INVALID_PTX)
                module = _Module(handle, data, "ptx")
                for entry, params in self._ENTRY.findall(text):
                    module.params[entry] = [
                        self._SIZES[ty] * int(count or 1)
                        for _align, ty, count in self._PARAM.findall(params)]
                for _align, ty, gname, count in self._GLOBAL.findall(text):
                    size = self._SIZES.get(ty, 1) * int(count or 1)
                    buf = ctypes.create_string_buffer(size)
                    fake = self._next
                    self._next += 0x10000
                    self._add_device_memory(fake, ctypes.addressof(buf), size, "global", buf)
                    module.globals[gname] = (fake, size)
            self._modules[handle] = module
            return _real.CUmodule(handle)
        return self._call(name, args, body)

    def cuModuleLoadData(self, image):
        return self._load("cuModuleLoadData", (image,), image)

    def cuModuleLoadDataEx(self, image, nopts, opts, values):
        if len(opts) != nopts or len(values) != nopts:
            return (R.CUDA_ERROR_INVALID_VALUE,)
        return self._load("cuModuleLoadDataEx", (image, nopts, opts, values), image)

    def _module(self, hmod):
        module = self._modules.get(int(hmod))
        if module is None:
            raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
        return module

    def cuModuleGetFunction(self, hmod, name):
        def body():
            module = self._module(hmod)
            entry = name.decode()
            if module.kind == "ptx" and entry not in module.params:
                raise DriverCallError(R.CUDA_ERROR_NOT_FOUND)
            handle = self._new_handle()
            self._functions[handle] = (module, entry, dict(self.func_attributes))
            return _real.CUfunction(handle)
        return self._call("cuModuleGetFunction", (hmod, name), body)

    def cuModuleGetGlobal(self, hmod, name):
        def body():
            module = self._module(hmod)
            found = module.globals.get(name.decode())
            if found is None:
                raise DriverCallError(R.CUDA_ERROR_NOT_FOUND)
            return (_real.CUdeviceptr(found[0]), found[1])
        return self._call("cuModuleGetGlobal", (hmod, name), body)

    def _function(self, f):
        found = self._functions.get(int(f))
        if found is None:
            raise DriverCallError(R.CUDA_ERROR_INVALID_HANDLE)
        return found

    def cuFuncGetAttribute(self, attrib, f):
        def body():
            return self._function(f)[2][attrib.name.replace("CU_FUNC_ATTRIBUTE_", "")]
        return self._call("cuFuncGetAttribute", (attrib, f), body)

    def cuFuncSetAttribute(self, f, attrib, value):
        def body():
            attrs = self._function(f)[2]
            key = attrib.name.replace("CU_FUNC_ATTRIBUTE_", "")
            if key == "PREFERRED_SHARED_MEMORY_CARVEOUT":
                if not -1 <= value <= 100:
                    raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
                attrs[key] = int(value)
                return None
            if key != "MAX_DYNAMIC_SHARED_SIZE_BYTES":
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            if value + attrs["SHARED_SIZE_BYTES"] > self.attributes[
                    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            attrs[key] = int(value)
        return self._call("cuFuncSetAttribute", (f, attrib, value), body)

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(self, f, block, shared):
        return self._call("cuOccupancyMaxActiveBlocksPerMultiprocessor", (f, block, shared),
                          lambda: (self._function(f), self.occupancy_per_sm)[1])

    def cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(self, f, block, shared, flags):
        return self._call("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                          (f, block, shared, flags),
                          lambda: (self._function(f), self.occupancy_per_sm)[1])

    def _potential_block_size(self, f, b2d, shared, limit):
        """The largest multiple of the warp size up to ``limit`` (0: the kernel's limit) whose
        dynamic shared memory -- ``b2d(size)`` when ``b2d`` is not NULL (the callback is
        called, as the driver calls it), else ``shared`` -- fits the kernel's; the grid:
        ``occupancy_per_sm`` blocks on every multiprocessor."""
        attrs = self._function(f)[2]
        top = attrs["MAX_THREADS_PER_BLOCK"] if not limit else min(int(limit),
                                                                  attrs["MAX_THREADS_PER_BLOCK"])
        address = int(b2d)
        need = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)(address) if address else None
        warp = self.attributes["WARP_SIZE"]
        block = top - top % warp
        while block > 0:
            dynamic = need(block) if need is not None else int(shared)
            if dynamic <= attrs["MAX_DYNAMIC_SHARED_SIZE_BYTES"]:
                return self.occupancy_per_sm * self.attributes["MULTIPROCESSOR_COUNT"], block
            block -= warp
        return 0, 0

    def cuOccupancyMaxPotentialBlockSize(self, f, b2d, shared, limit):
        return self._call("cuOccupancyMaxPotentialBlockSize", (f, b2d, shared, limit),
                          lambda: self._potential_block_size(f, b2d, shared, limit))

    def cuOccupancyMaxPotentialBlockSizeWithFlags(self, f, b2d, shared, limit, flags):
        return self._call("cuOccupancyMaxPotentialBlockSizeWithFlags",
                          (f, b2d, shared, limit, flags),
                          lambda: self._potential_block_size(f, b2d, shared, limit))

    def _launch(self, name, args, f, grid, block, shared, stream, params, extra):
        def body():
            self._current()
            module, entry, attrs = self._function(f)
            self._stream(stream)
            capture = self._capture_of(stream)
            if capture is None:
                self.flush()  # the kernel runs after the work queued before it
            if shared > attrs["MAX_DYNAMIC_SHARED_SIZE_BYTES"]:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            if block[0] * block[1] * block[2] > attrs["MAX_THREADS_PER_BLOCK"]:
                raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
            values = None
            if module.kind == "ptx":
                sizes = module.params[entry]
                if sizes and not params:
                    raise DriverCallError(R.CUDA_ERROR_INVALID_VALUE)
                values = []
                if sizes:
                    ptrs = (ctypes.c_void_p * len(sizes)).from_address(int(params))
                    values = [ctypes.string_at(ptrs[i], size) for i, size in enumerate(sizes)]
            launch = {"entry": entry, "grid": tuple(grid), "block": tuple(block),
                      "shared": int(shared), "stream": int(stream), "params": values,
                      "kind": name, "module": module}
            if capture is not None:  # captured: runs at each cuGraphLaunch
                capture["nodes"].append({"kind": "kernel", "launch": launch,
                                         "handle": self._new_handle()})
                return
            self.launches.append(launch)
            if self.on_launch is not None:
                self.on_launch(self, launch)
        return self._call(name, args, body)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        return self._launch("cuLaunchKernel",
                            (f, gx, gy, gz, bx, by, bz, shared, stream, params, extra), f,
                            (gx, gy, gz), (bx, by, bz), shared, stream, params, extra)

    def cuLaunchCooperativeKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params):
        return self._launch("cuLaunchCooperativeKernel",
                            (f, gx, gy, gz, bx, by, bz, shared, stream, params), f,
                            (gx, gy, gz), (bx, by, bz), shared, stream, params, None)

    def cuProfilerStart(self):
        return self._call("cuProfilerStart", (), lambda: None)

    def cuProfilerStop(self):
        return self._call("cuProfilerStop", (), lambda: None)


def installed_for_launches(monkeypatch, ndevices=1):
    """A fixture body: the fake driver with ``ndevices`` devices installed, kernels loaded by the
    driver JIT path (PTX as is, unless a test asks for nvJitLink), and ``numba.cuda`` closed
    afterwards.  Use as ``yield from installed_for_launches(monkeypatch, ndevices=2)``."""
    drv = FakeDriver(ndevices=ndevices).install(monkeypatch)
    from numba_cuda.runtime import launch

    monkeypatch.setattr(launch, "_linker_version", lambda: None)
    yield drv
    from numba import cuda

    cuda.close()

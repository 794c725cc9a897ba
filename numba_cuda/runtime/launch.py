"""Kernel launch: configuration checks, loading, argument packing, ``cuLaunchKernel``.

What the dispatcher hands over is a :class:`numba_cuda.common.kernel_image.KernelImage` (a
frozen value the compiler or the disk cache builds); this module reads its fields.
``load_kernel(image, context)`` loads it in a context once (the one cache of loaded kernels:
``context.kernels``, keyed by the image) and returns the :class:`LoadedKernel`, whose
``launch(griddim, blockdim, stream, sharedmem, args)`` launches it.

Per (image, context) the module is loaded once and an
:class:`~numba_cuda.runtime.argpack.ArgPacker` is built once; launch
configurations already checked are remembered, so a repeated launch costs a
dictionary look-up, the packing and the driver call.
"""

import numbers

from numba_cuda.errors import LaunchConfigError, LinkerError
from numba_cuda.common.launch_dims import normalize_dims
from numba_cuda.runtime import cudriver
from numba_cuda.runtime.argpack import LaunchState
from numba_cuda.runtime.current_streams import as_stream
from numba_cuda.runtime.graph_capture import CAPTURES
from numba_cuda.runtime.streams import PER_THREAD_DEFAULT, per_thread_default_is_default

#: Dynamic shared memory a kernel may use without opting in (cuFuncSetAttribute).
DEFAULT_DYNAMIC_SHARED_LIMIT = 48 * 1024


# -- launch configuration (pure) ----------------------------------------------------
def _limit(limits, name, fallback=None):
    value = getattr(limits, name, None)
    if value is None and fallback is not None:
        value = getattr(limits, fallback, None)
    return value


def validate_launch_config(griddim, blockdim, sharedmem, limits, kernel_max_threads=None,
                           static_shared=0):
    """Check a launch configuration against a device's limits before the driver sees it.

    ``limits`` is anything with the device attribute names (a Device, or a
    fake in tests): MAX_THREADS_PER_BLOCK, MAX_BLOCK_DIM_X/Y/Z,
    MAX_GRID_DIM_X/Y/Z, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN (or
    MAX_SHARED_MEMORY_PER_BLOCK).  ``kernel_max_threads``: the kernel's own
    limit (register use); ``static_shared``: its static shared memory.
    Returns ``(grid, block, sharedmem)`` normalised; raises LaunchConfigError
    naming the limit and the value.
    """
    grid = normalize_dims(griddim, "griddim")
    block = normalize_dims(blockdim, "blockdim")
    if not isinstance(sharedmem, numbers.Integral) or isinstance(sharedmem, bool):
        raise LaunchConfigError(f"dynamic shared memory must be an int number of bytes, got "
                                f"{sharedmem!r}")
    if sharedmem < 0:
        raise LaunchConfigError(f"dynamic shared memory is {sharedmem} bytes: it cannot be "
                                f"negative")
    for axis, value in zip("XYZ", block):
        limit = _limit(limits, f"MAX_BLOCK_DIM_{axis}")
        if limit is not None and value > limit:
            raise LaunchConfigError(f"blockdim.{axis.lower()} is {value}, over this device's "
                                    f"MAX_BLOCK_DIM_{axis} of {limit}")
    threads = block[0] * block[1] * block[2]
    limit = _limit(limits, "MAX_THREADS_PER_BLOCK")
    if limit is not None and threads > limit:
        raise LaunchConfigError(f"blockdim {block} has {threads} threads per block, over this "
                                f"device's MAX_THREADS_PER_BLOCK of {limit}")
    if kernel_max_threads is not None and threads > kernel_max_threads:
        raise LaunchConfigError(
            f"blockdim {block} has {threads} threads per block, but this kernel can run at most "
            f"{kernel_max_threads} per block (its register use or launch_bounds limit it); "
            f"launch smaller blocks or compile with fewer registers (max_registers)")
    for axis, value in zip("XYZ", grid):
        limit = _limit(limits, f"MAX_GRID_DIM_{axis}")
        if limit is not None and value > limit:
            raise LaunchConfigError(f"griddim.{axis.lower()} is {value}, over this device's "
                                    f"MAX_GRID_DIM_{axis} of {limit}")
    limit = _limit(limits, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "MAX_SHARED_MEMORY_PER_BLOCK")
    if limit is not None and sharedmem + static_shared > limit:
        detail = f" plus {static_shared} bytes of static shared memory" if static_shared else ""
        raise LaunchConfigError(
            f"dynamic shared memory of {sharedmem} bytes{detail} is over this device's limit of "
            f"{limit} bytes per block (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)")
    return grid, block, int(sharedmem)


# -- loading ----------------------------------------------------------------------------
def driver_cuda_version():
    """The driver's CUDA version as ``(major, minor)``."""
    drv = cudriver.driver()
    number = cudriver.call(drv.cuDriverGetVersion)
    return (number // 1000, (number % 1000) // 10)


def _arch_for(ptx, device):
    from numba_cuda.runtime.ptx_compat import ptx_target

    target = ptx_target(ptx)
    major, minor = device.compute_capability
    device_arch = f"sm_{major}{minor}"
    if target and target[-1] in "af":  # arch-specific code runs on that arch only
        if target.rstrip("af") != device_arch:
            raise LinkerError(f"the kernel was compiled for {target} but device {device.id} is "
                              f"{device_arch}; compile it for the device's compute capability")
        return target
    if target and target.startswith("sm_"):
        wanted = int(target[3:])
        if wanted > major * 10 + minor:
            raise LinkerError(
                f"the kernel was compiled for {target}, newer than device {device.id} "
                f"({device.name}, compute capability {major}.{minor}); compile it for "
                f"compute capability {major}.{minor} or lower")
    return device_arch


def _linker_version():
    """(major, minor) of the toolkit's nvJitLink, or None when it is missing."""
    from numba_cuda.errors import ToolkitError
    from numba_cuda.linking import nvjitlink_version

    try:
        return tuple(nvjitlink_version())
    except ToolkitError:
        return None


def _arch_linker(arch, lto=False, max_registers=None, lineinfo=False, debug=False):
    from numba_cuda.linking import Linker

    class _ArchLinker(Linker):
        # arch-specific targets (sm_90a) are kept as they are
        arch = property(lambda self: arch)

    digits = arch[3:].rstrip("af")
    cc = (int(digits[:-1]), int(digits[-1]))
    return _ArchLinker(cc, lto=lto, max_registers=max_registers, debug=debug, lineinfo=lineinfo)


def link_cubin(ptx, arch, link_files=(), max_registers=None, lineinfo=False, debug=False,
               name="kernel"):
    """The kernel's PTX plus its link files, linked by nvJitLink into a cubin for ``arch``."""
    linker = _arch_linker(arch, False, max_registers, lineinfo, debug)
    linker.add_ptx(ptx, f"{name}.ptx")
    for item in link_files:
        linker.add(item)
    return linker.link()


def link_lto_cubin(ltoir, arch, link_files=(), max_registers=None, lineinfo=False, debug=False,
                   name="kernel"):
    """An ``lto=True`` kernel: its LTO-IR plus its link files (``.cu`` sources become LTO-IR
    too), optimised together and linked by nvJitLink into a cubin for ``arch``.  Raises
    ToolkitError naming nvJitLink when it is not installed."""
    from numba_cuda.linking import LTOIR

    linker = _arch_linker(arch, True, max_registers, lineinfo, debug)
    linker.add(LTOIR(ltoir, name=f"{name}.ltoir"))
    for item in link_files:
        linker.add(item)
    return linker.link()


def lto_arch(cc, device):
    """The ``sm_XY`` to link an LTO kernel compiled for ``cc`` on ``device`` (its own arch)."""
    major, minor = device.compute_capability
    if tuple(cc) > (major, minor):
        raise LinkerError(
            f"the kernel was compiled for compute capability {cc[0]}.{cc[1]}, newer than device "
            f"{device.id} ({device.name}, {major}.{minor}); compile it for {major}.{minor} or lower")
    return f"sm_{major}{minor}"


class LoadedKernel:
    """A kernel loaded in one context, with its packer and attributes."""

    #: kernel_errors.ErrorRecord of a kernel that reports exceptions (debug), else None
    error_record = None
    exceptions = None
    #: the shared-memory carveout set with set_shared_memory_carveout (None: never set)
    shared_memory_carveout = None

    def __init__(self, image, context):
        """Load ``image`` (a ``KernelImage``) in ``context``."""
        from numba_cuda.runtime.argpack import ArgPacker
        from numba_cuda.runtime.ptx_compat import plan_ptx_load, ptx_isa_version

        drv = cudriver.driver()
        self.context = context
        self.name = image.entry_name
        self.cooperative = image.cooperative
        lto = image.lto
        ptx = image.ptx
        if isinstance(ptx, str):
            ptx = ptx.encode()
        link_files = image.link_files
        max_registers = image.max_registers
        lineinfo = image.lineinfo
        debug = image.debug
        device = context.device

        linker = _linker_version()
        driver_version = driver_cuda_version()
        usable_linker = linker if (linker is not None and linker[0] <= driver_version[0]) else None
        if lto:
            plan = "lto"
            if linker is not None and usable_linker is None:
                raise LinkerError(
                    f"kernel {self.name} was compiled with lto=True, but the nvJitLink found "
                    f"(CUDA {linker[0]}.{linker[1]}) is newer than the driver (CUDA "
                    f"{driver_version[0]}.{driver_version[1]}); update the driver, or install "
                    f'the toolkit of the driver\'s CUDA major: pip install '
                    f'"numba-cuda[cu{driver_version[0]}]"')
        else:
            plan = plan_ptx_load(ptx_isa_version(ptx), driver_version, usable_linker)
        if plan == "ptx" and usable_linker is not None:
            plan = "cubin"  # nvJitLink gives full error logs and honours every option
        if link_files and plan not in ("cubin", "lto"):
            raise LinkerError(
                f"kernel {self.name} links {len(link_files)} file(s), which needs nvJitLink of "
                f"CUDA {driver_version[0]} or older (found "
                f"{'none' if linker is None else '.'.join(map(str, linker))}); install it with "
                f'pip install "numba-cuda[cu{driver_version[0]}]"')
        with context.active():
            if plan == "lto":
                code = link_lto_cubin(image.ltoir, lto_arch(image.cc, device), link_files,
                                      max_registers, lineinfo, debug, self.name)
                res, module = drv.cuModuleLoadData(code)
            elif plan == "cubin":
                code = link_cubin(ptx, _arch_for(ptx, device), link_files, max_registers,
                                  lineinfo, debug, self.name)
                res, module = drv.cuModuleLoadData(code)
            else:
                _arch_for(ptx, device)
                code = ptx if ptx.endswith(b"\0") else ptx + b"\0"
                if max_registers:
                    opts = [drv.CUjit_option.CU_JIT_MAX_REGISTERS]
                    res, module = drv.cuModuleLoadDataEx(code, 1, opts, [int(max_registers)])
                else:
                    res, module = drv.cuModuleLoadData(code)
            if res:
                raise LinkerError(
                    f"the driver could not load kernel {self.name} on device {device.id} "
                    f"({device.name}): {res.name}: {cudriver.describe_error(drv, res)}")
            self.module = module
            self.function = cudriver.call(drv.cuModuleGetFunction, module, self.name.encode())
            if image.error_global:
                from numba_cuda.runtime.kernel_errors import ErrorRecord

                self.error_record = ErrorRecord(module, image.error_global)
                self.exceptions = image.exceptions
            if image.nrt_global:  # the device NRT's statistics counters (runtime.nrt_memsys)
                from numba_cuda.common.unsupported import nrt_stats_enabled
                from numba_cuda.runtime.nrt_memsys import attach

                attach(module, context, image.nrt_global, nrt_stats_enabled())
        attr = drv.CUfunction_attribute
        self.attributes = {
            "regs": self._attr(attr.CU_FUNC_ATTRIBUTE_NUM_REGS),
            "shared": self._attr(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
            "local": self._attr(attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
            "const": self._attr(attr.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES),
            "max_threads": self._attr(attr.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        }
        self.dynamic_shared_limit = DEFAULT_DYNAMIC_SHARED_LIMIT - self.attributes["shared"]
        self.packer = ArgPacker(image.argtypes)
        self._configs = {}

    @property
    def handle(self):
        """The ``CUfunction`` (as NVIDIA's ``Function.handle``: what the occupancy queries of
        ``Context`` take)."""
        return self.function

    def set_shared_memory_carveout(self, carveout):
        """Prefer ``carveout`` percent of the L1/shared memory as shared memory for this kernel
        (-1: the driver's default; ``CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT``).  A
        hint: the driver picks the nearest split the device supports."""
        if isinstance(carveout, bool) or not isinstance(carveout, int) or not -1 <= carveout <= 100:
            raise ValueError(f"Carveout must be between -1 and 100 (a percentage, -1 for the "
                             f"driver's default), got {carveout!r}")
        drv = cudriver.driver()
        with self.context.active():
            cudriver.call(
                drv.cuFuncSetAttribute, self.function,
                drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                carveout)
        self.shared_memory_carveout = carveout

    def _attr(self, which):
        drv = cudriver.driver()
        return int(cudriver.call(drv.cuFuncGetAttribute, which, self.function))

    def _config(self, griddim, blockdim, sharedmem):
        try:
            key = (griddim, blockdim, sharedmem)
            found = self._configs.get(key)
        except TypeError:  # lists are not hashable: check without remembering
            key, found = None, None
        if found is not None:
            return found
        device = self.context.device
        grid, block, shared = validate_launch_config(
            griddim, blockdim, sharedmem, device,
            kernel_max_threads=self.attributes["max_threads"],
            static_shared=self.attributes["shared"])
        if self.cooperative:
            self._check_cooperative(grid, block, shared)
        if shared > self.dynamic_shared_limit:
            drv = cudriver.driver()
            cudriver.call(drv.cuFuncSetAttribute, self.function,
                          drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          shared)
            self.dynamic_shared_limit = shared
        found = (grid, block, shared)
        if key is not None:
            self._configs[key] = found
        return found

    def max_cooperative_grid_blocks(self, blockdim, sharedmem=0):
        drv = cudriver.driver()
        block = normalize_dims(blockdim, "blockdim")
        per_sm = cudriver.call(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor, self.function,
                               block[0] * block[1] * block[2], sharedmem)
        return int(per_sm) * self.context.device.MULTIPROCESSOR_COUNT

    def _check_cooperative(self, grid, block, shared):
        blocks = grid[0] * grid[1] * grid[2]
        limit = self.max_cooperative_grid_blocks(block, shared)
        if blocks > limit:
            raise LaunchConfigError(
                f"a cooperative launch of {blocks} blocks is over the {limit} blocks that can be "
                f"resident at once on this device for blockdim {block} (grid synchronisation "
                f"needs every block resident); launch at most {limit} blocks, the value of "
                f"kernel.max_cooperative_grid_blocks(blockdim)")

    def launch(self, griddim, blockdim, stream, sharedmem, args):
        grid, block, shared = self._config(griddim, blockdim, sharedmem)
        if stream is None or (stream.__class__ is int and stream == 0):  # the usual case
            stream_obj = self.context.special_stream(
                PER_THREAD_DEFAULT if per_thread_default_is_default() else 0)
        else:
            stream_obj = as_stream(stream)
        if stream_obj.context is not self.context:
            raise ValueError(
                f"kernel {self.name} launches on device {self.context.device.id}, but its stream "
                f"{stream_obj!r} belongs to device {stream_obj.context.device.id}; use a stream "
                f"of device {self.context.device.id}, or launch inside "
                f"`with cuda.gpus[{stream_obj.context.device.id}]:`")
        if CAPTURES:  # a CUDA graph is being captured (runtime.graphs)
            from numba_cuda.runtime.graph_capture import on_launch

            on_launch(stream_obj, args, self.name, self.error_record is not None)
        state = LaunchState(stream_obj, self.context)
        params = self.packer.pack(args, state)
        drv = cudriver.driver()
        if self.cooperative:
            (res,) = drv.cuLaunchCooperativeKernel(
                self.function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                shared, stream_obj.handle, params)
        else:
            (res,) = drv.cuLaunchKernel(
                self.function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                shared, stream_obj.handle, params, 0)
        if res:
            cudriver.check(res, f"launching kernel {self.name} with griddim {grid}, "
                                f"blockdim {block}, {shared} bytes of dynamic shared memory")
        if state.writeback:
            state.finish()
        if self.error_record is not None:
            from numba_cuda.runtime.kernel_errors import raise_recorded_exception

            raise_recorded_exception(self.error_record, self.exceptions, stream_obj.synchronize)
        return state


def load_kernel(image, context=None):
    """The LoadedKernel of ``image`` (a ``KernelImage``) in ``context`` (default: current),
    loading it once per context."""
    if context is None:
        from numba_cuda.runtime.devices import current_context

        context = current_context()
    loaded = context.kernels.get(image)
    if loaded is None:
        loaded = context.kernels[image] = LoadedKernel(image, context)
    return loaded


#: The keys of :func:`kernel_attributes`' mapping (the dispatcher's ``get_*`` methods read them).
KERNEL_ATTRIBUTE_NAMES = ("regs", "shared", "local", "const", "max_threads")


def kernel_attributes(image, context=None):
    """``{"regs", "shared", "local", "const", "max_threads"}`` of a ``KernelImage`` on a device
    (the names :data:`KERNEL_ATTRIBUTE_NAMES` lists)."""
    return dict(load_kernel(image, context).attributes)

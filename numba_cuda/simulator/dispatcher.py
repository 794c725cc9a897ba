"""``cuda.jit`` in the simulator: kernels, device functions and their launches."""

import functools
import os
import sys
import threading

import numpy as np

from ..common import pickling
from ..common.args import ArgHint, ParameterBinder
from ..common.jit_options import JitOptions
from ..common.launch_dims import check_launch_bounds
from ..errors import CudaError, LaunchConfigError, LaunchConfigTypeError, NotAvailableInSimulator  # noqa: F401
from ..common.unsupported import (argument_error, argument_problem, check_function,
                                  check_void_return)
from . import collectives, devicearray, launchconfig, sanitizer, scheduler
from . import graph_capture as _graphs
from .threadstate import state
from .unavailable import not_available  # noqa: F401 - also used from here by older modules
from .transform import DeviceRecursion, TransformError, Transformed, transform

#: the values of ``sim_mode``/``NUMBA_CUDASIM_MODE``: ``compiled`` (the default: kernels that
#: qualify run compiled once past NUMBA_CUDASIM_COMPILE_THRESHOLD threads, the others in the Python
#: path), ``python`` (the Python path only), ``threads`` (one OS thread per simulated thread);
#: ``auto``, the default before the compiled mode was, is the Python path, as it was
MODES = ("compiled", "python", "threads", "auto")
DEFAULT_MODE = "compiled"

# One launch at a time per process: only one simulated thread executes at any moment (what
# makes atomics atomic), so launches from several host threads are serialised.  The "current
# thread" (threadstate.state) is per host thread: the others are outside any kernel meanwhile.
_LAUNCH_LOCK = threading.RLock()


def _as_device(obj):
    if isinstance(obj, _SimFunction):
        return obj
    return None


_MEETING_NAMES = frozenset(
    name for name in dir(collectives) if not name.startswith(("_", "request_"))
    and callable(getattr(collectives, name))
) | {"sync", "this_grid"}


def _may_meet(pyfunc, seen=None):
    """Whether code without source might reach a barrier or warp collective (conservative)."""
    seen = set() if seen is None else seen
    if id(pyfunc) in seen:
        return False
    seen.add(id(pyfunc))
    stack = [pyfunc.__code__]
    names = set()
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    if names & _MEETING_NAMES:
        return True
    cells = [c.cell_contents for c in (pyfunc.__closure__ or ()) if _cell_filled(c)]
    for obj in [pyfunc.__globals__.get(n) for n in names] + cells:
        if isinstance(obj, _SimFunction) and _may_meet(obj.py_func, seen):
            return True
    return False


def _cell_filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _raw_variant(pyfunc, yields):
    """The function as written, reading the thread dynamically.  When it might
    meet other threads, the kernel runs in the OS-thread mode."""

    def run(_ctx, /, *args, **kwargs):  # positional-only: a user keyword "_ctx" passes through
        return pyfunc(*args, **kwargs)

    return Transformed(run, False, False, yields and _may_meet(pyfunc), None)


class _SimFunction:
    """What kernels and device functions share: the rewritten variants of ``py_func``."""

    def __init__(self, pyfunc, sigs, options, jit_options=None):
        check_function(pyfunc)
        self.py_func = pyfunc
        self.signatures = list(sigs)
        self.targetoptions = dict(options)
        #: the options parsed and checked as the GPU target does (by ``jit``; parsed here when
        #: a pickled dispatcher is rebuilt from its options)
        self.jit_options = jit_options or _parse_options(options, self._device)
        self._variants = {}
        self._busy = set()
        self._peer_attributes(options)
        functools.update_wrapper(self, pyfunc)

    def _peer_attributes(self, options):
        """What the peers' simulator dispatchers (Numba's and NVIDIA's ``FakeCUDAKernel``)
        carry and libraries read: ``fn`` (the Python function), ``_fastmath``/``_debug``,
        ``extensions``, and the last launch configuration (``grid_dim``, ``block_dim``,
        ``stream``, ``dynshared_size``: unset until ``kernel[...]``).  ``_device`` is a class
        attribute (True for device functions)."""
        self.fn = self.py_func
        self._fastmath = bool(options.get("fastmath", False))
        self._debug = bool(options.get("debug", False))
        self.extensions = list(options.get("extensions") or ())
        self.grid_dim = self.block_dim = None
        self.stream = self.dynshared_size = 0

    def bind(self):
        """Nothing to bind in the simulator (the peers' no-op)."""

    def sim_variant(self, yields):
        """The rewritten function; ``yields`` selects the generator form (see :mod:`.transform`)."""
        variant = self._variants.get(yields)
        if variant is None:
            if yields in self._busy:
                raise DeviceRecursion(self.py_func.__qualname__)
            self._busy.add(yields)
            try:
                try:
                    variant = transform(self.py_func, yields, _as_device)
                except TransformError:
                    variant = _raw_variant(self.py_func, yields)
            finally:
                self._busy.discard(yields)
            self._variants[yields] = variant
        return variant

    # -- pickling (numba_cuda.common.pickling): by reference when importable, else by value
    def __reduce__(self):
        return pickling.reduce_dispatcher(self, {
            "py_func": self.py_func, "sigs": list(self.signatures),
            "options": dict(self.targetoptions)})

    @classmethod
    def _rebuild(cls, uuid, py_func, sigs, options):
        return pickling.rebuild_once(uuid, lambda: cls(py_func, sigs, options))

    # -- introspection of the real target, absent here
    def inspect_llvm(self, *args, **kwargs):
        raise not_available("inspect_llvm()")

    def inspect_asm(self, *args, **kwargs):
        raise not_available("inspect_asm()")

    def inspect_sass(self, *args, **kwargs):
        raise not_available("inspect_sass()")

    def inspect_sass_cfg(self, *args, **kwargs):
        raise not_available("inspect_sass_cfg()")

    def inspect_types(self, *args, **kwargs):
        raise not_available("inspect_types()")

    def get_regs_per_thread(self, *args, **kwargs):
        raise not_available("get_regs_per_thread()")

    def get_shared_mem_per_block(self, *args, **kwargs):
        raise not_available("get_shared_mem_per_block()")

    def get_local_mem_per_thread(self, *args, **kwargs):
        raise not_available("get_local_mem_per_thread()")

    def compile(self, sig):
        """Nothing to compile in the simulator; kept so eager-compilation code runs."""
        if not self._device:
            _check_kernel_signature(self.py_func, sig)
        self.signatures.append(sig)

    @property
    def overloads(self):
        return _Overloads()

    def specialize(self, *args, **kwargs):
        return self


class _Overloads(dict):
    def __missing__(self, key):
        return _FakeOverload()


class _FakeOverload:
    def max_cooperative_grid_blocks(self, blockdim):
        return _max_cooperative_blocks(blockdim)


def _errstate(options):
    """NumPy's error state for a launch of a kernel with these options (see :mod:`.arith_errors`)."""
    from .arith_errors import numpy_errstate

    return numpy_errstate(options.get("debug"))


def _max_cooperative_blocks(blockdim):
    _, block = launchconfig.normalize(1, blockdim)
    threads = block[0] * block[1] * block[2]
    return max(1, 2048 // threads)


class SimDeviceFunction(_SimFunction):
    """``cuda.jit(device=True)``: callable from kernels (and, as plain Python, from the host)."""

    _device = True

    def __getitem__(self, config):
        raise _not_a_kernel(self)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        raise _not_a_kernel(self)

    def __call__(self, *args, **kwargs):
        variant = self.sim_variant(False)
        return variant.fn(state.current, *args, **kwargs)

    def __repr__(self):
        return f"<simulated CUDA device function {self.py_func.__qualname__}>"


def _not_a_kernel(fn):
    name = fn.py_func.__name__
    return TypeError(f"{name} is a device function (cuda.jit(device=True)): it cannot be "
                     f"launched; call it from a kernel, or make it a kernel with cuda.jit")


class SimKernel(_SimFunction):
    """``cuda.jit``: a kernel, launched with ``kernel[griddim, blockdim, stream, sharedmem](*args)``."""

    _device = False

    def __init__(self, pyfunc, sigs, options, jit_options=None):
        super().__init__(pyfunc, sigs, options, jit_options)
        for sig in self.signatures:
            _check_kernel_signature(pyfunc, sig)
        mode = options.get("sim_mode") or os.environ.get("NUMBA_CUDASIM_MODE") or DEFAULT_MODE
        if mode not in MODES:
            raise ValueError(f"sim_mode must be one of {MODES}, got {mode!r}")
        self._mode = "python" if mode == "auto" else mode
        self._plan = None
        self._compiled_kernel = None
        #: threads launched so far, and NUMBA_CUDASIM_COMPILE_THRESHOLD (read at the first
        #: launch): the compiled mode compiles a kernel once the first reaches the second
        self._threads_launched = 0
        self._threshold = None
        self._scalar_types = None
        #: keyword arguments and defaults of a launch -> the positional tuple, as on the GPU
        self._binder = ParameterBinder(pyfunc)
        #: launches with more threads per block are refused, as on the GPU
        self._launch_bounds = self.jit_options.launch_bounds
        #: the percentage a GPU would be asked for (checked; nothing to set here)
        self.shared_memory_carveout = self.jit_options.shared_memory_carveout

    def __repr__(self):
        return f"<simulated CUDA kernel {self.py_func.__qualname__}>"

    # -- launch configuration
    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            error = LaunchConfigError if isinstance(config, tuple) else LaunchConfigTypeError
            raise error(
                f"launch configuration must be [griddim, blockdim] with optional stream and "
                f"dynamic shared memory bytes, got {config!r}"
            )
        griddim, blockdim = config[0], config[1]
        stream = config[2] if len(config) > 2 else 0
        sharedmem = config[3] if len(config) > 3 else 0
        grid, block = launchconfig.normalize(griddim, blockdim, sharedmem)
        if self._launch_bounds:
            check_launch_bounds(self._launch_bounds, block)
        self.grid_dim, self.block_dim, self.stream, self.dynshared_size = grid, block, stream, int(sharedmem)
        return _Launcher(self, grid, block, stream, int(sharedmem))

    def __call__(self, *args, **kwargs):
        if state.current is not None:
            # called from device code: a device function, as on the real target
            return self.sim_variant(False).fn(state.current, *args, **kwargs)
        raise LaunchConfigTypeError(
            f"launch configuration was not specified: kernel {self.py_func.__name__} was called "
            f"without one; launch it as {self.py_func.__name__}[griddim, blockdim](...)"
        )

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher running ``ntasks`` threads in total."""
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count ({ntasks}): "
                             f"forall needs ntasks >= 0")
        tpb = tpb or 128
        if ntasks == 0:
            def nothing(*args, **kwargs):  # no thread runs; the arguments are checked all the same
                self.bind_arguments(args, kwargs)
            return nothing
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]

    def max_cooperative_grid_blocks(self, blockdim):
        return _max_cooperative_blocks(blockdim)

    def specialize(self, *args, **kwargs):
        """The kernel itself (nothing to compile); the arguments are bound as a launch binds
        them, so a call that does not fit the kernel fails here as on the GPU."""
        self.bind_arguments(args, kwargs)
        return self

    # -- execution
    def _get_plan(self):
        plan = self._plan
        if plan is None:
            if self._mode == "threads":
                variant = self.sim_variant(False)
                plan = ("threads", variant)
            else:
                variant = self.sim_variant(True)
                if variant.needs_threads:
                    plan = ("threads", self.sim_variant(False))
                elif variant.meets:
                    plan = ("coroutines", variant)
                else:
                    # a generator only for its spin points: one thread after another,
                    # switching only when a thread spins (see scheduler.run_sequential)
                    plan = ("sequential", variant)
            self._plan = plan
        return plan

    @property
    def sim_mode(self):
        """How the simulator runs this kernel: ``compiled`` (in the compiled mode, the default, for
        a kernel that qualifies, whether or not its launches have reached the threshold yet),
        ``sequential``, ``coroutines`` or ``threads``."""
        if self._mode == "compiled" and self._compiled().eligible:
            return "compiled"
        return self._get_plan()[0]

    def _compiled(self):
        compiled = self._compiled_kernel
        if compiled is None:
            from .compiled import CompiledKernel

            compiled = self._compiled_kernel = CompiledKernel(self.py_func, _as_device,
                                                              self.targetoptions)
        return compiled

    @property
    def sim_compiled_reason(self):
        """Why the compiled mode ran this kernel's latest launch (or would run it) in the Python
        simulator; None when it ran compiled, or when the mode is not ``compiled``."""
        if self._mode != "compiled":
            return None
        compiled = self._compiled()
        if compiled.eligible and self._threshold is not None and \
                self._threads_launched < self._threshold:
            return (f"{self.py_func.__qualname__}: {self._threads_launched} threads launched so "
                    f"far, fewer than NUMBA_CUDASIM_COMPILE_THRESHOLD={self._threshold}")
        return compiled.reason

    def _compile_due(self, grid, block):
        """Count this launch's threads; whether the kernel's launches have reached the compile
        threshold (nothing of the compiled mode is made before)."""
        threshold = self._threshold
        if threshold is None:
            from .compiled import compile_threshold

            threshold = self._threshold = compile_threshold()
        if self._threads_launched < threshold:
            self._threads_launched += grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
            return self._threads_launched >= threshold
        return True

    @property
    def sim_compile_seconds(self):
        """Seconds the compiled mode spent compiling this kernel (all signatures); 0.0 otherwise."""
        if self._mode != "compiled":
            return 0.0
        return self._compiled().compile_seconds

    def bind_arguments(self, args, kwargs=None):
        """The positional tuple of a launch with ``args`` and ``kwargs``: the kernel's
        parameters in order, its defaults filled in (Python's ``TypeError`` if they do not
        fit), as the GPU target binds them."""
        if not kwargs and len(args) == self._binder.arity:
            return tuple(args)
        return self._binder(args, kwargs or {})

    def _convert_scalars(self, args):
        types_ = self._scalar_types
        if types_ is None:
            types_ = self._scalar_types = _scalar_types_of(self.signatures)
        if not types_:
            return args
        return [conv(a) if conv is not None and _is_scalar(a) else a
                for a, conv in zip(args, types_ + [None] * (len(args) - len(types_)))]

    def launch(self, grid, block, stream, sharedmem, args, kwargs=None):
        from .arith_errors import KernelZeroDivisionError
        from .devices import activate

        args = self.bind_arguments(args, kwargs)
        activate()  # a launch makes the context, as on the real target
        if _graphs.CAPTURES and _graphs.record_launch(self, grid, block, stream, sharedmem, args):
            return  # captured into a CUDA graph: runs at each graph launch
        with _LAUNCH_LOCK:
            checked = sanitizer.begin(self.py_func, grid, block)  # sanitizer hook: None when off
            try:
                self._launch(grid, block, stream, sharedmem, args)
            except FloatingPointError as exc:  # only debug=True kernels let NumPy raise
                if isinstance(exc, ZeroDivisionError):
                    raise
                raise KernelZeroDivisionError(*exc.args) from exc
            finally:
                if checked is not None:  # sanitizer hook: the summary (raise, warn or count)
                    checked.finish(sys.exc_info()[1])

    def _launch(self, grid, block, stream, sharedmem, args):
        retr = []
        if self.extensions:  # Numba's protocol; the simulator has no types to give: None
            args = [functools.reduce(
                lambda ty_val, ext: ext.prepare_args(*ty_val, stream=stream, retr=retr),
                reversed(self.extensions), (None, a))[1] for a in args]
        for index, value in enumerate(args):
            if argument_problem(value) is not None:
                raise argument_error(self.py_func.__qualname__, index, value)
        kargs = tuple(_kernel_arg(a) for a in self._convert_scalars(args))
        if sanitizer.active is not None:  # sanitizer hook: checking views of the arrays
            kargs = sanitizer.active.wrap_args(args, kargs)
        elif self._mode == "compiled" and not self._binder.keyword_only and \
                self._compile_due(grid, block) and self._compiled().run(grid, block, kargs):
            for writeback in retr:
                writeback()
            return
        mode, variant = self._get_plan()
        fn = variant.fn
        if self._binder.keyword_only:
            fn = _keyword_only_by_name(fn, self._binder.keyword_only)
        with np.errstate(**_errstate(self.targetoptions)):
            if mode == "sequential":
                scheduler.run_sequential(fn, grid, block, sharedmem, kargs,
                                         spins=variant.is_generator)
            else:
                if variant.uses_grid_sync:
                    nblocks = grid[0] * grid[1] * grid[2]
                    limit = _max_cooperative_blocks(block)
                    if nblocks > limit:
                        raise LaunchConfigError(
                            f"a kernel using grid synchronisation launched with {nblocks} blocks, "
                            f"more than max_cooperative_grid_blocks = {limit} for blockdim {block}"
                        )
                scheduler.run_cooperative(fn, grid, block, sharedmem, kargs,
                                          threaded=(mode == "threads"),
                                          grid_sync=variant.uses_grid_sync)
        for writeback in retr:
            writeback()


def _keyword_only_by_name(fn, names):
    """``fn`` taking the bound tuple, whose last ``len(names)`` values are the keyword-only
    parameters ``names``, passed to it by name."""
    count = len(names)

    @functools.wraps(fn)
    def call(ctx, *args):
        return fn(ctx, *args[:-count], **dict(zip(names, args[-count:])))

    return call


class _Launcher:
    __slots__ = ("kernel", "grid", "block", "stream", "sharedmem")

    def __init__(self, kernel, grid, block, stream, sharedmem):
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.stream = stream
        self.sharedmem = sharedmem

    griddim = property(lambda self: self.grid)
    blockdim = property(lambda self: self.block)

    def __call__(self, *args, **kwargs):
        self.kernel.launch(self.grid, self.block, self.stream, self.sharedmem, args, kwargs)


def _is_scalar(value):
    return isinstance(value, (int, float, complex, bool, np.number, np.bool_))


def _check_kernel_signature(pyfunc, sig):
    """A kernel's eager signature must return void, as the compiler requires (same error)."""
    from numba.core import sigutils

    try:
        _args, return_type = sigutils.normalize_signature(sig)
    except Exception:  # noqa: BLE001 - a signature the simulator cannot read is not checked
        return
    check_void_return(pyfunc.__qualname__, return_type)


def _scalar_types_of(signatures):
    """Per-argument converters from the only eager signature (numba scalar types)."""
    if len(signatures) != 1:
        return []
    try:
        from numba.core import sigutils, types as nbtypes
        from numba.np.numpy_support import as_dtype

        args, _ = sigutils.normalize_signature(signatures[0])
    except Exception:  # noqa: BLE001 - a signature the simulator cannot read is ignored
        return []
    from .fixedwidth import make_int_caster

    convs = []
    for ty in args:
        if isinstance(ty, nbtypes.Integer):
            convs.append(make_int_caster(as_dtype(ty).type))
        elif isinstance(ty, (nbtypes.Float, nbtypes.Complex, nbtypes.Boolean)):
            convs.append(as_dtype(ty).type)
        else:
            convs.append(None)
    return convs


def _kernel_arg(arg):
    """What the simulated kernel receives for one argument (arrays: numpy, never a copy
    except for ``cuda.In``, whose writes must not reach the host)."""
    if type(arg) is np.ndarray:
        return arg if arg.dtype.fields is None else arg.view(np.recarray)
    if isinstance(arg, devicearray.DeviceNDArray):
        return _kernel_arg(arg._ary)
    if isinstance(arg, ArgHint):
        value = _kernel_arg(arg.value)
        if isinstance(value, np.ndarray) and not arg.copy_out:
            return value.copy()
        return value
    if isinstance(arg, np.ndarray):
        return _kernel_arg(arg.view(np.ndarray))
    if isinstance(arg, np.void) and not isinstance(arg, np.record):
        # record fields by attribute (rec.x), as kernels spell them
        return np.array(arg).view(np.recarray)[()]
    if hasattr(arg, "__cuda_array_interface__"):
        return devicearray.kernel_view(arg)
    return arg


def _parse_options(options, device):
    """``JitOptions`` of the simulator's ``cuda.jit`` options: ``sim_mode`` is the simulator's
    own; the rest (``shared_memory_carveout`` too, though the simulator has no L1/shared split
    to set) is checked as on the GPU target."""
    return JitOptions.parse(dict({k: v for k, v in options.items() if k != "sim_mode"},
                                 device=device))


def jit(func_or_sig=None, device=False, **options):
    """``@cuda.jit``: kernels and device functions that the simulator runs as Python."""
    for unsupported in ("link",):
        if options.get(unsupported):
            raise not_available(f"cuda.jit({unsupported}=...)")
    # the GPU target's checks of every option (an unknown name, a bad value: the same errors)
    jit_options = _parse_options(options, device)
    if options.get("boundscheck"):
        options.pop("boundscheck")  # numpy checks every index in the simulator anyway

    def make(pyfunc, sigs):
        if isinstance(pyfunc, _SimFunction):
            pyfunc = pyfunc.py_func
        if not callable(pyfunc):
            raise TypeError(f"cuda.jit needs a function, got {pyfunc!r}")
        cls = SimDeviceFunction if device else SimKernel
        return cls(pyfunc, sigs, options, jit_options)

    if func_or_sig is None:
        return lambda fn: make(fn, [])
    if callable(func_or_sig) and not _looks_like_signature(func_or_sig):
        return make(func_or_sig, [])
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return lambda fn: make(fn, sigs)


def _looks_like_signature(obj):
    if isinstance(obj, (str, tuple, list)):
        return True
    return type(obj).__module__.startswith("numba") and not isinstance(obj, _SimFunction) and \
        type(obj).__name__ in ("Signature",)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """External device functions cannot run in the simulator."""
    raise not_available(f"cuda.declare_device({name!r}, ...)")


def compile_ptx(*args, **kwargs):
    raise not_available("cuda.compile_ptx()")


def compile_ptx_for_current_device(*args, **kwargs):
    raise not_available("cuda.compile_ptx_for_current_device()")


def compile(*args, **kwargs):  # noqa: A001 - public name of numba.cuda
    raise not_available("cuda.compile()")


def compile_for_current_device(*args, **kwargs):
    raise not_available("cuda.compile_for_current_device()")


def compile_all(*args, **kwargs):
    raise not_available("cuda.compile_all()")

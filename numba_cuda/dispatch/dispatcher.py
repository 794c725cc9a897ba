"""``CUDADispatcher``: the object ``@cuda.jit`` returns, for kernels and device functions.

Kernels: ``kernel[griddim, blockdim]``, ``[griddim, blockdim, stream]``,
``[griddim, blockdim, stream, dynamic_shared_bytes]`` then call with the arguments;
``kernel.forall(n)(...)``; ``kernel.specialize(*args)``; ``overloads`` (argument types ->
``CompiledKernel``), ``signatures``, ``inspect_llvm/asm/types``, ``get_regs_per_thread`` ...
Launches and ``specialize`` take keyword arguments and fill in the kernel's defaults
(``numba_cuda.common.args.ParameterBinder``): what is typed, compiled, cached and launched is the
bound positional tuple.

Device functions: callable from kernels and other device functions only; each specialisation is
registered with the target context (``insert_user_function``) so callers link its library.

Launching hands a ``KernelImage`` (``numba_cuda.common.kernel_image``) to the runtime:
``numba_cuda.runtime.launch.load_kernel(image, context)`` loads it once per context, and the
loaded kernel's ``launch(griddim, blockdim, stream, sharedmem, args)`` launches it.
Kernel attributes (registers ...) come from ``numba_cuda.runtime.launch.kernel_attributes(image)``,
which returns a mapping with ``regs``, ``shared``, ``local``, ``const``, ``max_threads``.
"""

import functools
import sys

from numba.core import sigutils, typeinfer, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher
from numba.core.typing.typeof import Purpose, typeof

from .. import launchconfig
from ..common import pickling
from ..common.args import ParameterBinder
from ..common.launch_dims import check_launch_bounds, normalize_dims
from ..common.unsupported import argument_error, argument_problem, check_function
from ..compiler import capability
from ..compiler.pipeline import CompileOptions, CUDACompiler, compile_cuda
from ..common.jit_options import JitOptions, cost_model_of
from ..compiler.target import cuda_target
from ..errors import (CompilationDisabledError, KernelArgumentError, LaunchConfigError,
                      LaunchConfigTypeError)
from .device_cc import current_device_cc, launch_cc
from .cache_off import NO_DISK_CACHE
from .launched_kernel import LaunchableKernel, max_cooperative_grid_blocks

#: Threads per block used by ``forall`` (a fixed, widely good choice; no occupancy query).
FORALL_BLOCK_SIZE = 256

#: Grids of fewer blocks get Numba's low-occupancy warning (its heuristic: most GPUs have
#: dozens of SMs and want several blocks on each).
LOW_OCCUPANCY_BLOCKS = 128


def warn_if_low_occupancy(griddim):
    """Numba's ``NumbaPerformanceWarning`` for a grid of fewer than 128 blocks, unless
    ``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0`` or ``NUMBA_DISABLE_PERFORMANCE_WARNINGS=1`` (read
    from ``numba.config`` at each launch configuration, as Numba does)."""
    from numba.core import config

    if not getattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 1) or config.DISABLE_PERFORMANCE_WARNINGS:
        return
    blocks = griddim[0] * griddim[1] * griddim[2]
    if blocks < LOW_OCCUPANCY_BLOCKS:
        import warnings

        from numba.core.errors import NumbaPerformanceWarning

        warnings.warn(NumbaPerformanceWarning(
            f"Grid size {blocks} will likely result in GPU under-utilization due to low "
            f"occupancy (fewer than {LOW_OCCUPANCY_BLOCKS} blocks; "
            "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0 turns this warning off)"), stacklevel=4)


class LaunchConfiguration:
    """``kernel[griddim, blockdim, stream, sharedmem]``: call it with the kernel's arguments.

    ``pre_launch_callbacks``: ``callback(kernel, launch_config)`` functions run on the host just
    before each launch through this configuration (they must not call CUDA).  While a launch
    compiles the kernel, this object is :func:`numba_cuda.launchconfig.current_launch_config`,
    with the launch's arguments in ``args``.
    """

    def __init__(self, dispatcher, griddim, blockdim, stream=0, sharedmem=0):
        self.dispatcher = dispatcher
        self.griddim = normalize_dims(griddim, "griddim")
        self.blockdim = normalize_dims(blockdim, "blockdim")
        self.stream = stream
        if not isinstance(sharedmem, int) or sharedmem < 0:
            raise LaunchConfigError(f"dynamic shared memory must be a non-negative int of bytes, got {sharedmem!r}")
        self.sharedmem = sharedmem
        if dispatcher.options.launch_bounds:
            check_launch_bounds(dispatcher.options.launch_bounds, self.blockdim)
        self.pre_launch_callbacks = []
        self.args = None
        self._kernel_launch_config_sensitive = False
        self._typed = None
        warn_if_low_occupancy(self.griddim)

    def __reduce__(self):
        if self.pre_launch_callbacks:
            import pickle

            raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
        return (_rebuild_launch_configuration,
                (self.dispatcher, self.griddim, self.blockdim, self.stream, self.sharedmem))

    def _is_kernel_launch_config_sensitive(self):
        return bool(self._kernel_launch_config_sensitive)

    def __call__(self, *args, **kwargs):
        # The prepared path of CUDADispatcher.launch, inlined: the Python frame it saves pays
        # for taking keywords at all, so a launch without them costs what it did before.
        dispatcher = self.dispatcher
        if not kwargs and not dispatcher.extensions and not self.pre_launch_callbacks:
            key = _fast_type_key(args)
            if key is not None:
                context = _current_context()
                plans = dispatcher._launch_plans.get(context)
                if plans is not None:
                    plan = plans.get(key)
                    if plan is not None:
                        return plan.launch(context, self.griddim, self.blockdim, self.stream,
                                           self.sharedmem, args)
        return dispatcher.launch(args, self.griddim, self.blockdim, self.stream, self.sharedmem,
                                 kwargs, config=self)

    def __repr__(self):
        return (f"<launch of {self.dispatcher.py_func.__qualname__} grid={self.griddim} "
                f"block={self.blockdim} stream={self.stream} shared={self.sharedmem}>")


def _launch_config_key(config):
    """What a launch-config sensitive kernel is compiled for: grid, block, dynamic shared memory."""
    return (config.griddim, config.blockdim, config.sharedmem)


def _rebuild_launch_configuration(dispatcher, griddim, blockdim, stream, sharedmem):
    return LaunchConfiguration(dispatcher, griddim, blockdim, stream, sharedmem)


class ForAll:
    def __init__(self, dispatcher, ntasks, tpb, stream, sharedmem):
        if not isinstance(ntasks, int) or ntasks < 0:
            raise LaunchConfigError(f"forall needs a non-negative int task count, got {ntasks!r}")
        self.dispatcher = dispatcher
        self.ntasks = ntasks
        self.tpb = tpb or FORALL_BLOCK_SIZE
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args, **kwargs):
        if self.ntasks == 0:
            self.dispatcher.bind_arguments(args, kwargs)  # the arguments are checked all the same
            return None
        tpb = min(self.tpb, self.ntasks)
        blocks = (self.ntasks + tpb - 1) // tpb
        return self.dispatcher[blocks, tpb, self.stream, self.sharedmem](*args, **kwargs)


def _scalar_types():
    import numpy as np
    from numba.np.numpy_support import from_dtype

    table = {float: types.float64, bool: types.boolean, complex: types.complex128,
             np.bool_: types.boolean, type(None): types.none}  # None: a default's usual value
    for code in "bBhHiIlLqQefdFD":
        cls = np.dtype(code).type
        table[cls] = from_dtype(np.dtype(code))
    return table


_SCALAR_TYPES = None
_INT64 = types.int64
_DEVICE_ARRAY = None


def _current_context():
    """The runtime's current context (its module bound on first use: no import per launch)."""
    global _current_context
    from ..runtime.devices import current_context

    _current_context = current_context
    return current_context()


def _fast_type_key(args):
    """The ids of the arguments' Numba types when each is known without ``typeof`` (device
    arrays of this package, Python and NumPy numbers), else None.  Numba interns types, so
    equal types are one object while it is alive."""
    global _SCALAR_TYPES, _DEVICE_ARRAY
    if _SCALAR_TYPES is None:
        from ..runtime.devicearray import DeviceNDArray

        _SCALAR_TYPES, _DEVICE_ARRAY = _scalar_types(), DeviceNDArray
    key = []
    for value in args:
        cls = type(value)
        if cls is _DEVICE_ARRAY:
            ty = value._numba_type or value._numba_type_
        elif cls is int:
            if not -(1 << 63) <= value < (1 << 63):
                return None
            ty = _INT64
        else:
            ty = _SCALAR_TYPES.get(cls)
            if ty is None:
                return None
        key.append(id(ty))
    return tuple(key)


def _refused_argument_type(ty):
    """Python containers and object arrays (see :mod:`numba_cuda.common.unsupported`)."""
    if isinstance(ty, (types.List, types.Set, types.DictType)):
        return True
    if isinstance(ty, types.Array):
        return ty.dtype is types.pyobject
    if isinstance(ty, types.BaseTuple):
        return any(_refused_argument_type(t) for t in ty)
    return False



class _LaunchPlan:
    """The prepared launch of arguments of known types: the image to launch (whose loaded kernel
    the runtime keeps, once per context) and, for arguments as given that need binding (the
    kernel's defaults fill in the rest), the binder."""

    __slots__ = ("image", "binder", "argtypes")

    def __init__(self, image, binder, argtypes):
        self.image = image
        self.binder = binder
        #: the types stay referenced by the plan, so their ids in the key stay theirs
        self.argtypes = argtypes

    def launch(self, context, griddim, blockdim, stream, sharedmem, args):
        if self.binder is not None:
            args = self.binder(args, {})
        return _load_kernel(self.image, context).launch(griddim, blockdim, stream, sharedmem, args)


def _load_kernel(image, context):
    """The runtime's ``load_kernel`` (its module bound on first use: no import per launch)."""
    global _load_kernel
    from ..runtime.launch import load_kernel

    _load_kernel = load_kernel
    return load_kernel(image, context)


def _compiled_without_nrt(cres):
    """A device function returning arrays, compiled while the device NRT was off and asked for
    while it is on: it takes no references to the arrays it returns, so NRT callers would free
    them too early; it is compiled again (the NRT version is also right for callers without
    the NRT).  Functions returning no arrays are the same either way."""
    library = getattr(cres, "library", None)
    if getattr(library, "compiled_with_nrt", True) is not False:
        return False
    from ..common.unsupported import nrt_enabled

    restype = cres.signature.return_type
    returns_arrays = cres.target_context.data_model_manager[restype].contains_nrt_meminfo()
    return returns_arrays and nrt_enabled()


class CUDADispatcher(Dispatcher):
    """Dispatcher of ``@cuda.jit`` functions (kernels and, with ``device=True``, device functions)."""

    targetdescr = cuda_target

    def __init__(self, py_func, sigs=None, targetoptions=None):
        """``targetoptions``: the ``JitOptions`` of ``cuda.jit``, or a mapping of them (a
        pickled or cloned dispatcher's), parsed here."""
        check_function(py_func)
        if not isinstance(targetoptions, JitOptions):
            targetoptions = JitOptions.parse(targetoptions or {})
        self.jit_options = targetoptions
        self.device = targetoptions.device
        self.link = list(targetoptions.link)
        #: Numba's kernel extensions: objects whose ``prepare_args(ty, val, stream=, retr=)``
        #: may replace each argument (and its type) before a launch; ``retr`` collects
        #: callables run after it (copies back)
        self.extensions = list(targetoptions.extensions)
        cache = targetoptions.cache
        self.options = CompileOptions.from_user(**targetoptions.compile_fields())
        #: the preferred shared-memory carveout (percent; -1: the driver's default) set on the
        #: kernel where it is loaded, or None (the driver's choice)
        self.shared_memory_carveout = targetoptions.shared_memory_carveout
        numba_options = {"nopython": True}
        cost_model = cost_model_of(targetoptions.inline)
        if cost_model is not None:  # read by Numba's InlineInlinables at each call site
            numba_options["inline"] = cost_model
        super().__init__(py_func, targetoptions=numba_options, pipeline_class=CUDACompiler)
        if cache:
            # the on-disk cache machinery (hashing, index files) is imported only when asked for
            from .disk_cache import DispatcherCache

            self._kernel_cache = DispatcherCache(self)
        else:
            self._kernel_cache = NO_DISK_CACHE
        #: context -> {ids of the argument types: (loaded kernel, argument types)}
        self._launch_plans = {}
        #: launch-config sensitive kernels (numba_cuda.launchconfig): compiled per
        #: (argument types, (griddim, blockdim, sharedmem))
        self._launch_config_sensitive = False
        self._launch_config_kernels = {}
        #: keyword arguments and defaults of a launch -> the positional tuple (see launch)
        self._binder = ParameterBinder(py_func)
        self._arity = self._binder.arity
        self._specialized = False
        if sigs:
            # While @cuda.jit("sig") runs, the function's name is not bound yet: Numba's type
            # inference finds a self-recursive call through this registration.
            with typeinfer.register_dispatcher(self):
                for sig in sigs:
                    self.compile(sig)
            self.disable_compile()

    # ---- typing hooks used by Numba -------------------------------------------------
    @property
    def _numba_type_(self):
        return self._type

    def get_call_template(self, args, kws):
        if not self.device:
            # A kernel called from device code is compiled as a device function for the call,
            # as Numba's target and NVIDIA's package do.
            return self.as_device_function().get_call_template(args, kws)
        return super().get_call_template(args, kws)

    def get_overload(self, sig):
        if not self.device:  # asked by the lowering of a call from device code (see above)
            return self.as_device_function().get_overload(sig)
        if not self._can_compile:  # else compile() made it right for the NRT setting
            args, _ = sigutils.normalize_signature(sig)
            existing = self.overloads.get(tuple(args))
            if existing is not None and _compiled_without_nrt(existing):
                raise self._stale_for_nrt(args)
        return super().get_overload(sig)

    def _stale_for_nrt(self, args):
        return CompilationDisabledError(
            f"device function {self.py_func.__qualname__}{tuple(args)} returns arrays and was "
            "compiled from its signature while the device NRT was off: code compiled with the "
            "NRT (NUMBA_CUDA_ENABLE_NRT) cannot call it, since it takes no references to what it "
            "returns. Enable the NRT before the function is defined, or define it without a "
            "signature (@cuda.jit(device=True)) so that it compiles when called")

    def as_device_function(self):
        """The device-function dispatcher of this kernel's Python function (same options),
        which compiles the kernel's code when device code calls it."""
        twin = self.__dict__.get("_device_function")
        if twin is None:
            options = self._user_options()
            options.update(device=True, cache=False)
            twin = CUDADispatcher(self.py_func, targetoptions=options)
            # compiling either one is "compiling this function" to Numba's recursion detection
            twin._compiling_counter = self._compiling_counter
            self._device_function = twin
        return twin

    def __call__(self, *args, **kwargs):
        if self.device:
            raise LaunchConfigTypeError(
                f"{self.py_func.__qualname__} is a CUDA device function: call it from a kernel or "
                "another device function, not from the host"
            )
        raise LaunchConfigTypeError(
            f"launch configuration was not specified: {self.py_func.__qualname__} is a CUDA "
            f"kernel; launch it with a configuration, "
            f"{self.py_func.__name__}[blocks, threads_per_block](...)"
        )

    # ---- compiling -----------------------------------------------------------------
    @global_compiler_lock
    def compile(self, sig):
        """Compile for ``sig`` (a signature or a tuple of argument types); returns the
        ``CompiledKernel`` (kernels) or the ``CompileResult`` (device functions)."""
        args, return_type = sigutils.normalize_signature(sig)
        existing = self.overloads.get(tuple(args))
        stale = existing is not None and self.device and _compiled_without_nrt(existing)
        if existing is not None and not stale:
            return existing
        if stale and not self._can_compile:
            raise self._stale_for_nrt(args)
        if not self._can_compile:
            raise CompilationDisabledError(
                f"{self.py_func.__qualname__} has no compiled version for {args} and compilation "
                f"is disabled; compiled signatures: {self.signatures}"
            )
        cached = self._kernel_cache.load_kernel(args)
        if cached is not None:
            self.overloads[tuple(args)] = cached
            return cached
        config = launchconfig.current_launch_config()
        if config is not None and config.dispatcher is not self:
            config = None  # another kernel's launch: this compile is not launch-triggered
        kernel = self._compile_new(args, return_type, config)
        if self.device:
            return kernel
        self.overloads[tuple(args)] = kernel
        if not kernel.launch_config_sensitive:
            self._kernel_cache.save_kernel(args, kernel)
        return kernel

    def _compile_new(self, args, return_type, config):
        """Compile for ``args`` (no look-up); a kernel compiled while ``config``'s launch marked
        it launch-config sensitive says so (``launch_config_sensitive``) and makes this
        dispatcher compile per launch configuration from then on."""
        # ``is_compiling`` (the counter) makes Numba's type inference type a call back into this
        # function as a ``RecursiveCall`` (self and mutual recursion, as on Numba's targets).
        with self._compiling_counter:
            cres = compile_cuda(self.py_func, return_type, args, self.options, locals=self.locals)
        for path in self.link:
            cres.library.add_linking_file(path)
        if self.device:
            cres.library.device_cc = current_device_cc  # get_ptx() without cc: this device's
            self.add_overload(cres)
            return cres
        kernel = LaunchableKernel(cres, self.options, device_cc=current_device_cc)
        if config is not None and config._kernel_launch_config_sensitive:
            kernel.launch_config_sensitive = True
            if not self._launch_config_sensitive:
                self._launch_config_sensitive = True
                self._launch_plans.clear()
            self._launch_config_kernels[(tuple(args), _launch_config_key(config))] = kernel
        return kernel

    def add_overload(self, cres):
        args = tuple(cres.signature.args)
        self.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        self.overloads[args] = cres

    def compile_device(self, args, return_type=None):
        """The ``CompileResult`` of this function as a device function for the argument types
        ``args`` (its result cast to ``return_type`` when given), compiled once (Numba's and
        NVIDIA's method).  A kernel's device-function twin compiles it (``as_device_function``:
        what device code calling the kernel gets)."""
        if not self.device:
            return self.as_device_function().compile_device(args, return_type)
        args = tuple(args)
        return self.compile(args if return_type is None else return_type(*args))

    def get_compile_result(self, sig):
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) not in self.overloads:
            self.compile(sig)
        return self.overloads[tuple(args)]

    # ---- launching -------------------------------------------------------------------
    def __getitem__(self, config):
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function; it cannot be launched")
        if not isinstance(config, tuple):
            raise LaunchConfigTypeError(
                "a launch configuration is [griddim, blockdim], [griddim, blockdim, stream] or "
                f"[griddim, blockdim, stream, dynamic_shared_bytes]; got {config!r}"
            )
        if not 2 <= len(config) <= 4:
            raise LaunchConfigError(
                "a launch configuration is [griddim, blockdim], [griddim, blockdim, stream] or "
                f"[griddim, blockdim, stream, dynamic_shared_bytes]; got {config!r}"
            )
        return LaunchConfiguration(self, *config)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """``kernel.configure(griddim, blockdim, stream, sharedmem)``: the same as
        ``kernel[griddim, blockdim, stream, sharedmem]``."""
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """Launch configuration covering ``ntasks`` threads in 1D (``tpb`` threads per block)."""
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def typeof_pyval(self, value):
        """The Numba type of ``value`` as a kernel argument (Numba's dispatcher method)."""
        return self.typeof_argument(value)[1]

    def typeof_argument(self, value, index=0):
        """Numba type of a kernel argument (objects with ``__cuda_array_interface__`` become
        device arrays first).  Returns ``(value_to_pass, type)``."""
        try:
            ty = typeof(value, Purpose.argument)
        except ValueError:
            pass
        else:
            if _refused_argument_type(ty):
                raise argument_error(self.py_func.__qualname__, index, value)
            return value, ty
        if hasattr(value, "__cuda_array_interface__"):
            from ..runtime.api import as_cuda_array

            value = as_cuda_array(value)
            return value, typeof(value, Purpose.argument)
        from ..runtime.interop import cuda_core_kind, from_cuda_core

        if cuda_core_kind(value) is not None:  # a Buffer: 1-d uint8; a StridedMemoryView
            value = from_cuda_core(value)
            return value, typeof(value, Purpose.argument)
        if argument_problem(value) is not None:
            raise argument_error(self.py_func.__qualname__, index, value)
        raise KernelArgumentError(
            f"kernel {self.py_func.__qualname__}: cannot pass an argument of type "
            f"{type(value).__name__} to a CUDA kernel (supported: numbers, booleans, tuples, NumPy "
            "and device arrays, objects with __cuda_array_interface__, cuda.core Buffer and "
            "StridedMemoryView)"
        )

    def kernel_for(self, argtypes):
        """The ``CompiledKernel`` for these argument types (compiling if allowed)."""
        argtypes = tuple(argtypes)
        kernel = self.overloads.get(argtypes)
        if kernel is not None:
            return kernel
        if self._can_compile:
            return self.compile(argtypes)
        for sig_args, kernel in self.overloads.items():
            if len(sig_args) == len(argtypes) and all(
                self.typingctx.can_convert(actual, formal) is not None
                for actual, formal in zip(argtypes, sig_args)
            ):
                return kernel
        raise TypeError(
            f"{self.py_func.__qualname__}: no compiled signature matches the arguments "
            f"{argtypes}; compiled signatures: {self.signatures}"
        )

    # ---- the launch configuration during launch-triggered compiles (numba_cuda.launchconfig) --
    def _kernel_for_launch(self, argtypes, prepared, config):
        """The kernel a launch with ``config`` runs: a kernel compiled for its argument types,
        else compiled now through ``_compile_for_args`` with ``config`` current; a kernel
        marked launch-config sensitive is compiled for each (grid, block, shared memory)."""
        config._typed = (tuple(map(id, prepared)), argtypes)  # spares _compile_for_args a typeof
        if self._launch_config_sensitive:
            key = (argtypes, _launch_config_key(config))
            kernel = self._launch_config_kernels.get(key)
            if kernel is None:
                with launchconfig.compiling_for(config):
                    kernel = self._compile_for_args(*prepared)
                self._launch_config_kernels[key] = kernel
            return kernel
        kernel = self.overloads.get(argtypes)
        if kernel is not None:
            return kernel
        if not self._can_compile:
            return self.kernel_for(argtypes)
        with launchconfig.compiling_for(config):
            return self._compile_for_args(*prepared)

    def _compile_for_args(self, *args, **kws):
        """Compile (or find) the kernel for the types of ``args``: what a launch calls when the
        kernel is not compiled for its arguments (NVIDIA's and Numba's dispatchers have it)."""
        config = launchconfig.current_launch_config()
        typed = getattr(config, "_typed", None) if config is not None and config.dispatcher is self else None
        if not kws and typed is not None and typed[0] == tuple(map(id, args)):
            argtypes = typed[1]  # the launch's own bound and typed values
        else:
            args = self.bind_arguments(args, kws)
            argtypes = tuple(self.typeof_argument(value, index)[1] for index, value in enumerate(args))
        for record in self.__dict__.get("_compile_config_captures", ()):
            record["config"] = config
        if self._launch_config_sensitive and config is not None:
            return self._compile_new(argtypes, None, config)
        return self.kernel_for(argtypes)

    def mark_launch_config_sensitive(self):
        """Say that the compilation in progress generates code from the launch configuration:
        the kernel is then compiled again for each launch configuration it is launched with,
        and kept out of the disk cache.  Call it while a launch of this dispatcher compiles
        (from typing or lowering code); ``RuntimeError`` otherwise."""
        config = launchconfig.ensure_current_launch_config()
        if config.dispatcher is not self:
            raise RuntimeError(
                "mark_launch_config_sensitive() must be called on the active launch "
                "configuration's dispatcher")
        config._kernel_launch_config_sensitive = True

    def bind_arguments(self, args, kwargs=None):
        """The positional tuple, in parameter order with the defaults filled in, of a launch
        with ``args`` and ``kwargs``; Python's own ``TypeError`` when they do not fit the
        kernel's signature."""
        if not kwargs and len(args) == self._arity:
            return tuple(args)
        return self._binder(args, kwargs or {})

    def launch(self, args, griddim, blockdim, stream=0, sharedmem=0, kwargs=None, config=None):
        plannable = config is None or not config.pre_launch_callbacks
        if kwargs:  # keywords: bound first, so all below sees the positional tuple
            args = self._binder(args, kwargs)
            # with keyword-only parameters or *args, that tuple may not bind as a positional
            # launch would: it neither uses nor makes a prepared plan
            plannable = plannable and self._arity >= 0
        if self._launch_config_sensitive:  # compiled per launch configuration: no plans
            plannable = False
        if self.extensions:
            args = args if kwargs else self.bind_arguments(args)
            return self._launch_with_extensions(args, griddim, blockdim, stream, sharedmem)
        # Fast path: arguments whose Numba types are known without typeof (device arrays,
        # Python and NumPy scalars) find the kernel already loaded in the current context.
        # Plans are keyed by the arguments as given: a plan for a launch relying on defaults
        # binds them itself, so launches that need no binding test nothing here.
        key = _fast_type_key(args) if plannable else None
        if key is not None:
            context = _current_context()
            plans = self._launch_plans.get(context)
            if plans is not None:
                plan = plans.get(key)
                if plan is not None:
                    return plan.launch(context, griddim, blockdim, stream, sharedmem, args)
        # The general path: defaults are filled in (a wrong count is Python's TypeError),
        # arguments are typed and the kernel compiled before the driver is asked for
        # anything, so a bad argument or kernel raises its own error without a GPU.
        given = args
        if not kwargs and len(args) != self._arity:
            args = self._binder(args, {})
        prepared, argtypes = [], []
        for index, value in enumerate(args):
            value, ty = self.typeof_argument(value, index)
            prepared.append(value)
            argtypes.append(ty)
        if config is None:
            config = LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)
        config.args = tuple(args)
        kernel = self._kernel_for_launch(tuple(argtypes), prepared, config)
        for callback in config.pre_launch_callbacks:
            callback(kernel, config)
        context = _current_context()

        image = kernel.image(tuple(context.device.compute_capability))
        loaded = self._carved(_load_kernel(image, context))
        if key is not None and not self._launch_config_sensitive:  # (it may be marked now)
            # (the arguments as given are the first of the bound ones)
            binder = None if args is given else self._binder
            self._launch_plans.setdefault(context, {})[key] = _LaunchPlan(image, binder,
                                                                          tuple(argtypes))
        return loaded.launch(griddim, blockdim, stream, sharedmem, tuple(prepared))

    def _carved(self, loaded):
        """``loaded`` with this kernel's ``shared_memory_carveout`` set on it (once)."""
        carveout = self.shared_memory_carveout
        if carveout is not None and loaded.shared_memory_carveout != carveout:
            loaded.set_shared_memory_carveout(carveout)
        return loaded

    def _launch_with_extensions(self, args, griddim, blockdim, stream, sharedmem):
        """Numba's extension protocol: each argument's ``(type, value)`` passes through every
        extension's ``prepare_args`` (last added first, as in Numba) before it is launched;
        the ``retr`` callables they leave run after the launch."""
        retr = []
        prepared = []
        for value in args:
            value, ty = self.typeof_argument(value)
            for extension in reversed(self.extensions):
                ty, value = extension.prepare_args(ty, value, stream=stream, retr=retr)
            prepared.append(value)
        kernel = self.kernel_for([self.typeof_argument(v)[1] for v in prepared])
        context = _current_context()
        loaded = self._carved(
            _load_kernel(kernel.image(tuple(context.device.compute_capability)), context))
        state = loaded.launch(griddim, blockdim, stream, sharedmem, tuple(prepared))
        for writeback in retr:
            writeback()
        return state

    def specialize(self, *args, **kwargs):
        """A dispatcher compiled only for the types of ``args`` and ``kwargs`` (bound as a
        launch binds them; no further compilation).  The same types (for the same compute
        capability) give the same dispatcher (``specializations``, as in both peers); a
        dispatcher that is specialized already -- by ``specialize``, or compiled for one
        signature given to ``cuda.jit`` -- raises ``RuntimeError``."""
        args = self.bind_arguments(args, kwargs)
        argtypes = tuple(self.typeof_argument(a, i)[1] for i, a in enumerate(args))
        if self.specialized:
            raise RuntimeError(
                "Dispatcher already specialized: a kernel compiled for one signature (by "
                "specialize(), or given it to cuda.jit) cannot be specialized again; specialize "
                "the dispatcher it came from, or jit the function without a signature")
        key = (capability.resolve_cc(None, current_device_cc), argtypes)
        clone = self.specializations.get(key)
        if clone is not None:
            return clone
        clone = CUDADispatcher(self.py_func, targetoptions=self._user_options())
        clone.compile(argtypes)
        clone.disable_compile()
        clone._specialized = True
        self.specializations[key] = clone
        return clone

    @functools.cached_property
    def specializations(self):
        """``(compute capability, argument types)`` -> the dispatcher ``specialize`` made."""
        return {}

    @property
    def specialized(self):
        """Compiled for one signature and no more: by ``specialize()``, or given one signature
        to ``cuda.jit`` (both peers' meaning)."""
        return self._specialized or (not self._can_compile and len(self.overloads) == 1)

    def _user_options(self):
        o = self.options
        return {"device": self.device, "link": self.link, "cache": self._kernel_cache.enabled,
                "debug": o.debug, "lineinfo": o.lineinfo,
                "fastmath": o.fastmath, "opt": o.opt, "inline": self.jit_options.inline,
                "max_registers": o.max_registers, "boundscheck": o.boundscheck, "lto": o.lto,
                "extensions": list(self.extensions), "launch_bounds": o.launch_bounds,
                "shared_memory_carveout": self.shared_memory_carveout}

    # ---- inspection -------------------------------------------------------------------
    def _select(self, signature):
        if signature is None:
            return dict(self.overloads)
        args, _ = sigutils.normalize_signature(signature)
        return {tuple(args): self.overloads[tuple(args)]}

    def inspect_llvm(self, signature=None):
        """NVVM IR per signature (dict), or the IR for ``signature``."""
        out = {}
        for args, ovl in self._select(signature).items():
            lib = ovl.library
            out[args] = lib.get_llvm_str()
        return out if signature is None else next(iter(out.values()))

    def inspect_asm(self, signature=None, cc=None):
        """PTX per signature (dict), or the PTX for ``signature``."""
        out = {}
        for args, ovl in self._select(signature).items():
            # kernels: through their image for cc (kept, e.g. for pickling); device functions:
            # a library exporting the function (their own exports nothing: empty PTX)
            out[args] = (self._exported_library(args, ovl).get_ptx(
                capability.resolve_cc(cc, current_device_cc)) if self.device
                else ovl.inspect_asm(cc))
        return out if signature is None else next(iter(out.values()))

    def inspect_lto_ptx(self, signature=None, cc=None):
        """The PTX of link-time optimisation (nvJitLink ``-lto -ptx``) per signature (dict), or
        for ``signature``, for ``cc`` (default: the current device's, else the lowest the
        installed libNVVM accepts): the kernel's LTO-IR and the LTO-IR and CUDA C/C++ it links,
        optimised together (NVIDIA's method).  Needs nvJitLink, no GPU."""
        if self.device:
            # RuntimeError, as for inspect_sass: LTO keeps only what a kernel reaches, so a
            # device function's own LTO PTX would be empty
            raise RuntimeError(f"inspect_lto_ptx() needs a kernel: {self.py_func.__qualname__} is a "
                               "device function, which link-time optimisation keeps only where a "
                               "kernel calls it (inspect the kernel that calls it)")
        out = {args: kernel.inspect_lto_ptx(cc) for args, kernel in self._select(signature).items()}
        return out if signature is None else next(iter(out.values()))

    def _exported_library(self, args, cres):
        from ..compiler.api import exported_library

        libraries = self.__dict__.setdefault("_exported_libraries", {})
        found = libraries.get(args)
        if found is None or found[0] is not cres:  # (recompiled: NRT changed)
            found = libraries[args] = (cres, exported_library(cres, self.options.nvvm_options()))
        return found[1]

    def inspect_sass(self, signature=None, cc=None):
        """SASS per signature (dict), or the SASS for ``signature``, for ``cc`` (default: the
        current device's, else the lowest the installed libNVVM accepts).  Needs the toolkit's
        nvdisasm (optional: ``pip install nvidia-cuda-nvdisasm`` for CUDA 13); no GPU needed."""
        return self._disassembly("inspect_sass", signature, cc)

    def inspect_sass_cfg(self, signature=None, cc=None):
        """The SASS control-flow graph (DOT text) per signature, or for ``signature``."""
        return self._disassembly("inspect_sass_cfg", signature, cc)

    def _disassembly(self, method, signature, cc):
        if self.device:
            # RuntimeError: what Numba raises here
            raise RuntimeError(f"{method}() needs a kernel: {self.py_func.__qualname__} is a device "
                               "function (inspect the kernel that calls it)")
        out = {args: getattr(kernel, method)(cc) for args, kernel in self._select(signature).items()}
        return out if signature is None else next(iter(out.values()))

    def inspect_types(self, file=None, signature=None):
        """Print Numba's typed IR annotation of each specialisation."""
        file = file or sys.stdout
        for args, ovl in self._select(signature).items():
            annotation = ovl.type_annotation
            print(f"{self.py_func.__qualname__} {args}", file=file)
            print("-" * 80, file=file)
            print(annotation, file=file)
            print("=" * 80, file=file)

    def _attribute(self, name, signature):
        from ..runtime.launch import kernel_attributes

        cc = launch_cc()
        result = {}
        for args, kernel in self._select(signature).items():
            result[args] = kernel_attributes(kernel.image(cc))[name]
        return result if signature is None else next(iter(result.values()))

    def get_regs_per_thread(self, signature=None):
        return self._attribute("regs", signature)

    def get_shared_mem_per_block(self, signature=None):
        return self._attribute("shared", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._attribute("local", signature)

    def get_const_mem_size(self, signature=None):
        return self._attribute("const", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._attribute("max_threads", signature)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0, signature=None):
        """The most blocks of ``blockdim`` threads a cooperative launch of this kernel can have
        on the current device (kernels using ``cuda.cg.this_grid().sync()`` are launched
        cooperatively and need every block resident at once).  The kernel must be compiled
        (eager signature, ``compile`` or one launch); with several signatures, pass
        ``signature``.  Needs a GPU (``CudaSupportError`` without a driver)."""
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function, not a kernel")
        selected = self._select(signature)
        if len(selected) != 1:
            have = ", ".join(str(args) for args in selected) or "none"
            raise TypeError(
                f"{self.py_func.__qualname__}.max_cooperative_grid_blocks needs exactly one "
                f"compiled signature or signature=...; compiled signatures: {have}")
        kernel = next(iter(selected.values()))
        return max_cooperative_grid_blocks(kernel, blockdim, dynsmemsize)

    # ---- pickling (numba_cuda.common.pickling) -----------------------------------------------
    def __reduce__(self):
        from .disk_cache import ready_payloads

        eager = [] if self._can_compile else list(self.overloads)
        return pickling.reduce_dispatcher(self, {
            "py_func": self.py_func, "targetoptions": self._user_options(), "sigs": eager,
            "specialized": self._specialized, "kernels": ready_payloads(self)})

    @classmethod
    def _rebuild(cls, uuid, py_func, targetoptions, sigs, specialized, kernels):
        def make():
            from .disk_cache import install_payloads

            dispatcher = cls(py_func, targetoptions=targetoptions)
            install_payloads(dispatcher, kernels)
            for args in sigs:
                dispatcher.compile(args)
            if sigs:
                dispatcher.disable_compile()
            dispatcher._specialized = specialized
            return dispatcher

        return pickling.rebuild_once(uuid, make)

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<CUDA {kind} {self.py_func.__qualname__}>"

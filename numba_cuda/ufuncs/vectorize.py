"""``numba.vectorize(signatures, target="cuda")``: element-wise CUDA ufuncs.

``CUDAVectorize`` is the builder Numba's ``Vectorize`` hands the function to (``add(sig)`` per
eager signature, ``build_ufunc()``); the result is a ``CUDAUFunc``::

    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(a, b):
        return 2 * (a - b) / (a + b)

    rel_diff(x, y)                      # host arrays: copied in, result copied back
    rel_diff(d_x, d_y, out=d_out)       # device arrays (any CUDA Array Interface object)
    rel_diff(d_x, 1.5, stream=s)        # scalars broadcast; work queued on stream s

Calls follow NumPy's ufunc rules for shapes (broadcasting) and pick a signature as described
in ``loops.py``.  Each input element is converted to the signature's type inside the kernel,
so device arrays of another (safely convertible) dtype need no copy.  The result is a device
array when any argument (or ``out``) is on the device, else a host array; with only scalars,
a NumPy scalar.  With ``stream``, copies and the kernel are queued on it; results copied to
the host are complete after ``stream.synchronize()``.

The user function is compiled eagerly, as a device function, for every signature (type errors
show at decoration); kernels are generated per call shape (number of dimensions, which inputs
are scalars) and compiled for the argument types at their first launch.
"""

import numpy as np
from numba.core import sigutils, types

from ..common import pickling
from . import kernelsource
from .backend import broadcast_view, c_contiguous, current_backend, flat_view
from .loops import Loop, Scalar, UfuncTypeError, is_scalar, select_loop

#: Threads per block of ufunc kernels.
THREADS_PER_BLOCK = 256

#: Options Numba's decorators pass through that mean nothing different on the GPU.
_IGNORED_OPTIONS = ("nopython",)


def check_options(kind, targetoptions, cache):
    options = dict(targetoptions or {})
    for name in _IGNORED_OPTIONS:
        options.pop(name, None)
    if options:
        raise TypeError(f"{kind}(target='cuda') does not support the option(s) "
                        f"{', '.join(sorted(options))}")
    if cache:
        raise TypeError(f"{kind}(target='cuda') does not support cache=True (the kernels are "
                        "compiled at their first call)")


def _scalar_type(numba_type, where):
    if not isinstance(numba_type, (types.Number, types.Boolean)):
        raise UfuncTypeError(
            f"vectorize(target='cuda') signatures take scalar types; {where} is {numba_type} "
            "(use guvectorize for functions of arrays)")
    return numba_type


class CUDAVectorize:
    """Builder of a ``CUDAUFunc`` (the ``target="cuda"`` entry of Numba's ``Vectorize``)."""

    def __init__(self, func, identity=None, cache=False, targetoptions=None, backend=None):
        check_options("vectorize", targetoptions, cache)
        self.pyfunc = func
        self.identity = identity
        self.backend = backend or current_backend()
        self.loops = []

    def add(self, sig=None):
        if sig is None:
            raise TypeError("vectorize(target='cuda') needs a signature, e.g. "
                            "'float32(float32, float32)'")
        args, restype = sigutils.normalize_signature(sig)
        where = f"argument {{}} of {self.pyfunc.__name__}{tuple(str(a) for a in args)}"
        args = tuple(_scalar_type(a, where.format(k)) for k, a in enumerate(args))
        if restype is not None:
            _scalar_type(restype, f"the return type of {self.pyfunc.__name__}")
        if self.loops and len(args) != len(self.loops[0].argtypes):
            raise TypeError(f"every signature of {self.pyfunc.__name__} needs "
                            f"{len(self.loops[0].argtypes)} arguments, {sig!r} has {len(args)}")
        core = self.backend.api.jit(args if restype is None else restype(*args),
                                    device=True)(self.pyfunc)
        if restype is None:
            restype = _compiled_return_type(core, args)
        if not isinstance(restype, (types.Number, types.Boolean)):
            raise UfuncTypeError(f"{self.pyfunc.__name__}{args} returns {restype}; a CUDA "
                                 "vectorized function must return a number or a boolean")
        self.loops.append(Loop(len(self.loops), args, (restype,), core))

    def disable_compile(self):
        """Numba calls this after the eager signatures; there is no lazy mode to disable."""

    def build_ufunc(self):
        if not self.loops:
            raise TypeError(
                f"vectorize(target='cuda') needs eager signatures: "
                f"@vectorize(['float64(float64, float64)'], target='cuda') on "
                f"{self.pyfunc.__name__}")
        return CUDAUFunc(self.pyfunc, self.loops, self.identity, self.backend)


def _compiled_return_type(core, args):
    overloads = getattr(core, "overloads", None)
    if overloads and tuple(args) in overloads:
        return overloads[tuple(args)].signature.return_type
    # The simulator runs Python: the type of the result for arguments of one.
    from numba import typeof
    from numba.np import numpy_support

    try:
        with np.errstate(all="ignore"):
            result = core.py_func(*[numpy_support.as_dtype(a).type(1) for a in args])
        return typeof(result)
    except Exception as exc:  # noqa: BLE001 - any failure: ask for the type instead
        raise TypeError(
            f"the return type of {core.py_func.__name__}{tuple(str(a) for a in args)} could not "
            f"be found in the simulator ({type(exc).__name__}: {exc}); write it in the "
            "signature, e.g. 'float64(float64, float64)'") from exc


class CUDAUFunc:
    """An element-wise function over device or host arrays (see the module docstring)."""

    def __init__(self, pyfunc, loops, identity, backend):
        self.pyfunc = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.loops = tuple(loops)
        self.identity = identity
        self.backend = backend
        self.nin = len(loops[0].argtypes)
        self.nout = 1
        self.nargs = self.nin + 1
        self._kernels = {}

    # ---- NumPy-like description ------------------------------------------------------------
    @property
    def types(self):
        return [loop.typestring() for loop in self.loops]

    @property
    def ntypes(self):
        return len(self.loops)

    @property
    def signatures(self):
        return [loop.outtypes[0](*loop.argtypes) for loop in self.loops]

    def __repr__(self):
        return f"<CUDA ufunc {self.__name__} {self.types}>"

    # ---- pickling (numba_cuda.common.pickling): by reference when importable, else by value ----
    def __reduce__(self):
        return pickling.reduce_dispatcher(self, {
            "pyfunc": self.pyfunc, "sigs": self.signatures, "identity": self.identity},
            func=self.pyfunc)

    @classmethod
    def _rebuild(cls, uuid, pyfunc, sigs, identity):
        def make():
            builder = CUDAVectorize(pyfunc, identity=identity)
            for sig in sigs:
                builder.add(sig)
            return builder.build_ufunc()

        return pickling.rebuild_once(uuid, make)

    # ---- kernels ---------------------------------------------------------------------------
    def kernel(self, loop, ndim, scalars=frozenset()):
        """The (lazily compiled) kernel dispatcher for ``loop`` over ``ndim``-dimensional
        arrays, with the inputs at positions ``scalars`` passed as scalars."""
        key = (loop.index, ndim, frozenset(scalars))
        kernel = self._kernels.get(key)
        if kernel is None:
            api = self.backend.api
            name = f"__cuda_ufunc_{kernelsource.identifier(self.__name__)}_{ndim}d"
            source = kernelsource.elementwise_source(name, self.nin, ndim, frozenset(scalars))
            namespace = {"__cuda__": api, "__core__": loop.core}
            namespace.update({f"__cast{k}": t for k, t in enumerate(loop.argtypes)})
            fn = kernelsource.make_function(source, name, namespace,
                                            f"vectorize {self.__name__} {ndim}-d kernel")
            kernel = self._kernels[key] = api.jit(fn)
        return kernel

    # ---- calls -----------------------------------------------------------------------------
    def __call__(self, *args, out=None, stream=0, **kwargs):
        if kwargs:
            raise TypeError(f"CUDA ufunc {self.__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(kwargs))} (supported: out, stream)")
        if len(args) == self.nin + 1 and out is None:
            *args, out = args
        if len(args) != self.nin:
            raise TypeError(f"CUDA ufunc {self.__name__}() takes {self.nin} input argument(s) "
                            f"(and optionally out=), got {len(args)}")
        backend = self.backend
        stream = stream or 0

        # classify the inputs: device arrays, host arrays, scalars
        inputs, described, scalars = [], [], set()
        for k, value in enumerate(args):
            if backend.is_device_array(value):
                dev = backend.as_device_array(value)
                inputs.append(dev)
                described.append(np.dtype(dev.dtype))
            elif is_scalar(value):
                scalars.add(k)
                inputs.append(value)
                described.append(Scalar(value))
            else:
                host = np.asarray(value)
                if host.dtype.hasobject:
                    raise UfuncTypeError(f"CUDA ufunc {self.__name__}: argument {k} holds "
                                         "Python objects; pass numeric arrays")
                inputs.append(host)
                described.append(host.dtype)
        loop = select_loop(self.__name__, self.loops, described)
        out_dtype = loop.out_dtypes[0]

        array_shapes = [a.shape for k, a in enumerate(inputs) if k not in scalars]
        shape = tuple(np.broadcast_shapes(*array_shapes)) if array_shapes else ()
        on_device = any(backend.is_device_array(a) for k, a in enumerate(args)
                        if k not in scalars)

        out_dev, out_host = None, None
        if out is not None:
            if backend.is_device_array(out):
                out_dev = backend.as_device_array(out)
                on_device = True
            elif isinstance(out, np.ndarray):
                out_host = out
            else:
                raise TypeError(f"out= must be a host or device array, got {type(out).__name__}")
            target = out_dev if out_dev is not None else out_host
            if tuple(target.shape) != shape:
                raise ValueError(f"CUDA ufunc {self.__name__}: out has shape "
                                 f"{tuple(target.shape)}, the broadcast inputs have {shape}")
            if not np.can_cast(out_dtype, target.dtype, "same_kind"):
                raise UfuncTypeError(f"CUDA ufunc {self.__name__}: cannot store the "
                                     f"{out_dtype} result into an out array of {target.dtype}")
            if out_host is not None and not out_host.flags.writeable:
                raise ValueError("out= is a read-only array")

        size = int(np.prod(shape, dtype=np.int64))
        if out_dev is None:
            dtype = out_host.dtype if out_host is not None else out_dtype
            out_dev = backend.device_array(shape, dtype, stream)
        if size:
            self._launch(loop, inputs, scalars, out_dev, shape, stream)

        if on_device:
            return out_dev
        if out_host is not None:
            backend.to_host(out_dev, out_host, stream)
            return out_host
        result = backend.to_host(out_dev, None, stream)
        return result[()] if not shape else result

    def _launch(self, loop, inputs, scalars, out_dev, shape, stream):
        backend = self.backend
        run_shape = shape if shape else (1,)  # 0-d calls run as one element
        devs = []
        for k, value in enumerate(inputs):
            if k in scalars:
                devs.append(loop.in_dtypes[k].type(value))
                continue
            if not backend.is_device_array(value):
                value = backend.to_device(value, stream)
            devs.append(broadcast_view(backend, value, run_shape))
        out_view = broadcast_view(backend, out_dev, run_shape)
        arrays = [d for k, d in enumerate(devs) if k not in scalars] + [out_view]
        ndim = len(run_shape)
        if ndim > 1 and all(c_contiguous(a.shape, a.strides, a.dtype.itemsize) for a in arrays):
            devs = [d if k in scalars else flat_view(backend, d) for k, d in enumerate(devs)]
            out_view = flat_view(backend, out_view)
            ndim = 1
        kernel = self.kernel(loop, ndim, scalars)
        count = out_view.size
        threads = min(THREADS_PER_BLOCK, count)
        blocks = (count + threads - 1) // threads
        backend.launch(kernel, blocks, threads, stream, devs + [out_view])

    def reduce(self, arr, stream=0):
        """Fold a 1-D array with this binary ufunc (``ufunc.reduce``), on the device."""
        if self.nin != 2:
            raise TypeError(f"reduce needs a binary ufunc; {self.__name__} takes {self.nin} "
                            "inputs")
        from .reduction import Reduce

        return Reduce(self.pyfunc, backend=self.backend).reduce_without_init(arr, stream)

"""``numba.guvectorize(signatures, layout, target="cuda")``: generalized CUDA ufuncs.

::

    @guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])"],
                 "(m,n),(n,p)->(m,p)", target="cuda")
    def matmul(a, b, c):
        ...

    c = matmul(a, b)                   # host arrays in, host array out
    matmul(d_a, d_b, d_c)              # outputs passed positionally ...
    matmul(d_a, d_b, out=d_c)          # ... or with out= (a tuple for several outputs)

The function receives, per index of the loop dimensions (the leading dimensions beyond the
layout's core dimensions, broadcast between inputs as NumPy does), views of each argument's
core dimensions; one GPU thread runs it per loop index.  A ``()`` core argument declared as a
scalar type receives the element; declared as a 1-D array it receives a 1-element view (the
way outputs of ``()`` are written: ``out[0] = ...``).

Arrays must have the signature's dtype: host arrays are converted (a copy) when NumPy can cast
them safely, device arrays must match.  Outputs not given are allocated with the loop shape
plus their core dimensions, which must all appear in the inputs.  Results are device arrays
when any argument is on the device, else host arrays; ``stream=`` queues everything on a stream.
"""

import numpy as np
from numba.core import sigutils, types
from numba.np.ufunc.sigparse import parse_signature

from ..common import pickling
from . import kernelsource
from .backend import broadcast_view, current_backend
from .loops import Loop, Scalar, UfuncTypeError, is_scalar, select_loop
from .schedule import GUFuncEngine
from .vectorize import check_options

#: Threads per block of gufunc kernels (each thread runs the whole core function).
THREADS_PER_BLOCK = 128


class CUDAGUFuncVectorize:
    """Builder of a ``CUDAGUFunc`` (the ``target="cuda"`` entry of Numba's ``GUVectorize``)."""

    def __init__(self, func, signature, identity=None, cache=False, targetoptions=None,
                 writable_args=(), backend=None):
        options = dict(targetoptions or {})
        if options.pop("is_dynamic", False):
            raise TypeError(
                "guvectorize(target='cuda') needs eager signatures: "
                f"@guvectorize(['void(float64[:], float64[:])'], {signature!r}, target='cuda')")
        check_options("guvectorize", options, cache)
        if writable_args:
            raise TypeError("guvectorize(target='cuda') does not support writable_args (device "
                            "arrays are always writable)")
        self.pyfunc = func
        self.layout = signature
        try:
            self.core_in, self.core_out = parse_signature(signature)
        except (ValueError, NameError) as exc:  # NameError: output-only dimension names
            raise ValueError(f"invalid gufunc layout {signature!r}: {exc}") from None
        if not self.core_out:
            raise ValueError(f"the gufunc layout {signature!r} has no output")
        self.identity = identity
        self.backend = backend or current_backend()
        self.loops = []
        self.kinds = None

    def add(self, sig=None):
        if sig is None:
            raise TypeError("guvectorize(target='cuda') needs a signature, e.g. "
                            "'void(float32[:], float32[:])'")
        args, restype = sigutils.normalize_signature(sig)
        name = self.pyfunc.__name__
        if restype not in (None, types.none, types.void):
            raise TypeError(f"guvectorized functions write their outputs and return nothing; "
                            f"{sig!r} of {name} returns {restype}")
        core_dims = list(self.core_in) + list(self.core_out)
        if len(args) != len(core_dims):
            raise TypeError(f"the signature {sig!r} of {name} has {len(args)} arguments, the "
                            f"layout {self.layout!r} has {len(core_dims)}")
        kinds, compiled = [], []
        for k, (ty, dims) in enumerate(zip(args, core_dims)):
            is_output = k >= len(self.core_in)
            where = f"argument {k} of {name} ({'output' if is_output else 'input'} {dims or '()'})"
            if isinstance(ty, types.Array):
                if dims and ty.ndim != len(dims):
                    raise TypeError(f"{where} is {ty}, which has {ty.ndim} dimension(s); the "
                                    f"layout gives it {len(dims)}")
                if not dims and ty.ndim != 1:
                    raise TypeError(f"{where} is {ty}: a () core argument is a scalar or a 1-D "
                                    "array of one element")
                kinds.append("array" if dims else "cell")
                compiled.append(ty.copy(layout="A"))  # views of any strides reach it
            elif isinstance(ty, (types.Number, types.Boolean)):
                if dims:
                    raise TypeError(f"{where} is the scalar {ty} but has core dimensions {dims}")
                if is_output:
                    raise TypeError(f"{where} is the scalar {ty}; outputs are arrays (for a "
                                    f"() output declare {ty}[:] and write out[0])")
                kinds.append("scalar")
                compiled.append(ty)
            else:
                raise UfuncTypeError(f"{where} has the unsupported type {ty}")
        if self.kinds is not None and kinds != self.kinds:
            raise TypeError(f"every signature of {name} must use arrays and scalars at the same "
                            f"positions; {sig!r} differs from the first")
        self.kinds = kinds
        core = self.backend.api.jit(types.void(*compiled), device=True)(self.pyfunc)
        nin = len(self.core_in)
        self.loops.append(Loop(len(self.loops), args[:nin], args[nin:], core))

    def disable_compile(self):
        """Numba calls this after the eager signatures; there is no lazy mode to disable."""

    def build_ufunc(self):
        if not self.loops:
            raise TypeError(f"guvectorize(target='cuda') needs eager signatures for "
                            f"{self.pyfunc.__name__}")
        return CUDAGUFunc(self.pyfunc, self.layout, self.core_in, self.core_out, self.loops,
                          self.kinds, self.backend)


class CUDAGUFunc:
    """A generalized ufunc over device or host arrays (see the module docstring)."""

    def __init__(self, pyfunc, layout, core_in, core_out, loops, kinds, backend):
        self.pyfunc = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.signature = layout
        self.core_in = tuple(tuple(d) for d in core_in)
        self.core_out = tuple(tuple(d) for d in core_out)
        self.nin = len(core_in)
        self.nout = len(core_out)
        self.nargs = self.nin + self.nout
        self.engine = GUFuncEngine(self.core_in, self.core_out, name=self.__name__)
        self.loops = tuple(loops)
        self.kinds = tuple(kinds)
        self.backend = backend
        self._kernels = {}

    @property
    def types(self):
        return [loop.typestring() for loop in self.loops]

    @property
    def ntypes(self):
        return len(self.loops)

    def __repr__(self):
        return f"<CUDA gufunc {self.__name__} {self.signature!r} {self.types}>"

    # ---- pickling (numba_cuda.common.pickling): by reference when importable, else by value ----
    def __reduce__(self):
        sigs = [types.void(*(loop.argtypes + loop.outtypes)) for loop in self.loops]
        return pickling.reduce_dispatcher(self, {
            "pyfunc": self.pyfunc, "layout": self.signature, "sigs": sigs}, func=self.pyfunc)

    @classmethod
    def _rebuild(cls, uuid, pyfunc, layout, sigs):
        def make():
            builder = CUDAGUFuncVectorize(pyfunc, layout)
            for sig in sigs:
                builder.add(sig)
            return builder.build_ufunc()

        return pickling.rebuild_once(uuid, make)

    def kernel(self, loop, outer_ndim):
        """The (lazily compiled) kernel dispatcher for ``loop`` with ``outer_ndim`` (>= 1) loop
        dimensions."""
        key = (loop.index, outer_ndim)
        kernel = self._kernels.get(key)
        if kernel is None:
            api = self.backend.api
            name = f"__cuda_gufunc_{kernelsource.identifier(self.__name__)}_{outer_ndim}d"
            source = kernelsource.gufunc_source(name, self.kinds, outer_ndim)
            fn = kernelsource.make_function(source, name, {"__cuda__": api, "__core__": loop.core},
                                            f"guvectorize {self.__name__} {outer_ndim}-d kernel")
            kernel = self._kernels[key] = api.jit(fn)
        return kernel

    def _split_outputs(self, args, out):
        if out is not None:
            if len(args) != self.nin:
                raise TypeError(f"{self.__name__}: pass outputs either positionally or with "
                                "out=, not both")
            outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        elif len(args) == self.nargs:
            args, outs = args[:self.nin], tuple(args[self.nin:])
        elif len(args) == self.nin:
            outs = (None,) * self.nout
        else:
            raise TypeError(f"CUDA gufunc {self.__name__}() takes {self.nin} inputs (and "
                            f"optionally {self.nout} output(s)), got {len(args)} arguments")
        if len(outs) != self.nout:
            raise TypeError(f"{self.__name__} has {self.nout} output(s); out= gave {len(outs)}")
        return list(args), list(outs)

    def __call__(self, *args, out=None, stream=0, **kwargs):
        if kwargs:
            raise TypeError(f"CUDA gufunc {self.__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(kwargs))} (supported: out, stream)")
        backend = self.backend
        stream = stream or 0
        inputs, outputs = self._split_outputs(args, out)

        on_device = False
        values, described = [], []
        for k, value in enumerate(inputs):
            if backend.is_device_array(value):
                value = backend.as_device_array(value)
                on_device = True
                described.append(np.dtype(value.dtype))
            elif is_scalar(value):
                if self.core_in[k]:
                    raise TypeError(f"{self.__name__}: input {k} has core dimensions "
                                    f"{self.core_in[k]}, it cannot be the scalar {value!r}")
                described.append(Scalar(value))
            else:
                value = np.asarray(value)
                described.append(value.dtype)
            values.append(value)
        for value in outputs:
            if value is not None and backend.is_device_array(value):
                on_device = True
        loop = select_loop(self.__name__, self.loops, described)

        # inputs as arrays of the loop's dtypes
        arrays = []
        for k, (value, dtype) in enumerate(zip(values, loop.in_dtypes)):
            if backend.is_device_array(value):
                if value.dtype != dtype:
                    raise UfuncTypeError(
                        f"{self.__name__}: input {k} is a device array of {value.dtype}, the "
                        f"selected signature {loop!r} needs {dtype}; convert it first")
            else:
                value = np.asarray(value, dtype=dtype)
            arrays.append(value)

        # core dimensions and the loop shape
        schedule = self.engine.schedule([value.shape for value in arrays])
        sizes, outer = dict(schedule.sizes), schedule.loopdims

        out_arrays, host_outs = [], []
        for k, (value, dims, dtype) in enumerate(zip(outputs, self.core_out, loop.out_dtypes)):
            if value is None:
                missing = [d for d in dims if d not in sizes]
                if missing:
                    raise ValueError(f"{self.__name__}: output {k} has core dimension(s) "
                                     f"{missing} that no input fixes; pass the output array")
                shape = outer + tuple(sizes[d] for d in dims)
                out_arrays.append(backend.device_array(shape, dtype, stream))
                host_outs.append(None)
                continue
            if backend.is_device_array(value):
                dev = backend.as_device_array(value)
                host_outs.append(None)
            elif isinstance(value, np.ndarray):
                host_outs.append(value)
                dev = value
            else:
                raise TypeError(f"{self.__name__}: output {k} must be an array, got "
                                f"{type(value).__name__}")
            if dev.dtype != dtype:
                raise UfuncTypeError(f"{self.__name__}: output {k} has dtype {dev.dtype}, the "
                                     f"selected signature {loop!r} writes {dtype}")
            self.engine.bind(sizes, dims, dev.shape[dev.ndim - len(dims):], f"output {k}")
            if tuple(dev.shape[:dev.ndim - len(dims)]) != outer:
                raise ValueError(f"{self.__name__}: output {k} has loop dimensions "
                                 f"{tuple(dev.shape[:dev.ndim - len(dims)])}, the inputs give "
                                 f"{outer}")
            if host_outs[-1] is not None:
                dev = backend.device_array(dev.shape, dtype, stream)
            out_arrays.append(dev)

        count = int(np.prod(outer, dtype=np.int64))
        if count:
            self._launch(loop, arrays, out_arrays, outer, stream)

        results = []
        for dev, host in zip(out_arrays, host_outs):
            if host is not None:
                backend.to_host(dev, host, stream)
                results.append(host)
            elif on_device:
                results.append(dev)
            else:
                result = backend.to_host(dev, None, stream)
                results.append(result[()] if result.ndim == 0 else result)
        return results[0] if self.nout == 1 else tuple(results)

    def _launch(self, loop, arrays, out_arrays, outer, stream):
        backend = self.backend
        run_outer = outer if outer else (1,)  # at least one loop dimension
        views = []
        for value, dims in zip(arrays, self.core_in):
            if not backend.is_device_array(value):
                value = backend.to_device(value, stream)
            core = tuple(value.shape[value.ndim - len(dims):]) if dims else ()
            views.append(broadcast_view(backend, value, run_outer + core))
        for value, dims in zip(out_arrays, self.core_out):
            core = tuple(value.shape[value.ndim - len(dims):]) if dims else ()
            views.append(broadcast_view(backend, value, run_outer + core))
        count = int(np.prod(run_outer, dtype=np.int64))
        kernel = self.kernel(loop, len(run_outer))
        threads = min(THREADS_PER_BLOCK, count)
        blocks = (count + threads - 1) // threads
        backend.launch(kernel, blocks, threads, stream, views + [count])

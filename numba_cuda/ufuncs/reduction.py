"""``cuda.reduce``: a binary function turned into a parallel reduction over a 1-D array.

::

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    total = sum_reduce(host_or_device_array)             # returns the value on the host
    sum_reduce(d_array, res=d_result)                     # writes d_result[0], no copy back
    sum_reduce(d_array, size=1000, init=5, stream=s)      # first 1000 elements, plus init

The result is ``f(init, x0 ⊕ x1 ⊕ ... )`` (``init`` defaults to 0 and must have the array's
type); an empty array gives ``init``.  The function must be associative and commutative: the
elements are combined in an unspecified order.

Algorithm: pass 1 launches at most ``MAX_BLOCKS`` blocks of ``BLOCK`` threads; each thread folds
a grid-stride share of the array, then each block combines its threads' values in a tree in
shared memory and writes one partial value.  Pass 2, one block, does the same over the partial
values and applies ``init``.  The function is compiled as a device function per dtype, the
kernels per dtype on first use.
"""

import numpy as np

from . import kernelsource
from .backend import current_backend

#: Threads per block (a power of two: the tree halves it).
BLOCK = 256
#: Blocks of the first pass (so that one block finishes the job in the second).
MAX_BLOCKS = 1024


class Reduce:
    """``Reduce(binary_function)``; call it as ``(arr, size=None, res=None, init=0, stream=0)``."""

    def __init__(self, functor, backend=None):
        if not callable(functor):
            raise TypeError(f"cuda.reduce needs a binary function, got {functor!r}")
        self._functor = getattr(functor, "py_func", functor)
        self.__name__ = getattr(self._functor, "__name__", "reduce")
        self.__doc__ = getattr(self._functor, "__doc__", None)
        self.backend = backend or current_backend()
        self._kernels = {}

    def __repr__(self):
        return f"<cuda.reduce of {self.__name__}>"

    def _kernel(self, dtype):
        kernel = self._kernels.get(dtype)
        if kernel is None:
            from numba.np import numpy_support

            api = self.backend.api
            nbtype = numpy_support.from_dtype(dtype)
            core = api.jit(device=True)(self._functor)
            name = f"__cuda_reduce_{kernelsource.identifier(self.__name__)}"
            source = kernelsource.reduction_source(name, BLOCK)
            fn = kernelsource.make_function(
                source, name, {"__cuda__": api, "__core__": core, "__dtype__": nbtype},
                f"cuda.reduce {self.__name__} kernel")
            kernel = self._kernels[dtype] = api.jit(fn)
        return kernel

    def _source(self, arr, size, stream):
        backend = self.backend
        if backend.is_device_array(arr):
            dev = backend.as_device_array(arr)
        else:
            host = np.asarray(arr)
            dev = None
        shape = (dev if dev is not None else host).shape
        if len(shape) != 1:
            raise ValueError(f"cuda.reduce works on 1-D arrays; got shape {tuple(shape)}")
        dtype = np.dtype((dev if dev is not None else host).dtype)
        if dtype.kind not in "biufc":
            raise TypeError(f"cuda.reduce works on numeric arrays, not {dtype}")
        n = shape[0]
        if size is not None:
            if not isinstance(size, (int, np.integer)) or size < 0:
                raise ValueError(f"size must be a non-negative int, got {size!r}")
            if size > n:
                raise ValueError(f"size={size} is larger than the array ({n} elements)")
            n = int(size)
        if dev is None:
            return host[:n], dtype, n
        return (dev[:n] if n != shape[0] else dev), dtype, n

    def _on_device(self, value, stream):
        if self.backend.is_device_array(value):
            return value
        return self.backend.to_device(np.ascontiguousarray(value), stream)

    def _run(self, dev, dtype, n, init, apply_init, res, stream):
        """Reduce ``dev`` (n > 0 elements) into a 1-element device array (``res`` or new)."""
        backend = self.backend
        kernel = self._kernel(dtype)
        init = dtype.type(init)
        out = res if res is not None else backend.device_array((1,), dtype, stream)
        blocks = min(MAX_BLOCKS, (n + BLOCK - 1) // BLOCK)
        if blocks == 1:
            backend.launch(kernel, 1, BLOCK, stream, (dev, out, init, apply_init))
            return out
        partial = backend.device_array((blocks,), dtype, stream)
        backend.launch(kernel, blocks, BLOCK, stream, (dev, partial, init, False))
        backend.launch(kernel, 1, BLOCK, stream, (partial, out, init, apply_init))
        return out

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        stream = stream or 0
        dev, dtype, n = self._source(arr, size, stream)
        if res is not None:
            if not self.backend.is_device_array(res):
                raise TypeError("res= must be a device array (the result is written to res[0] "
                                "on the device)")
            res = self.backend.as_device_array(res)
            if res.dtype != dtype or res.size < 1:
                raise TypeError(f"res= must be a device array of {dtype} with at least one "
                                f"element, got {res.dtype} of shape {tuple(res.shape)}")
            res = res.reshape(res.size)[:1] if res.ndim != 1 else res[:1]
        if n == 0:
            value = dtype.type(init)
            if res is not None:
                res.copy_to_device(np.array([value], dtype=dtype), stream=stream)
                return None
            return value
        out = self._run(self._on_device(dev, stream), dtype, n, init, True, res, stream)
        if res is not None:
            return None
        return self.backend.to_host(out, None, stream)[0]

    def reduce_without_init(self, arr, stream=0):
        """Fold ``arr`` with no initial value (what ``ufunc.reduce`` does); empty arrays are an
        error."""
        stream = stream or 0
        dev, dtype, n = self._source(arr, None, stream)
        if n == 0:
            raise TypeError(f"{self.__name__}.reduce of an empty array has no identity to return")
        out = self._run(self._on_device(dev, stream), dtype, n, 0, False, None, stream)
        return self.backend.to_host(out, None, stream)[0]


reduce = Reduce

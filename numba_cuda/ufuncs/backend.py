"""Where ufunc arrays live and how their kernels run: the GPU runtime or the simulator.

The ufunc machinery (``vectorize``, ``gufunc``, ``reduction``) only talks to a backend object, so
the same code serves ``numba.vectorize(target="cuda")`` on a GPU and under
``NUMBA_ENABLE_CUDASIM=1`` (and the tests can run the GPU algorithms in the simulator).

A backend provides:

* ``api`` -- the ``numba.cuda``-like module whose kernel language generated kernels use
  (``grid``, ``threadIdx``, ``shared`` ...) and whose ``jit`` compiles them;
* ``is_device_array(obj)`` / ``as_device_array(obj)``;
* ``to_device(host, stream)``, ``device_array(shape, dtype, stream)``, ``to_host(dev, out, stream)``;
* ``strided_view(dev, shape, strides)`` -- a view of the same memory (zero strides broadcast);
* ``launch(kernel, griddim, blockdim, stream, args)``.
"""

import numpy as np


class GPUBackend:
    """Device arrays in GPU memory (``numba_cuda.runtime``); kernels compiled by our compiler."""

    name = "gpu"

    @property
    def api(self):
        import numba_cuda

        return numba_cuda

    def is_device_array(self, obj):
        from ..runtime.interop import is_cuda_array

        return not isinstance(obj, np.ndarray) and is_cuda_array(obj)

    def as_device_array(self, obj):
        from ..runtime.interop import as_cuda_array

        return as_cuda_array(obj)

    def to_device(self, host, stream):
        from ..runtime.api import to_device

        return to_device(host, stream=stream)

    def device_array(self, shape, dtype, stream):
        from ..runtime.api import device_array

        return device_array(shape, dtype=dtype, stream=stream)

    def to_host(self, dev, out, stream):
        return dev.copy_to_host(out, stream=stream)

    def strided_view(self, dev, shape, strides):
        from ..runtime.devicearray import DeviceNDArray

        return DeviceNDArray(tuple(shape), tuple(strides), dev.dtype, stream=dev.stream,
                             gpu_data=dev.gpu_data)

    def launch(self, kernel, griddim, blockdim, stream, args):
        kernel[griddim, blockdim, stream](*args)


class SimulatorBackend:
    """Device arrays are numpy arrays in host memory; kernels run in the simulator."""

    name = "simulator"

    @property
    def api(self):
        from ..simulator import api

        return api

    def is_device_array(self, obj):
        return not isinstance(obj, np.ndarray) and self.api.is_cuda_array(obj)

    def as_device_array(self, obj):
        return self.api.as_cuda_array(obj)

    def to_device(self, host, stream):
        return self.api.to_device(np.asarray(host), stream=stream)

    def device_array(self, shape, dtype, stream):
        return self.api.device_array(shape, dtype=dtype, stream=stream)

    def to_host(self, dev, out, stream):
        return dev.copy_to_host(out, stream=stream)

    def strided_view(self, dev, shape, strides):
        from numpy.lib.stride_tricks import as_strided

        from ..simulator.devicearray import DeviceNDArray

        base = dev._ary
        return DeviceNDArray(as_strided(base, shape=tuple(shape), strides=tuple(strides)),
                             stream=dev.stream)

    def launch(self, kernel, griddim, blockdim, stream, args):
        kernel[griddim, blockdim, stream](*args)


def current_backend():
    """The simulator's backend under ``NUMBA_ENABLE_CUDASIM=1``, else the GPU's."""
    import numba_cuda

    return SimulatorBackend() if numba_cuda.USE_SIMULATOR else GPUBackend()


# ---- array helpers shared by the ufunc kinds ----------------------------------------------------


def c_contiguous(shape, strides, itemsize):
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def broadcast_view(backend, dev, shape):
    """``dev`` seen with ``shape`` (numpy broadcasting rules: new leading axes and axes of extent
    1 get stride 0); ``dev`` itself when the shape already matches."""
    shape = tuple(shape)
    if tuple(dev.shape) == shape:
        return dev
    lead = len(shape) - dev.ndim
    strides = [0] * lead
    for extent, have, stride in zip(shape[lead:], dev.shape, dev.strides):
        strides.append(stride if have == extent else 0)
    return backend.strided_view(dev, shape, strides)


def flat_view(backend, dev):
    """A 1-D view of a C-contiguous device array (shape ``(size,)``)."""
    return backend.strided_view(dev, (dev.size,), (dev.dtype.itemsize,))

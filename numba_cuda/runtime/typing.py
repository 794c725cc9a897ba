"""``numba.typeof`` for device arrays: ``types.Array`` with the array's layout.

Registered when the runtime API is imported.  Objects that only export the
CUDA Array Interface are typed by the dispatcher through
``as_cuda_array(obj)``.
"""

from numba.extending import typeof_impl

from numba_cuda.runtime.devicearray import DeviceNDArray


@typeof_impl.register(DeviceNDArray)
def _typeof_device_array(val, c):
    return val._numba_type_

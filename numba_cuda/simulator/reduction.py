"""``cuda.reduce``: a binary function turned into a reduction over an array."""

import numpy as np

from .devicearray import DeviceNDArray


class Reduce:
    """``Reduce(fn)(arr, size=None, res=None, init=0, stream=0)``."""

    def __init__(self, functor):
        self._functor = functor

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        host = arr._ary if isinstance(arr, DeviceNDArray) else np.asarray(arr)
        host = host.reshape(-1)
        if size is not None:
            host = host[:size]
        result = host.dtype.type(init)
        with np.errstate(all="ignore"):
            for value in host:
                result = self._functor(result, value)
        if res is not None:
            res[0] = result
            return None
        return result


reduce = Reduce

"""The CUDA Array Interface (version 3) without arrays: checking and normalising an interface
dict (``parse_cuda_array_interface``, no GPU needed, shared with the simulator:
:mod:`numba_cuda.common.cuda_array_interface`), the kernel parameters it stands for, and
ordering work after the producer's stream.  Zero-copy arrays over it are made in
``devicearray.from_cuda_array_interface``; ``interop`` is the consumer-facing module.
"""

import numpy as np

from numba_cuda.common.cuda_array_interface import (  # noqa: F401 - checked by the shared validator
    ArrayInterface,
    parse_cuda_array_interface,
)


def kernel_params(parsed):
    """Kernel parameters (Numba's array model) for a parsed interface."""
    size = int(np.prod(parsed.shape, dtype=np.int64)) if parsed.shape else 1
    return (0, 0, size, parsed.dtype.itemsize, parsed.pointer) + parsed.shape + parsed.strides


def _streams_ordered(producer, consumer):
    """True when work on stream value ``consumer`` is already ordered after ``producer``."""
    if producer is None or producer == consumer:
        return True
    defaults = (0, 1, 2)
    return producer in defaults and consumer in defaults


def order_after(producer, consumer_stream, context):
    """Make ``consumer_stream`` (a Stream) wait on the device for stream value ``producer``."""
    if _streams_ordered(producer, consumer_stream.handle_value):
        return
    from numba_cuda.runtime import cudriver

    drv = cudriver.driver()
    event = getattr(context, "_interop_event", None)
    if event is None:
        event = context._interop_event = context.create_event(timing=False)
    cudriver.call(drv.cuEventRecord, event.handle, drv.CUstream(producer))
    cudriver.call(drv.cuStreamWaitEvent, consumer_stream.handle, event.handle, 0)


def synchronize_producer(producer):
    """Block until work on the producer's stream value has finished."""
    if producer is None:
        return
    from numba_cuda.runtime import cudriver

    drv = cudriver.driver()
    cudriver.call(drv.cuStreamSynchronize, drv.CUstream(producer))

"""The CUDA graph captures in progress in the simulator, the checks that refuse what a capture
cannot take, and the recording of captured work (see ``graphs``, which starts and ends
captures).  The simulator's launch, copy, memset and synchronize test ``CAPTURES`` first, so
none of this runs without a capture.  Imports nothing of the simulator.
"""

import numpy as np

from ..common import graph_capture_errors as messages

#: Streams capturing now: stream handle -> list of recorded operations ((kind, run) pairs).
CAPTURES = {}
_LEGACY = (0, 1)


def _handle(stream):
    if stream is None:
        return 0
    return int(getattr(stream, "handle", stream))


def _describe(handle):
    return f"<simulated CUDA stream 0x{handle:x}> is capturing a CUDA graph"


def _any():
    for handle in list(CAPTURES):
        return handle
    return None


def check_stream_work(stream, what):
    capturing = _any()
    if capturing is not None and _handle(stream) in _LEGACY:
        raise messages.legacy_stream_work(what, _describe(capturing))


def check_synchronous(what):
    capturing = _any()
    if capturing is not None:
        raise messages.synchronous_work(what, _describe(capturing))


def check_stream_synchronize(stream):
    if _handle(stream) in CAPTURES:
        raise messages.stream_synchronize(stream)


def check_device_synchronize():
    capturing = _any()
    if capturing is not None:
        raise messages.device_synchronize(_describe(capturing))


def record(stream, what, kind, run):
    """Work issued during a capture: refused (see the module docstring), recorded when
    ``stream`` captures (True), or to be run now (False).  ``stream`` None: synchronous."""
    if stream is None or _handle(stream) == 0 and not hasattr(stream, "handle"):
        check_synchronous(what)
        return False
    check_stream_work(stream, what)
    ops = CAPTURES.get(_handle(stream))
    if ops is None:
        return False
    ops.append((kind, run))
    return True


def check_no_host_step(stream, what):
    """As on the GPU: a copy on a capturing stream between non-contiguous arrays or arrays of
    two layouts needs a host step there, and is refused."""
    if _handle(stream) in CAPTURES:
        raise messages.host_step(what)


def check_host_source(stream, value, dtype, shape, order, what):
    """A copy from the host on a capturing stream reads ``value`` at every launch of the graph:
    refused, as on the GPU, when the GPU would copy through a temporary host buffer (``value``
    not a NumPy array of ``dtype`` and ``shape``, contiguous in ``order``)."""
    if _handle(stream) not in CAPTURES:
        return
    if isinstance(value, np.ndarray) and value.dtype == dtype and value.shape == shape and (
            value.flags.c_contiguous if order == "C" else value.flags.f_contiguous):
        return
    raise messages.temporary_host_source(what, value)


def record_launch(kernel, grid, block, stream, sharedmem, args):
    """A kernel launch during a capture (see ``record``)."""
    name = kernel.py_func.__qualname__
    check_stream_work(stream, f"launching kernel {name}")
    if _handle(stream) not in CAPTURES:
        return False
    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and not hasattr(arg, "__cuda_array_interface__"):
            raise messages.host_array_argument(i, name)
    if kernel.targetoptions.get("debug"):
        raise messages.error_checking_kernel(name)
    args = tuple(args)
    CAPTURES[_handle(stream)].append(
        (("kernel", kernel), lambda: kernel.launch(grid, block, stream, sharedmem, args)))
    return True

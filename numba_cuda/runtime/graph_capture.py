"""The CUDA graph captures in progress in this process, and the checks that refuse what a
capture cannot take (see ``graphs``, which starts and ends captures).

``CAPTURES`` is empty almost always: each hot path (launch, copy, memset, synchronize) tests
it before calling a check here, so the checks cost nothing without a capture.  This module
imports nothing of the runtime, so that every runtime module can use it.
"""

import threading

from numba_cuda.common import graph_capture_errors as messages

#: Streams capturing a CUDA graph now: stream handle value -> Capture.
CAPTURES = {}

#: Handle values of the legacy default stream (0 is how the driver API spells it too).
_LEGACY = (0, 1)


class Capture:
    """One capture: its stream and mode, the thread that began it, and the arguments of the
    launches captured (kept alive with the graph)."""

    __slots__ = ("stream", "mode", "thread", "keepalive")

    def __init__(self, stream, mode):
        self.stream = stream
        self.mode = mode
        self.thread = threading.get_ident()
        self.keepalive = []


def _describe(capture):
    return f"{capture.stream!r} is capturing a CUDA graph"


def _any_capture():
    for capture in list(CAPTURES.values()):
        return capture
    return None


# -- the checks -------------------------------------------------------------------------------
def check_stream_work(handle_value, what):
    """Refuse ``what`` (a copy, memset or launch) on the legacy default stream during a capture."""
    capture = _any_capture()
    if capture is not None and int(handle_value) in _LEGACY:
        raise messages.legacy_stream_work(what, _describe(capture))


def check_synchronous(what):
    """Refuse a synchronous copy or memset during a capture."""
    capture = _any_capture()
    if capture is not None:
        raise messages.synchronous_work(what, _describe(capture))


def check_stream_synchronize(stream):
    """Refuse synchronising (or querying) a stream that is capturing."""
    capture = CAPTURES.get(stream.handle_value)
    if capture is not None:
        raise messages.stream_synchronize(stream)


def check_device_synchronize():
    capture = _any_capture()
    if capture is not None:
        raise messages.device_synchronize(_describe(capture))


def check_no_host_step(stream_value, what):
    """A copy on a capturing stream that needs a step on the host (a strided array read or
    written through the bytes it spans, a copy between two layouts): refused, since the
    host step would run now, on data the graph has not produced yet."""
    if int(stream_value) in CAPTURES:
        raise messages.host_step(what)


def check_host_source(stream_value, data, value, what):
    """A copy from the host on a capturing stream: the graph reads ``data`` at every launch, so
    it must be the memory of the caller's NumPy array ``value``, not a temporary copy of it."""
    if int(stream_value) not in CAPTURES:
        return
    import numpy as np

    if isinstance(value, np.ndarray) and np.may_share_memory(data, value):
        return
    raise messages.temporary_host_source(what, value)


def on_launch(stream, args, kernel_name, checks_errors):
    """A kernel launch on ``stream`` during a capture: refuse what cannot be captured, keep the
    arguments of a captured launch alive as long as the graph."""
    check_stream_work(stream.handle_value, f"launching kernel {kernel_name}")
    capture = CAPTURES.get(stream.handle_value)
    if capture is None:
        return
    import numpy as np

    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and not hasattr(arg, "__cuda_array_interface__"):
            raise messages.host_array_argument(i, kernel_name)
    if checks_errors:
        raise messages.error_checking_kernel(kernel_name)
    capture.keepalive.append(args)

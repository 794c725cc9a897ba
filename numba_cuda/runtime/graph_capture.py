"""The CUDA graph captures in progress in this process, and the checks that refuse what a
capture cannot take (see ``graphs``, which starts and ends captures).

``CAPTURES`` is empty almost always: each hot path (launch, copy, memset, synchronize) tests
it before calling a check here, so the checks cost nothing without a capture.  This module
imports nothing of the runtime, so that every runtime module can use it.
"""

import threading

from numba_cuda.errors import GraphCaptureError

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
        raise GraphCaptureError(
            f"{what} on the legacy default stream is not allowed while {_describe(capture)}: "
            f"the legacy default stream synchronises with the capturing stream, which would "
            f"invalidate the capture. Issue it on the capturing stream (stream=graph.stream), "
            f"or before or after the `with cuda.graph()` block")


def check_synchronous(what):
    """Refuse a synchronous copy or memset during a capture."""
    capture = _any_capture()
    if capture is not None:
        raise GraphCaptureError(
            f"{what} is synchronous, which is not allowed while {_describe(capture)}: pass "
            f"stream=graph.stream to capture it into the graph, or do it before or after the "
            f"`with cuda.graph()` block")


def check_stream_synchronize(stream):
    """Refuse synchronising (or querying) a stream that is capturing."""
    capture = CAPTURES.get(stream.handle_value)
    if capture is not None:
        raise GraphCaptureError(
            f"synchronising {stream!r} is not allowed while it is capturing a CUDA graph: "
            f"nothing captured runs before graph.launch(); synchronise after the `with "
            f"cuda.graph()` block, after launching the graph")


def check_device_synchronize():
    capture = _any_capture()
    if capture is not None:
        raise GraphCaptureError(
            f"cuda.synchronize() is not allowed while {_describe(capture)}: synchronise after "
            f"the `with cuda.graph()` block, after launching the graph")


def check_no_host_step(stream_value, what):
    """A copy on a capturing stream that needs a step on the host (a strided array read or
    written through the bytes it spans, a copy between two layouts): refused, since the
    host step would run now, on data the graph has not produced yet."""
    if int(stream_value) in CAPTURES:
        raise GraphCaptureError(
            f"{what} needs a step on the host between two copies (the arrays are not "
            f"contiguous, or not of the same layout), which cannot be captured into a CUDA "
            f"graph: the host step would run during the capture. Capture copies between "
            f"contiguous arrays of the same layout")


def check_host_source(stream_value, data, value, what):
    """A copy from the host on a capturing stream: the graph reads ``data`` at every launch, so
    it must be the memory of the caller's NumPy array ``value``, not a temporary copy of it."""
    if int(stream_value) not in CAPTURES:
        return
    import numpy as np

    if isinstance(value, np.ndarray) and np.may_share_memory(data, value):
        return
    raise GraphCaptureError(
        f"{what}: the host data ({type(value).__name__}) is copied through a temporary host "
        f"buffer (it is not a NumPy array of the destination's dtype, shape and contiguous "
        f"layout), which a CUDA graph would read after it is freed. Copy from a host array of "
        f"the destination's dtype and layout that lives as long as the graph (a "
        f"cuda.pinned_array is best)")


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
            raise GraphCaptureError(
                f"argument {i} of kernel {kernel_name} is a host (NumPy) array: passing it "
                f"copies it to the device and back synchronously, which cannot be captured "
                f"into a CUDA graph. Copy it to a device array (cuda.to_device) before the "
                f"capture and pass that")
    if checks_errors:
        raise GraphCaptureError(
            f"kernel {kernel_name} was compiled with debug=True or boundscheck=True: after each "
            f"launch the host synchronises and reads its error record, which cannot happen "
            f"inside a CUDA graph. Capture a kernel compiled without these options")
    capture.keepalive.append(args)

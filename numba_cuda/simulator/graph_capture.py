"""The CUDA graph captures in progress in the simulator, the checks that refuse what a capture
cannot take, and the recording of captured work (see ``graphs``, which starts and ends
captures).  The simulator's launch, copy, memset and synchronize test ``CAPTURES`` first, so
none of this runs without a capture.  Imports nothing of the simulator.
"""

import numpy as np

from ..errors import GraphCaptureError

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
        raise GraphCaptureError(
            f"{what} on the legacy default stream is not allowed while {_describe(capturing)}: "
            f"the legacy default stream synchronises with the capturing stream, which would "
            f"invalidate the capture. Issue it on the capturing stream (stream=graph.stream), "
            f"or before or after the `with cuda.graph()` block")


def check_synchronous(what):
    capturing = _any()
    if capturing is not None:
        raise GraphCaptureError(
            f"{what} is synchronous, which is not allowed while {_describe(capturing)}: pass "
            f"stream=graph.stream to capture it into the graph, or do it before or after the "
            f"`with cuda.graph()` block")


def check_stream_synchronize(stream):
    if _handle(stream) in CAPTURES:
        raise GraphCaptureError(
            f"synchronising {stream!r} is not allowed while it is capturing a CUDA graph: "
            f"nothing captured runs before graph.launch(); synchronise after the `with "
            f"cuda.graph()` block, after launching the graph")


def check_device_synchronize():
    capturing = _any()
    if capturing is not None:
        raise GraphCaptureError(
            f"cuda.synchronize() is not allowed while {_describe(capturing)}: synchronise after "
            f"the `with cuda.graph()` block, after launching the graph")


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
        raise GraphCaptureError(
            f"{what} needs a step on the host between two copies (the arrays are not "
            f"contiguous, or not of the same layout), which cannot be captured into a CUDA "
            f"graph: the host step would run during the capture. Capture copies between "
            f"contiguous arrays of the same layout")


def check_host_source(stream, value, dtype, shape, order, what):
    """A copy from the host on a capturing stream reads ``value`` at every launch of the graph:
    refused, as on the GPU, when the GPU would copy through a temporary host buffer (``value``
    not a NumPy array of ``dtype`` and ``shape``, contiguous in ``order``)."""
    if _handle(stream) not in CAPTURES:
        return
    if isinstance(value, np.ndarray) and value.dtype == dtype and value.shape == shape and (
            value.flags.c_contiguous if order == "C" else value.flags.f_contiguous):
        return
    raise GraphCaptureError(
        f"{what}: the host data ({type(value).__name__}) is copied through a temporary host "
        f"buffer (it is not a NumPy array of the destination's dtype, shape and contiguous "
        f"layout), which a CUDA graph would read after it is freed. Copy from a host array of "
        f"the destination's dtype and layout that lives as long as the graph (a "
        f"cuda.pinned_array is best)")


def record_launch(kernel, grid, block, stream, sharedmem, args):
    """A kernel launch during a capture (see ``record``)."""
    name = kernel.py_func.__qualname__
    check_stream_work(stream, f"launching kernel {name}")
    if _handle(stream) not in CAPTURES:
        return False
    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and not hasattr(arg, "__cuda_array_interface__"):
            raise GraphCaptureError(
                f"argument {i} of kernel {name} is a host (NumPy) array: passing it "
                f"copies it to the device and back synchronously, which cannot be captured "
                f"into a CUDA graph. Copy it to a device array (cuda.to_device) before the "
                f"capture and pass that")
    if kernel.targetoptions.get("debug"):
        raise GraphCaptureError(
            f"kernel {name} was compiled with debug=True or boundscheck=True: after each "
            f"launch the host synchronises and reads its error record, which cannot happen "
            f"inside a CUDA graph. Capture a kernel compiled without these options")
    args = tuple(args)
    CAPTURES[_handle(stream)].append(
        (("kernel", kernel), lambda: kernel.launch(grid, block, stream, sharedmem, args)))
    return True

"""The errors that refuse work a CUDA graph capture cannot take, worded once for the GPU
(``runtime.graph_capture``) and the simulator (``simulator.graph_capture``), which decide when
to raise them.  Each function returns the :class:`~numba_cuda.errors.GraphCaptureError`;
``capturing`` describes the capture in progress (``"<stream> is capturing a CUDA graph"``)."""

from numba_cuda.errors import GraphCaptureError

_OUTSIDE = "before or after the `with cuda.graph()` block"
_AFTER = "synchronise after the `with cuda.graph()` block, after launching the graph"


def legacy_stream_work(what, capturing):
    return GraphCaptureError(
        f"{what} on the legacy default stream is not allowed while {capturing}: the legacy "
        f"default stream synchronises with the capturing stream, which would invalidate the "
        f"capture. Issue it on the capturing stream (stream=graph.stream), or {_OUTSIDE}")


def synchronous_work(what, capturing):
    return GraphCaptureError(
        f"{what} is synchronous, which is not allowed while {capturing}: pass "
        f"stream=graph.stream to capture it into the graph, or do it {_OUTSIDE}")


def stream_synchronize(stream):
    return GraphCaptureError(
        f"synchronising {stream!r} is not allowed while it is capturing a CUDA graph: nothing "
        f"captured runs before graph.launch(); {_AFTER}")


def device_synchronize(capturing):
    return GraphCaptureError(f"cuda.synchronize() is not allowed while {capturing}: {_AFTER}")


def host_step(what):
    return GraphCaptureError(
        f"{what} needs a step on the host between two copies (the arrays are not contiguous, "
        f"or not of the same layout), which cannot be captured into a CUDA graph: the host "
        f"step would run during the capture. Capture copies between contiguous arrays of the "
        f"same layout")


def temporary_host_source(what, value):
    return GraphCaptureError(
        f"{what}: the host data ({type(value).__name__}) is copied through a temporary host "
        f"buffer (it is not a NumPy array of the destination's dtype, shape and contiguous "
        f"layout), which a CUDA graph would read after it is freed. Copy from a host array of "
        f"the destination's dtype and layout that lives as long as the graph (a "
        f"cuda.pinned_array is best)")


def host_array_argument(index, kernel_name):
    return GraphCaptureError(
        f"argument {index} of kernel {kernel_name} is a host (NumPy) array: passing it copies "
        f"it to the device and back synchronously, which cannot be captured into a CUDA "
        f"graph. Copy it to a device array (cuda.to_device) before the capture and pass that")


def error_checking_kernel(kernel_name):
    return GraphCaptureError(
        f"kernel {kernel_name} was compiled with debug=True or boundscheck=True: after each "
        f"launch the host synchronises and reads its error record, which cannot happen inside "
        f"a CUDA graph. Capture a kernel compiled without these options")

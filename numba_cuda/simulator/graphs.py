"""CUDA graphs in the simulator: ``cuda.graph()`` with the GPU target's API and rules.

While a stream captures, the kernel launches, copies and memsets issued on it are recorded,
not run (as on a GPU, where captured work runs only when the graph is launched); each
``graph.launch()`` runs them in order.  A recorded operation keeps the objects it was given:
arrays by reference (a replay reads and writes their contents of the moment, as a graph
node's addresses do) and scalars by value.  ``with graph.update():`` records a new sequence,
which must have the same operations of the same kinds in the same order (what
``cuGraphExecUpdate`` accepts), else :class:`~numba_cuda.errors.GraphUpdateError`.

What a capture refuses on the GPU is refused here too, with the same
:class:`~numba_cuda.errors.GraphCaptureError`: synchronous copies and memsets (``stream=0``),
work on the legacy default stream, synchronising the capturing stream or the device, launches
with host (NumPy) array arguments and launches of ``debug=True`` kernels.
"""

import contextlib
import threading

import numpy as np

from ..errors import GraphCaptureError, GraphUpdateError

MODES = ("global", "thread_local", "relaxed")

#: Streams capturing now: stream handle -> list of recorded operations ((kind, run) pairs).
CAPTURES = {}
_lock = threading.Lock()

_LEGACY = (0, 1)


def _handle(stream):
    if stream is None:
        return 0
    return int(getattr(stream, "handle", stream))


def _describe(handle):
    from .streams import Stream

    return f"{Stream(handle)!r} is capturing a CUDA graph"


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
    from .devicearray import DeviceNDArray

    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and not isinstance(arg, DeviceNDArray):
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


class Graph:
    """A simulated CUDA graph (see the module docstring and the GPU target's ``Graph``)."""

    def __init__(self, stream=None, mode="global"):
        from . import streams

        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
        if stream is None:
            stream = streams.stream()
        elif not isinstance(stream, streams.Stream):
            stream = streams.Stream(int(stream))
        if _handle(stream) in _LEGACY:
            raise GraphCaptureError(
                "the legacy default stream cannot capture a CUDA graph: pass a stream from "
                "cuda.stream(), or stream=None for a new one (graph.stream)")
        self.stream = stream
        self.mode = mode
        self._ops = None        # the recorded operations of the instantiated graph
        self._capturing = None  # operations being recorded
        self._closed = False

    def _begin(self):
        if self._closed:
            raise GraphCaptureError("this graph was closed: capture a new one with cuda.graph()")
        with _lock:
            if _handle(self.stream) in CAPTURES:
                raise GraphCaptureError(
                    f"{self.stream!r} is already capturing a CUDA graph: captures do not nest "
                    f"on one stream; end the other `with` block first")
            self._capturing = CAPTURES[_handle(self.stream)] = []

    def _end(self):
        with _lock:
            CAPTURES.pop(_handle(self.stream), None)
        ops, self._capturing = self._capturing, None
        return ops

    def __enter__(self):
        if self._ops is not None:
            raise GraphCaptureError(
                "this graph has already been captured: use `with graph.update():` to capture "
                "new parameters, or cuda.graph() for another graph")
        self._begin()
        return self

    def __exit__(self, exc_type, exc, tb):
        ops = self._end()
        if exc_type is None:
            self._ops = ops
        return False

    @contextlib.contextmanager
    def update(self):
        """Record the block again; it replaces the graph's operations when it has the same
        operations of the same kinds in the same order (as ``cuGraphExecUpdate`` requires)."""
        self._require()
        self._begin()
        try:
            yield self
        finally:
            new = self._end()
        old = self._ops
        result = None
        if len(new) != len(old):
            result = ("CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED",
                      "the new capture has another number of operations or another order")
        else:
            for (a, _), (b, _) in zip(old, new):
                kind_a = a[0] if isinstance(a, tuple) else a
                kind_b = b[0] if isinstance(b, tuple) else b
                if kind_a != kind_b:
                    result = ("CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED",
                              "an operation changed kind (a launch where a copy was, ...)")
                    break
                if a != b and kind_a == "memcpy":
                    result = ("CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED",
                              "a copy or memset changed in a way an update cannot take "
                              "(direction, device, element size)")
                    break
        if result is not None:
            raise GraphUpdateError(
                f"the graph cannot be updated with the new capture: {result[1]} ({result[0]}). "
                f"It keeps its previous parameters; capture a new graph with cuda.graph() "
                f"instead", result=result[0])
        self._ops = new

    def _require(self):
        if self._closed:
            raise GraphCaptureError("this graph was closed: capture a new one with cuda.graph()")
        if self._ops is None:
            raise GraphCaptureError(
                "this graph has not been captured yet: issue its work inside "
                "`with cuda.graph(stream) as graph:` first")

    def launch(self, stream=None):
        """Run the recorded operations in order (into a capture when ``stream`` captures)."""
        self._require()
        target = self.stream if stream is None else stream
        check_stream_work(target, "launching a graph")
        ops = CAPTURES.get(_handle(target))
        if ops is not None:
            ops.extend(self._ops)
            return
        for _kind, run in self._ops:
            run()

    def replay(self):
        """``launch()`` on the capturing stream (PyTorch's name for it)."""
        self.launch()

    @property
    def num_nodes(self):
        self._require()
        return len(self._ops)

    def close(self):
        if self._capturing is not None:
            raise GraphCaptureError("a graph cannot be closed while it captures")
        self._closed = True
        self._ops = None

    def __repr__(self):
        state = ("closed" if self._closed else "capturing" if self._capturing is not None
                 else "captured" if self._ops is not None else "not captured")
        return f"<simulated CUDA graph on {self.stream!r}, {state}>"


def graph(stream=None, mode="global"):
    """A :class:`Graph` to capture with ``with cuda.graph(stream) as g:``."""
    return Graph(stream, mode)

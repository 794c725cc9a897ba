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

from ..errors import GraphCaptureError, GraphUpdateError
from .graph_capture import _LEGACY, CAPTURES, _handle, check_stream_work

MODES = ("global", "thread_local", "relaxed")
_lock = threading.Lock()


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

"""CUDA graphs: the work issued on a stream, captured once and replayed with one launch.

``cuda.graph(stream=None, mode="global")`` returns a :class:`Graph`; the ``with`` block
captures (``cuStreamBeginCapture`` ... ``cuStreamEndCapture``) the kernel launches, copies and
memsets issued on ``graph.stream`` into a CUDA graph, which is then instantiated
(``cuGraphInstantiate``).  Captured work does not run during the capture: it runs at each
``graph.launch()`` / ``graph.replay()`` (``cuGraphLaunch``), with the parameters it was
captured with (the addresses of the arrays and the values of the scalars).

Parameters change by capturing again: ``with graph.update(): ...`` captures the same sequence
of operations with new arguments and hands the new graph to ``cuGraphExecUpdate``, which
changes the instantiated graph in place (no new instantiation).  When the new capture does not
match (another number or kind of operations) :class:`~numba_cuda.errors.GraphUpdateError` says
why and the graph keeps its old parameters.

While a capture is in progress (any mode), the calls below are refused with
:class:`~numba_cuda.errors.GraphCaptureError` before they reach the driver, which would
otherwise invalidate the capture: synchronous copies and memsets, work on the legacy default
stream (it synchronises with every blocking stream), synchronising the capturing stream or the
device, launches with host (NumPy) array arguments (they copy synchronously) and launches of
kernels that check an error record after each launch (``debug=True``/``boundscheck``).

The capture state and the checks the runtime's hot paths make are in ``graph_capture``.
This module knows nothing of the compiler or the dispatcher.
"""

import contextlib
import threading
import weakref

from numba_cuda.errors import GraphCaptureError, GraphUpdateError
from numba_cuda.runtime import cudriver
from numba_cuda.runtime.graph_capture import CAPTURES, Capture, check_stream_work
from numba_cuda.runtime.memory import _queue_free
from numba_cuda.runtime.streams import LEGACY_DEFAULT

#: The capture modes, as CUDA names them (``CU_STREAM_CAPTURE_MODE_<NAME>``).
MODES = ("global", "thread_local", "relaxed")

_lock = threading.Lock()


# -- the graph ------------------------------------------------------------------------------
def _destroy_exec(handle):
    drv = cudriver.driver()
    cudriver.call(drv.cuGraphExecDestroy, drv.CUgraphExec(handle))


def _destroy_graph(handle):
    drv = cudriver.driver()
    cudriver.call(drv.cuGraphDestroy, drv.CUgraph(handle))


def _release(ctx_ref, handles):
    """Finalizer body: queue the destruction of the instantiated graph, then of the graph."""
    if handles.get("exec"):
        _queue_free(ctx_ref, _destroy_exec, handles.pop("exec"), 0)
    if handles.get("graph"):
        _queue_free(ctx_ref, _destroy_graph, handles.pop("graph"), 0)


class Graph:
    """A CUDA graph captured from ``stream`` (see the module docstring).

    ``stream``: the capturing stream (a new one when None); work must be issued on it to be
    captured.  ``mode``: ``"global"`` (default), ``"thread_local"`` or ``"relaxed"``, CUDA's
    stream capture modes.
    """

    def __init__(self, stream=None, mode="global"):
        from numba_cuda.runtime import devices
        from numba_cuda.runtime.current_streams import as_stream

        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
        self.context = devices.current_context()
        if stream is None:
            stream = self.context.create_stream()
        else:
            stream = as_stream(stream)
        if stream.handle_value in (0, LEGACY_DEFAULT):
            raise GraphCaptureError(
                "the legacy default stream cannot capture a CUDA graph: pass a stream from "
                "cuda.stream(), or stream=None for a new one (graph.stream)")
        if stream.context is not self.context:
            raise ValueError(f"{stream!r} belongs to device {stream.context.device.id}, not the "
                             f"current device {self.context.device.id}")
        self.stream = stream
        self.mode = mode
        self._capture = None
        self._keepalive = []
        self._handles = {}
        self._closed = False
        fin = weakref.finalize(self, _release, weakref.ref(self.context), self._handles)
        fin.atexit = False
        self._finalizer = fin

    # -- capture ----------------------------------------------------------------------------
    def _begin(self):
        drv = cudriver.driver()
        if self._closed:
            raise GraphCaptureError("this graph was closed: capture a new one with cuda.graph()")
        with _lock:
            if self.stream.handle_value in CAPTURES:
                raise GraphCaptureError(
                    f"{self.stream!r} is already capturing a CUDA graph: captures do not nest "
                    f"on one stream; end the other `with` block first")
            mode = getattr(drv.CUstreamCaptureMode, f"CU_STREAM_CAPTURE_MODE_{self.mode.upper()}")
            with self.context.active():
                cudriver.call(drv.cuStreamBeginCapture, self.stream.handle, mode)
            capture = Capture(self.stream, self.mode)
            CAPTURES[self.stream.handle_value] = capture
        # frees wait until the capture ends: cuMemFree synchronises, which a capture refuses
        held = self.context.deallocations.disable()
        held.__enter__()
        capture.keepalive.append(held)  # (the first entry; _end leaves the block)
        self._capture = capture

    def _end(self, failing=False):
        """End the capture; the captured CUgraph's handle value.  ``failing``: the block raised,
        so a failure to end is not raised over the block's exception."""
        drv = cudriver.driver()
        capture, self._capture = self._capture, None
        with _lock:
            CAPTURES.pop(self.stream.handle_value, None)
        try:
            with self.context.active():
                result = drv.cuStreamEndCapture(self.stream.handle)
        finally:
            capture.keepalive.pop(0).__exit__(None, None, None)  # the frees held meanwhile
        res = result[0]
        if res:
            if failing:
                return None
            if res == drv.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
                raise GraphCaptureError(
                    f"the driver invalidated the capture on {self.stream!r} (an operation in the "
                    f"block conflicted with it: {cudriver.describe_error(drv, res)}); only "
                    f"asynchronous work on graph.stream can be captured")
            cudriver.check(res, "cuStreamEndCapture")
        graph = int(result[1])
        if failing:
            _destroy_graph(graph)
            return None
        return graph, capture.keepalive

    def __enter__(self):
        if "exec" in self._handles:
            raise GraphCaptureError(
                "this graph has already been captured: use `with graph.update():` to capture "
                "new parameters, or cuda.graph() for another graph")
        self._begin()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self._end(failing=True)
            return False
        graph, keepalive = self._end()
        drv = cudriver.driver()
        try:
            with self.context.active():
                handle = cudriver.call(drv.cuGraphInstantiate, drv.CUgraph(graph), 0)
        except BaseException:
            _destroy_graph(graph)
            raise
        self._handles["graph"] = graph
        self._handles["exec"] = int(handle)
        self._keepalive = keepalive
        return False

    @contextlib.contextmanager
    def update(self):
        """Capture the block again and update the instantiated graph's parameters
        (``cuGraphExecUpdate``): the same operations in the same order, with other arguments
        (other arrays, scalars, launch sizes, copy and memset operands)."""
        exec_handle = self._exec()
        self._begin()
        try:
            yield self
        except BaseException:
            self._end(failing=True)
            raise
        graph, keepalive = self._end()
        drv = cudriver.driver()
        with self.context.active():
            res, info = drv.cuGraphExecUpdate(drv.CUgraphExec(exec_handle), drv.CUgraph(graph))
        if res:
            _destroy_graph(graph)
            result = getattr(getattr(info, "result", None), "name", None)
            why = {
                "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED":
                    "the new capture has another number of operations or another order",
                "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED":
                    "an operation changed kind (a launch where a copy was, ...)",
                "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED":
                    "a launch calls a kernel of another context",
                "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED":
                    "a copy or memset changed in a way an update cannot take "
                    "(direction, device, element size)",
                "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE":
                    "a launch changed to a kernel of another kind (cooperative or not)",
            }.get(result, cudriver.describe_error(drv, res))
            raise GraphUpdateError(
                f"the graph cannot be updated with the new capture: {why} ({result}). It keeps "
                f"its previous parameters; capture a new graph with cuda.graph() instead",
                result=result)
        old = self._handles.get("graph")
        self._handles["graph"] = graph
        self._keepalive = keepalive
        if old:
            _destroy_graph(old)

    # -- replay -----------------------------------------------------------------------------
    def _exec(self):
        if self._closed:
            raise GraphCaptureError("this graph was closed: capture a new one with cuda.graph()")
        handle = self._handles.get("exec")
        if handle is None:
            raise GraphCaptureError(
                "this graph has not been captured yet: issue its work inside "
                "`with cuda.graph(stream) as graph:` first")
        return handle

    def launch(self, stream=None):
        """Launch the graph on ``stream`` (default: the stream it was captured on).  Returns at
        once; synchronise the stream to wait for it."""
        from numba_cuda.runtime.current_streams import as_stream

        exec_handle = self._exec()
        target = self.stream if stream is None else as_stream(stream)
        if CAPTURES:
            check_stream_work(target.handle_value, "launching a graph")
        drv = cudriver.driver()
        with self.context.active():
            cudriver.call(drv.cuGraphLaunch, drv.CUgraphExec(exec_handle), target.handle)

    def replay(self):
        """``launch()`` on the capturing stream (PyTorch's name for it)."""
        self.launch()

    @property
    def num_nodes(self):
        """The number of operations (graph nodes) captured."""
        self._exec()
        drv = cudriver.driver()
        _nodes, count = cudriver.call(drv.cuGraphGetNodes, drv.CUgraph(self._handles["graph"]), 0)
        return int(count)

    def close(self):
        """Destroy the instantiated graph and the graph now (otherwise when collected)."""
        if self._closed:
            return
        if self._capture is not None:
            raise GraphCaptureError("a graph cannot be closed while it captures")
        self._closed = True
        self._finalizer.detach()
        exec_handle = self._handles.pop("exec", None)
        graph = self._handles.pop("graph", None)
        with self.context.active():
            if exec_handle:
                _destroy_exec(exec_handle)
            if graph:
                _destroy_graph(graph)
        self._keepalive = []

    def __repr__(self):
        state = ("closed" if self._closed else "capturing" if self._capture is not None
                 else "captured" if "exec" in self._handles else "not captured")
        return f"<CUDA graph on {self.stream!r}, {state}>"


def graph(stream=None, mode="global"):
    """A :class:`Graph` to capture with ``with cuda.graph(stream) as g:``; see the module doc."""
    return Graph(stream, mode)

"""Streams and events.  (The current context's default stream and ``Stream`` objects for
0/None/int handles are in ``current_streams``.)"""

import contextlib
import weakref

from numba_cuda.common.env_flags import env_flag
from numba_cuda.runtime import cudriver
from numba_cuda.runtime import graph_capture
from numba_cuda.runtime.graph_capture import CAPTURES
from numba_cuda.runtime.memory import _queue_free

#: Stream handle values with a special meaning to the driver (and the CUDA Array Interface).
LEGACY_DEFAULT = 1
PER_THREAD_DEFAULT = 2


_PTDS = []  # what NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM says, read once (as Numba reads it)


def per_thread_default_is_default():
    """NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1 makes ``default_stream()`` the per-thread one.

    Read once per process, when a default stream is first needed (every launch asks)."""
    if not _PTDS:
        _PTDS.append(env_flag("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM", False))
    return _PTDS[0]


def _destroy_stream(handle):
    drv = cudriver.driver()
    drv.cuStreamDestroy(drv.CUstream(handle))


def _destroy_event(handle):
    drv = cudriver.driver()
    drv.cuEventDestroy(drv.CUevent(handle))


class Stream:
    """A CUDA stream.  ``handle`` is the binding's ``CUstream``; ``int(stream)`` its value.

    Owned streams (from ``cuda.stream()``) are destroyed when collected;
    default and external streams are not.
    """

    def __init__(self, context, handle, owned=False, external=False):
        self.context = context
        self.handle = handle
        self.handle_value = int(handle)
        self.external = external
        self._finalizer = None
        if owned:
            fin = weakref.finalize(self, _queue_free, weakref.ref(context), _destroy_stream,
                                   self.handle_value, 0)
            fin.atexit = False
            self._finalizer = fin

    def __int__(self):
        return self.handle_value

    def __cuda_stream__(self):
        """The CUDA stream protocol (cuda.core): ``(version, handle)``."""
        return (0, self.handle_value)

    @property
    def is_default(self):
        return self.handle_value in (0, LEGACY_DEFAULT, PER_THREAD_DEFAULT)

    def cai_stream(self):
        """This stream as the CUDA Array Interface's ``stream`` entry (never 0)."""
        if self.handle_value == 0:
            return PER_THREAD_DEFAULT if per_thread_default_is_default() else LEGACY_DEFAULT
        return self.handle_value

    def synchronize(self):
        """Wait until all work queued on this stream has finished."""
        if CAPTURES:
            graph_capture.check_stream_synchronize(self)
        drv = cudriver.driver()
        with self.context.active():
            cudriver.call(drv.cuStreamSynchronize, self.handle)

    def query(self):
        """True when all work on the stream has finished."""
        drv = cudriver.driver()
        (res,) = drv.cuStreamQuery(self.handle)
        if res == drv.CUresult.CUDA_ERROR_NOT_READY:
            return False
        cudriver.check(res, "cuStreamQuery")
        return True

    @contextlib.contextmanager
    def auto_synchronize(self):
        """Yield this stream; synchronize it when the block ends."""
        yield self
        self.synchronize()

    def wait_event(self, event):
        event.wait(self)

    def __repr__(self):
        names = {0: "default", LEGACY_DEFAULT: "legacy default",
                 PER_THREAD_DEFAULT: "per-thread default"}
        kind = names.get(self.handle_value)
        if kind is None:
            kind = "external" if self.external else "stream"
            return f"<CUDA {kind} {self.handle_value:#x} on device {self.context.device.id}>"
        return f"<CUDA {kind} stream on device {self.context.device.id}>"

    def __eq__(self, other):
        return isinstance(other, Stream) and other.handle_value == self.handle_value \
            and other.context is self.context

    def __hash__(self):
        return hash(("cuda-stream", self.handle_value))


def protocol_stream_handle(stream):
    """The handle of an object speaking the CUDA stream protocol (``__cuda_stream__()`` gives
    ``(version, handle)``: cuda.core's ``Stream``, CuPy's and PyTorch's newer streams ...),
    else None.  A version this package does not know is a TypeError naming it."""
    method = getattr(type(stream), "__cuda_stream__", None)
    if method is None:
        return None
    try:
        version, handle = method(stream)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{type(stream).__name__}.__cuda_stream__() must return (version, handle): {exc}") from None
    if version != 0:
        raise TypeError(f"{type(stream).__name__}.__cuda_stream__() speaks version {version} of the "
                        f"CUDA stream protocol; this numba-cuda knows version 0")
    return int(handle)


def stream_handle(stream):
    """The ``CUstream`` for a Stream, 0/None (the default stream: per-thread with
    ``NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM=1``), an object with ``__cuda_stream__``, or an
    int handle."""
    if isinstance(stream, Stream):
        return stream.handle
    handle = protocol_stream_handle(stream)
    if handle is None:
        handle = 0 if stream is None or stream == 0 else int(stream)
    if handle == 0:
        return cudriver.driver().CUstream(PER_THREAD_DEFAULT if per_thread_default_is_default() else 0)
    return cudriver.driver().CUstream(handle)


class Event:
    """A CUDA event: ``record(stream)``, ``wait(stream)``, ``synchronize()``,
    ``query()``, ``elapsed_time(other)`` in milliseconds (timing events only)."""

    def __init__(self, context, handle, timing=True):
        self.context = context
        self.handle = handle
        self.timing = timing
        fin = weakref.finalize(self, _queue_free, weakref.ref(context), _destroy_event,
                               int(handle), 0)
        fin.atexit = False

    def record(self, stream=0):
        drv = cudriver.driver()
        if isinstance(stream, Stream) and stream.context is not self.context:
            raise ValueError(
                f"an event of device {self.context.device.id} cannot be recorded on {stream!r} "
                f"of device {stream.context.device.id}: create the event on the stream's device "
                f"(inside `with cuda.gpus[{stream.context.device.id}]:`)")
        with self.context.active():
            cudriver.call(drv.cuEventRecord, self.handle, stream_handle(stream))

    def wait(self, stream=0):
        """Make ``stream`` wait (on the device) until this event has happened."""
        drv = cudriver.driver()
        with self.context.active():
            cudriver.call(drv.cuStreamWaitEvent, stream_handle(stream), self.handle, 0)

    def synchronize(self):
        drv = cudriver.driver()
        cudriver.call(drv.cuEventSynchronize, self.handle)

    def query(self):
        drv = cudriver.driver()
        (res,) = drv.cuEventQuery(self.handle)
        if res == drv.CUresult.CUDA_ERROR_NOT_READY:
            return False
        cudriver.check(res, "cuEventQuery")
        return True

    def elapsed_time(self, evtend):
        """Milliseconds between this event and ``evtend`` (both recorded and completed)."""
        return event_elapsed_time(self, evtend)

    def __repr__(self):
        return f"<CUDA event {int(self.handle):#x}{'' if self.timing else ' (no timing)'}>"


def event_elapsed_time(evtstart, evtend):
    from numba_cuda.errors import CudaError

    if not (evtstart.timing and evtend.timing):
        raise CudaError("elapsed_time needs two events created with timing=True")
    drv = cudriver.driver()
    return float(cudriver.call(drv.cuEventElapsedTime, evtstart.handle, evtend.handle))

"""Streams and events of the simulator.

Everything executes synchronously when it is called, so synchronising is a
no-op; events record the host clock, so ``elapsed_time`` measures the real
time the simulated work took.
"""

import contextlib
import time

from ..errors import CudaError
from . import graph_capture

# The driver's special stream handles.
_LEGACY_HANDLE = 1
_PER_THREAD_HANDLE = 2


class Stream:
    """A simulated stream; work submitted to it has completed when the call returns."""

    def __init__(self, handle=0, external=False):
        self.handle = handle
        self.external = external

    def __int__(self):
        return int(self.handle)

    @property
    def ptr(self):
        return int(self.handle)

    def __cuda_stream__(self):
        return (0, int(self.handle))

    def __repr__(self):
        kind = {0: "default", _LEGACY_HANDLE: "legacy default",
                _PER_THREAD_HANDLE: "per-thread default"}.get(self.handle, f"0x{self.handle:x}")
        return f"<simulated CUDA stream {kind}>"

    def synchronize(self):
        """Wait for the stream's work (already complete in the simulator)."""
        if graph_capture.CAPTURES:
            graph_capture.check_stream_synchronize(self)

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def add_callback(self, callback, arg=None):
        callback(self, None, arg)

    def async_done(self):
        import asyncio

        future = asyncio.get_event_loop().create_future()
        future.set_result(self)
        return future

    def query(self):
        return True


_next_handle = [0x1000]


def stream():
    """A new stream."""
    _next_handle[0] += 0x10
    return Stream(_next_handle[0])


_DEFAULT = Stream(0)
_LEGACY = Stream(_LEGACY_HANDLE)
_PER_THREAD = Stream(_PER_THREAD_HANDLE)


def default_stream():
    return _DEFAULT


def legacy_default_stream():
    return _LEGACY


def per_thread_default_stream():
    return _PER_THREAD


def external_stream(ptr):
    """Refused: the simulator runs no real streams, so one made elsewhere cannot be used.

    Raises ``NotAvailableInSimulator`` (a ``RuntimeError``, as the peers' simulators raise).
    """
    from .dispatcher import NotAvailableInSimulator

    raise NotAvailableInSimulator(
        f"External streams are unsupported in the simulator (NUMBA_ENABLE_CUDASIM=1): the "
        f"handle {ptr!r} belongs to a real CUDA stream, and simulated kernels and copies run "
        f"on none. Unset NUMBA_ENABLE_CUDASIM to use external streams."
    )


def synchronize():
    """Wait for all work of the device (already complete in the simulator)."""
    if graph_capture.CAPTURES:
        graph_capture.check_device_synchronize()


class Event:
    """A simulated event; ``record`` takes the host time."""

    def __init__(self, timing=True):
        self.timing = timing
        self._time = None

    def record(self, stream=0):
        self._time = time.perf_counter()

    def wait(self, stream=0):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True

    def elapsed_time(self, evtend):
        """Milliseconds from this event's record to ``evtend``'s."""
        return event_elapsed_time(self, evtend)


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    if not (evtstart.timing and evtend.timing):
        raise CudaError("elapsed_time needs two events created with timing=True")
    if evtstart._time is None or evtend._time is None:
        raise CudaError("elapsed_time needs both events to have been recorded")
    return (evtend._time - evtstart._time) * 1000.0

"""Streams of the thread's current context: its default stream, and ``Stream`` objects for
0/None (the default stream) or int handles made elsewhere.

Above ``devices`` (which binds the current context) and ``streams`` (the ``Stream`` class), so
that ``streams`` needs neither devices nor contexts.
"""

from numba_cuda.runtime import cudriver
from numba_cuda.runtime.devices import current_context
from numba_cuda.runtime.streams import (PER_THREAD_DEFAULT, Stream, per_thread_default_is_default,
                                        protocol_stream_handle)


def as_stream(stream):
    """A Stream object for a Stream, 0/None (the default stream), an object with
    ``__cuda_stream__`` (cuda.core's ``Stream``, ``GraphBuilder`` ...) or an int handle."""
    if isinstance(stream, Stream):
        return stream
    handle = protocol_stream_handle(stream)
    if handle is None:
        handle = 0 if stream is None or stream == 0 else int(stream)
    if handle == 0:
        return current_default_stream()
    return external_stream(handle, context=current_context())


def current_default_stream():
    value = PER_THREAD_DEFAULT if per_thread_default_is_default() else 0
    return current_context().special_stream(value)


def external_stream(ptr, context=None):
    """Wrap a stream made elsewhere (an int handle); it is never destroyed by numba-cuda."""
    if context is None:
        context = current_context()
    return Stream(context, cudriver.driver().CUstream(int(ptr)), owned=False, external=True)

"""The stack of contexts current in each thread (numba-cuda's own, above whatever another
library made current).  ``devices`` binds the first one; ``context.Context.active`` pushes and
pops; nothing here knows devices or streams.
"""

import threading

from numba_cuda.errors import CudaSupportError
from numba_cuda.runtime import cudriver

_tls = threading.local()


def stack():
    """This thread's stack of contexts (innermost last)."""
    items = getattr(_tls, "stack", None)
    if items is None:
        items = _tls.stack = []
    return items


def top():
    """The innermost context of this thread's stack, or None.  (Fast: one thread-local look-up.)"""
    items = getattr(_tls, "stack", None)
    return items[-1] if items else None


def activate(ctx):
    """Make ``ctx`` current in the driver (``cuCtxSetCurrent``)."""
    drv = cudriver.driver()
    res = drv.cuCtxSetCurrent(ctx.handle)[0]
    if res:
        cudriver.check(res, "cuCtxSetCurrent")


def has_current_context():
    return bool(getattr(_tls, "stack", None))


def push_context(ctx):
    items = stack()
    if not items:
        # Remember what another library (CuPy, PyTorch ...) had made current, to give it back
        # when our stack empties again.
        _tls.outer = cudriver.call(cudriver.driver().cuCtxGetCurrent)
    activate(ctx)
    items.append(ctx)


def pop_context():
    items = stack()
    if not items:
        raise CudaSupportError("no CUDA context to pop in this thread")
    items.pop()
    if items:
        activate(items[-1])
    else:
        drv = cudriver.driver()
        outer = getattr(_tls, "outer", None)
        _tls.outer = None
        restore = outer if outer is not None else drv.CUcontext(0)
        cudriver.check(drv.cuCtxSetCurrent(restore)[0], "cuCtxSetCurrent")


def forget_context(ctx):
    """Drop ``ctx`` from this thread's stack (it is being released)."""
    items = getattr(_tls, "stack", None)
    if items:
        items[:] = [c for c in items if c is not ctx]


def clear():
    """Empty this thread's stack (``cuda.close``)."""
    items = getattr(_tls, "stack", None)
    if items:
        items.clear()

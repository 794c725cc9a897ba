"""``numba.cuda.launchconfig``: the launch configuration of the launch that is compiling a kernel.

When ``kernel[griddim, blockdim, stream, sharedmem](...)`` has to compile the kernel, the
compilation runs with that launch configuration current in the thread (the
``LaunchConfiguration`` object: ``dispatcher``, ``griddim``, ``blockdim``, ``stream``,
``sharedmem``, ``args``, ``pre_launch_callbacks``), so typing and lowering code -- an
``@overload``, an ``@intrinsic``, a rewrite -- can read it, as in NVIDIA's numba-cuda:

* :func:`current_launch_config` -- the configuration, or None outside a launch-triggered
  compilation (an eager ``cuda.jit("sig")`` compile, ``compile_ptx``, another thread);
* :func:`ensure_current_launch_config` -- the same, or ``RuntimeError``;
* :func:`capture_compile_config` -- a context manager recording the configuration of a
  compilation of one dispatcher's kernel that a launch triggers in the block.

Code generated from the configuration (a block size baked into the kernel) must say so with
``config.dispatcher.mark_launch_config_sensitive()`` during that compilation: the dispatcher then
compiles the kernel again for each launch configuration (grid, block, dynamic shared memory) it
is launched with, and does not keep it in the disk cache.  ``launch_config.pre_launch_callbacks``
is a list of ``callback(kernel, launch_config)`` run on the host just before the launch (they
must not call CUDA).  Nothing here is set in the simulator, whose kernels are not compiled.
"""

import contextlib
import threading

__all__ = ["current_launch_config", "ensure_current_launch_config", "capture_compile_config"]

_local = threading.local()


def current_launch_config():
    """The launch configuration whose launch is compiling a kernel in this thread, or None."""
    return getattr(_local, "config", None)


def ensure_current_launch_config():
    """:func:`current_launch_config`, or ``RuntimeError`` when no launch is compiling."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError(
            "No launch config set for this thread: the launch configuration is current only "
            "while a kernel launch (kernel[grid, block](...)) compiles the kernel")
    return config


@contextlib.contextmanager
def compiling_for(config):
    """Make ``config`` current for the compilation a launch triggers (the dispatcher's use)."""
    previous = getattr(_local, "config", None)
    _local.config = config
    try:
        yield config
    finally:
        _local.config = previous


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """``{"config": ...}``: filled with the launch configuration of a compilation of
    ``dispatcher``'s kernel that a launch triggers inside the block (stays None when the kernel
    is already compiled for the launch's arguments)."""
    if dispatcher is None:
        raise TypeError("dispatcher is required")
    record = {"config": None}
    captures = dispatcher.__dict__.setdefault("_compile_config_captures", [])
    captures.append(record)
    try:
        yield record
    finally:
        captures.remove(record)

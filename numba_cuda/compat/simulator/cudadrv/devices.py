"""``numba.cuda.cudadrv.devices`` under the simulator."""

from numba_cuda.simulator.devices import (  # noqa: F401
    Context,
    Device,
    current_context,
    gpus,
    require_context,
)


def get_context(devnum=0):
    return current_context()


def reset():
    """Nothing to reset in the simulator."""

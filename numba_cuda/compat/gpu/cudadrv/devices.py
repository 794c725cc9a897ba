"""Numba's ``cudadrv.devices``: the device list and the current context."""

from numba_cuda.runtime.devices import (  # noqa: F401
    DeviceList,
    current_context as get_context,
    gpus,
    select_device,
)
from numba_cuda.runtime.api import require_context  # noqa: F401

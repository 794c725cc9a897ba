"""``numba.cuda.cudadrv.driver`` under the simulator: the names code commonly touches."""

from ...errors import CudaError, CudaSupportError, DriverError  # noqa: F401
from ..devices import Context, Device, current_context  # noqa: F401

CudaAPIError = DriverError
USE_NV_BINDING = True


class Driver:
    """The simulated driver: always initialised, one device."""

    is_available = True

    def get_device_count(self):
        return 1

    def get_version(self):
        return (13, 0)

    def initialize(self):
        pass


driver = Driver()


def device_pointer(obj):
    return obj.__cuda_array_interface__["data"][0]


def host_pointer(obj):
    import numpy as np

    return np.asarray(obj).__array_interface__["data"][0]

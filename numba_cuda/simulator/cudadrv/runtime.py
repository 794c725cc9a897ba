"""``numba.cuda.cudadrv.runtime`` under the simulator."""


class Runtime:
    """The simulated CUDA runtime."""

    def get_version(self):
        return (13, 0)

    def is_supported_version(self):
        return True

    @property
    def supported_versions(self):
        return ((12, 0), (13, 0))


runtime = Runtime()

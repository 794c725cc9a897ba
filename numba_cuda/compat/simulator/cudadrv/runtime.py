"""``numba.cuda.cudadrv.runtime`` under the simulator.

As in Numba's simulator, no CUDA runtime is involved: its version is
``(-1, -1)``, which is the one supported version.
"""


class Runtime:
    """The simulated CUDA runtime (no real runtime is loaded)."""

    def get_version(self):
        return (-1, -1)

    def is_supported_version(self):
        return True

    @property
    def supported_versions(self):
        return ((-1, -1),)


runtime = Runtime()

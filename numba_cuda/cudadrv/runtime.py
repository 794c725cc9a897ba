"""Numba's ``cudadrv.runtime``: the CUDA runtime (cudart) version.

cudart is loaded from the toolkit that ``numba_cuda.toolkit`` chose, then
queried through ``cuda.bindings.runtime``.
"""

from numba_cuda.errors import ToolkitError


class Runtime:
    def _bindings(self):
        from numba_cuda.toolkit import load_library

        load_library("cudart")
        try:
            from cuda.bindings import runtime as cudart
        except Exception as exc:  # noqa: BLE001
            raise ToolkitError(f"cuda.bindings.runtime could not be imported ({exc})") from exc
        return cudart

    def get_version(self):
        """The CUDA runtime version as ``(major, minor)``."""
        cudart = self._bindings()
        err, number = cudart.cudaRuntimeGetVersion()
        if err != cudart.cudaError_t.cudaSuccess:
            raise ToolkitError(f"cudaRuntimeGetVersion failed: {err.name}")
        return (number // 1000, (number % 1000) // 10)

    @property
    def is_supported_version(self):
        try:
            return self.get_version()[0] >= 12
        except ToolkitError:
            return False


runtime = Runtime()


def get_version():
    return runtime.get_version()

"""The CUDA runtime (cudart) of the toolkit in use: its version (Numba's ``cudadrv.runtime``).

cudart is loaded from the toolkit that ``numba_cuda.toolkit`` chose, then
queried through ``cuda.bindings.runtime``.
"""

from numba_cuda.errors import ToolkitError


#: CUDA majors whose runtime numba-cuda works with
SUPPORTED_MAJORS = (12, 13)


class Runtime:
    def _bindings(self):
        from numba_cuda.toolkit import load_library

        load_library("cudart")
        try:
            from cuda.bindings import runtime as cudart
        except Exception as exc:  # noqa: BLE001
            raise ToolkitError(f"cuda.bindings.runtime could not be imported ({exc})").with_cause(
                exc) from None
        return cudart

    def get_version(self):
        """The CUDA runtime version as ``(major, minor)``."""
        cudart = self._bindings()
        err, number = cudart.cudaRuntimeGetVersion()
        if err != cudart.cudaError_t.cudaSuccess:
            raise ToolkitError(f"cudaRuntimeGetVersion failed: {err.name}")
        return (number // 1000, (number % 1000) // 10)

    def is_supported_version(self):
        """True when the CUDA runtime is of a major numba-cuda supports (12 or 13); False
        also when no runtime can be loaded."""
        try:
            return self.get_version()[0] in SUPPORTED_MAJORS
        except ToolkitError:
            return False


runtime = Runtime()


def get_version():
    return runtime.get_version()

"""The error for what the simulator cannot do (it needs the real compiler or a GPU)."""

from ..errors import NotAvailableInSimulator


def not_available(what):
    """A :class:`~numba_cuda.errors.NotAvailableInSimulator` saying that ``what`` needs the
    real CUDA target."""
    return NotAvailableInSimulator(
        f"{what} is not available in the simulator (NUMBA_ENABLE_CUDASIM=1): it needs the real "
        f"CUDA target. Unset NUMBA_ENABLE_CUDASIM to use it."
    )

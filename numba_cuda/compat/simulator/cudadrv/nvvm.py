"""``numba.cuda.cudadrv.nvvm`` under the simulator: no NVVM is used.

The names code imports from it exist (``NVVM``, ``LibDevice``, ``nvvmError`` ...); making an
``NVVM`` or a ``LibDevice`` raises :class:`~numba_cuda.errors.NotAvailableInSimulator`.
"""

from numba_cuda.errors import NvvmError  # noqa: F401

#: The exception libNVVM failures raise (``cuda.bindings.nvvm.nvvmError``'s role); never
#: raised here.
nvvmError = NvvmError  # noqa: N816 - NVIDIA's spelling


def is_available():
    return False


def NVVM():  # noqa: N802 - the real module's spelling
    from numba_cuda.simulator.unavailable import not_available

    raise not_available("libNVVM")


class LibDevice:
    """libdevice's bitcode (``LibDevice().get()`` on the real target)."""

    def __init__(self):
        from numba_cuda.simulator.unavailable import not_available

        raise not_available("libdevice (cudadrv.nvvm.LibDevice)")


def get_supported_ccs():
    """The compute capabilities libNVVM compiles for: none, as no libNVVM is used."""
    return ()

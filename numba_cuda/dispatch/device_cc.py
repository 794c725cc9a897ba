"""The current device's compute capability, asked of the runtime.

The compiler never asks the runtime itself: importing this module (``numba_cuda.dispatch`` does)
hands ``current_device_cc`` to ``numba_cuda.compiler.capability.set_device_cc_query``, so that
``cc=None`` in the compiler (``CompiledKernel.image()``, ``inspect_asm()`` ...) means the current
GPU's compute capability where there is one, else the lowest the installed libNVVM accepts.
"""

from ..compiler import capability


def current_device_cc():
    """The current device's compute capability, or None when there is no usable GPU."""
    try:
        from ..runtime import api as runtime_api

        return tuple(runtime_api.get_current_device().compute_capability)
    except Exception:  # noqa: BLE001 - any failure means "no device to ask"
        return None


def launch_cc():
    """The compute capability kernels are made for at launch: the current device's (raises
    ``CudaSupportError`` without a driver or device)."""
    from ..runtime import api as runtime_api

    return tuple(runtime_api.get_current_device().compute_capability)


capability.set_device_cc_query(current_device_cc)

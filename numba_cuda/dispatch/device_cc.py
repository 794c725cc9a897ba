"""The current device's compute capability, asked of the runtime.

The compiler never asks the runtime itself: the dispatch layer passes ``current_device_cc`` as
the default of the kernels it makes (``LaunchableKernel(..., device_cc=current_device_cc)``) and
resolves ``cc=None`` with it (``capability.resolve_cc(cc, current_device_cc)``), so that there
``cc=None`` means the current GPU's compute capability where there is one, else the lowest the
installed libNVVM accepts.
"""


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


"""Runtime settings users set through Numba's environment variables.

Each is read when it is used (not at import), from ``numba.core.config``
when Numba defines the setting there, so that ``numba.core.config.X = ...``
and Numba's ``override_config`` work as with Numba's built-in target; else
from the environment variable directly.

=====================================  ===============================  =========
variable                               ``numba.core.config`` name       default
=====================================  ===============================  =========
``NUMBA_CUDA_MEMORY_MANAGER``          ``CUDA_MEMORY_MANAGER``          default
``NUMBA_CUDA_ARRAY_INTERFACE_SYNC``    ``CUDA_ARRAY_INTERFACE_SYNC``    1
``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY``   ``CUDA_WARN_ON_IMPLICIT_COPY``   1
=====================================  ===============================  =========
"""

import os

from numba_cuda.common.env_flags import flag_value


def _setting(config_name, env_name, default, convert):
    from numba.core import config

    value = getattr(config, config_name, None)
    if value is not None:
        return convert(value)
    raw = os.environ.get(env_name)
    if raw is None or not raw.strip():
        return default
    try:
        return convert(raw.strip())
    except ValueError:
        raise ValueError(f"{env_name}={raw!r} is not a valid value (expected {default!r}-like)")


def _flag(value):
    if isinstance(value, str):  # never empty here: _setting gives the default for that
        return flag_value(value, default=True)
    return bool(value)


def memory_manager_module():
    """``NUMBA_CUDA_MEMORY_MANAGER``: ``"default"`` or the module of an EMM plugin."""
    return _setting("CUDA_MEMORY_MANAGER", "NUMBA_CUDA_MEMORY_MANAGER", "default", str)


def array_interface_sync():
    """``NUMBA_CUDA_ARRAY_INTERFACE_SYNC``: synchronise a CUDA Array Interface producer's
    stream when an array is imported (``cuda.as_cuda_array``)."""
    return _setting("CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC", True, _flag)


def warn_on_implicit_copy():
    """``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY``: warn when a host array passed to a kernel is
    copied to the device and back (unless performance warnings are disabled)."""
    from numba.core import config

    if getattr(config, "DISABLE_PERFORMANCE_WARNINGS", 0):
        return False
    return _setting("CUDA_WARN_ON_IMPLICIT_COPY", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", True,
                    _flag)

"""``numba.cuda.config``: Numba's ``numba.core.config`` (NVIDIA's numba-cuda reads its settings through ``numba.cuda.core.config``, also that module); the very same module."""

import sys

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba.core.config")

from numba_cuda.unsupported import install_nrt_settings  # noqa: E402

install_nrt_settings(sys.modules[__name__])

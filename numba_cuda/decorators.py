"""``numba.cuda.decorators``: where old Numba code imports ``jit`` and ``declare_device``.

They are ``cuda.jit`` and ``cuda.declare_device`` of the target in use (the GPU's, or the
simulator's under ``NUMBA_ENABLE_CUDASIM=1``).
"""

import numba_cuda as _cuda

jit = _cuda.jit
declare_device = _cuda.declare_device

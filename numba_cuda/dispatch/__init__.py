"""The dispatch layer: where compiling meets launching.

It asks the compiler (``numba_cuda.compiler``) for a kernel image and the runtime
(``numba_cuda.runtime``) to load and launch it; neither of those imports this package.

* ``api``           -- ``cuda.jit``, ``overload_jit``, the public ``compile``/``compile_ptx``/
                       ``declare_device`` and ``*_for_current_device``
* ``dispatcher``    -- ``CUDADispatcher`` (the per-signature kernel table, ``specialize``, kernel
                       attributes), launch configurations ``kernel[grid, block, stream, shared]``
                       and ``forall``
* ``launched_kernel`` -- ``LaunchableKernel``: a compiled kernel with the queries that need the
                       runtime (``max_cooperative_grid_blocks``)
* ``disk_cache``    -- the ``cache=True`` hook: ``DispatcherCache``, ``CachedKernel``
* ``cache_off``     -- ``NO_DISK_CACHE``, the dispatcher's cache without ``cache=True``
* ``device_cc``     -- the current device's compute capability (what ``cc=None`` means for
                       the kernels this layer makes)
* ``registration``  -- ``CUDADispatcher`` and ``overload_jit`` in Numba's ``dispatcher_registry``
                       and ``jit_registry`` for the ``cuda`` target

Importing any module of this package registers the target with Numba (below); ``import
numba.cuda`` imports none of it.
"""

from . import registration as _registration  # noqa: F401 - registers with Numba

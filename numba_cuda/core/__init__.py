"""``numba.cuda.core``: Numba's ``numba.core`` (NVIDIA's numba-cuda ships a copy of it here).

``numba.cuda.core.X`` is the very module ``numba.core.X``.  Note: ``numba.cuda.core.caching``
is Numba's CPU cache machinery (``_CacheLocator``, ``CacheImpl``, ``IndexDataCacheFile``);
kernels compiled here are cached by :mod:`numba_cuda.caching`, which does not use it.
"""

from numba_cuda._aliases import alias_package

alias_package(__name__, "numba.core")

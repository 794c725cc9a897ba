"""On-disk cache of compiled kernels and device functions (``cuda.jit(cache=True)``).

* ``locator``      -- which directory holds a function's entries
* ``entryfile``    -- the integrity-checked, atomically written entry file format
* ``kernel_cache`` -- ``KernelCache`` (the API the dispatcher calls), ``NullCache``, ``CacheWarning``
"""

from .kernel_cache import CacheWarning, KernelCache, NullCache

__all__ = ["CacheWarning", "KernelCache", "NullCache"]

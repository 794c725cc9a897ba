"""The dispatcher's cache without ``cache=True`` (the default): a null object, so that the
on-disk cache machinery (``disk_cache``, ``numba_cuda.caching``) is imported only by
dispatchers that ask for it."""


class NoDispatcherCache:
    """The dispatcher's cache without ``cache=True``: never hits, stores nothing."""

    enabled = False
    cache_path = None

    def load_kernel(self, args):
        return None

    def save_kernel(self, args, kernel):
        return False


NO_DISK_CACHE = NoDispatcherCache()

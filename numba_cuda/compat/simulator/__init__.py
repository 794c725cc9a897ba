"""Compat code of the simulator: the modules old paths are under ``NUMBA_ENABLE_CUDASIM=1``.

Each module here is the simulator's column of a row of :data:`numba_cuda.compat.table.ROWS`
(``numba.cuda.cudadrv.driver`` is :mod:`.cudadrv.driver` in the simulator).  Import them by
their old paths, not from here.
"""

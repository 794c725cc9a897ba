"""Compat code of the GPU target: modules laid out as old paths had them.

Each module here is the target of a row of :data:`numba_cuda.compat.table.ROWS` (the row names
its old path); some serve the simulator's column too, where the module is the same on both
targets (``itanium_mangler``, ``libdevicefuncs``, ``kernels`` ...).  Import them by their old
paths (``numba.cuda.cudadrv.driver``), not from here.
"""

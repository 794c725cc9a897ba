"""``numba.cuda.kernels``: Numba's path for its ready-made kernels (``kernels.reduction``,
``kernels.transpose``), on both targets.

``transpose`` is here; ``reduction`` is a row of its own in the compat table (the GPU's or the
simulator's ``Reduce``), reached as an attribute through its ``numba_cuda.kernels.reduction``
path (``from numba.cuda.kernels import reduction``).
"""


def __getattr__(name):
    if name == "reduction":
        import importlib

        return importlib.import_module("numba_cuda.kernels.reduction")
    raise AttributeError(f"module 'numba_cuda.kernels' has no attribute {name!r}")

"""``numba.cuda.kernels``: Numba's path for its ready-made kernels (``kernels.reduction``,
``kernels.transpose``)."""

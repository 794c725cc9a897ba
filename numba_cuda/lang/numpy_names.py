"""The NumPy functions and ndarray methods the kernel language's NumPy families provide, by
name: the typing context installs a family (``numpy_reductions``) when a kernel first names one
of them, so a process that never does pays nothing for it."""

#: np.<name> reductions (numba_cuda.lang.numpy_reductions)
REDUCTION_FUNCTIONS = (
    "sum", "prod", "nansum", "nanprod", "max", "amax", "min", "amin", "argmax", "argmin",
    "nanmax", "nanmin", "nanargmax", "nanargmin", "ptp", "all", "any", "count_nonzero",
    "mean", "nanmean", "var", "std", "nanvar", "nanstd",
)
#: ndarray.<name>() reductions
REDUCTION_METHODS = ("sum", "prod", "max", "min", "argmax", "argmin", "all", "any", "mean", "var", "std")

"""``numba.cuda.cudadrv`` under the simulator: the compatibility modules existing code imports."""

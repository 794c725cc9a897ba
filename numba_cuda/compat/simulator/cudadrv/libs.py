"""``numba.cuda.cudadrv.libs`` under the simulator."""


def test():
    """Report that no CUDA library is needed; returns True."""
    print("CUDA simulator (NUMBA_ENABLE_CUDASIM=1): no CUDA libraries are loaded")
    return True


def get_cudalib(lib, static=False):
    from numba_cuda.simulator.unavailable import not_available

    raise not_available(f"loading the CUDA library {lib!r}")

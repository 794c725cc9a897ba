"""``numba.cuda.cudadrv.nvvm`` under the simulator: no NVVM is used."""


def is_available():
    return False


def NVVM():  # noqa: N802 - the real module's spelling
    from numba_cuda.simulator.unavailable import not_available

    raise not_available("libNVVM")

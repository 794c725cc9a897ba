"""``numba.cuda.kernels.transpose.transpose(a, b=None)``: the transpose of a 2-D array on the
device, the ready-made kernel of Numba's old CUDA target (and NVIDIA's numba-cuda).

``a`` is a host or device array of 2 dimensions (any dtype a kernel can copy: numbers,
booleans, records); ``b``, when given, receives ``a.T`` and must have shape
``(a.shape[1], a.shape[0])`` and ``a``'s dtype; otherwise a new device array is made.  The
copy runs on ``a``'s stream when ``a`` is a device array with one.  Tiles of 16 x 16 elements
go through shared memory (padded by a column, so that the transposed reads hit distinct
banks).  It is written with the public API only, so the simulator runs the same kernel.
"""

import functools

import numpy as np

TILE = 16
#: the shared tile: a padding column keeps the transposed reads on distinct banks
TILE_SHAPE = (TILE, TILE + 1)


@functools.lru_cache(maxsize=None)
def _kernel(dtype):
    from numba import cuda
    from numba.np.numpy_support import from_dtype

    element = from_dtype(dtype)

    @cuda.jit
    def transpose_tiles(src, dst):
        tile = cuda.shared.array(TILE_SHAPE, element)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        col0, row0 = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
        if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
            tile[ty, tx] = src[row0 + ty, col0 + tx]
        cuda.syncthreads()
        if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
            dst[col0 + ty, row0 + tx] = tile[tx, ty]

    return transpose_tiles


def transpose(a, b=None):
    """``b = a.T`` on the device (see the module docstring); returns ``b``."""
    from numba import cuda

    if getattr(a, "ndim", None) != 2:
        raise ValueError(f"transpose() takes a 2-D array, got {getattr(a, 'ndim', type(a).__name__)}"
                         f"{'-D' if hasattr(a, 'ndim') else ''}")
    dtype = np.dtype(a.dtype)
    rows, cols = a.shape
    stream = getattr(a, "stream", 0) or 0
    if b is None:
        b = cuda.device_array((cols, rows), dtype=dtype, stream=stream)
    elif tuple(b.shape) != (cols, rows) or np.dtype(b.dtype) != dtype:
        raise ValueError(f"transpose() of a {rows}x{cols} {dtype} array needs an output of shape "
                         f"({cols}, {rows}) and dtype {dtype}, got {tuple(b.shape)} {b.dtype}")
    blocks = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    _kernel(dtype)[blocks, (TILE, TILE), stream](a, b)
    return b

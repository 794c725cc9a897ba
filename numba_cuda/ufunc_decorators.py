"""``cuda.vectorize`` and ``cuda.guvectorize``: Numba's decorators with ``target="cuda"``.

NVIDIA's numba-cuda exports these from ``numba.cuda``; they are ``numba.vectorize`` and
``numba.guvectorize`` whose ``target`` defaults to ``"cuda"``, so the builders of
:mod:`numba_cuda.ufuncs` compile them (on the GPU, or in the simulator under
``NUMBA_ENABLE_CUDASIM=1``).  Everything else (signatures, ``identity``, ``cache`` ...) is as
documented for Numba's decorators.  (A module of its own, importing nothing of this package,
so that the simulator's API can export them too.)
"""


def vectorize(ftylist_or_function=(), target="cuda", **kws):
    """``numba.vectorize`` for the CUDA target: ``@cuda.vectorize(["float32(float32)"])``."""
    from numba.np.ufunc import vectorize as numba_vectorize

    return numba_vectorize(ftylist_or_function, target=target, **kws)


def guvectorize(*args, target="cuda", **kws):
    """``numba.guvectorize`` for the CUDA target: ``@cuda.guvectorize(sigs, "(n)->()")``."""
    from numba.np.ufunc import guvectorize as numba_guvectorize

    return numba_guvectorize(*args, target=target, **kws)

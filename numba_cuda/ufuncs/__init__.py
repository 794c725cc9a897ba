"""CUDA ufuncs: ``numba.vectorize``/``numba.guvectorize`` with ``target="cuda"``, and
``cuda.reduce``.

==========================  =================================================================
module                      holds
==========================  =================================================================
``vectorize``               ``CUDAVectorize`` (builder) and ``CUDAUFunc`` (element-wise)
``gufunc``                  ``CUDAGUFuncVectorize`` (builder) and ``CUDAGUFunc``
``reduction``               ``Reduce`` (``cuda.reduce``): tree reduction in shared memory
``loops``                   signatures and choosing one for a call
``schedule``                a gufunc call's loop and core shapes (``GUFuncEngine``)
``kernelsource``            the generated kernels' source
``backend``                 GPU runtime or simulator: arrays, copies, launches
==========================  =================================================================

How Numba reaches this package: ``numba.np.ufunc`` registers the ``cuda`` entries of its
``Vectorize``/``GUVectorize`` target registries as imports of
``numba.cuda.vectorizers.CUDAVectorize``/``CUDAGUFuncVectorize``; with the redirector in
place that module is ``numba_cuda.vectorizers``, which re-exports the builders here.  The
builders pick the simulator's backend when ``NUMBA_ENABLE_CUDASIM=1``, so the same decorators
work without a GPU.  Nothing here is imported by ``import numba.cuda``.
"""

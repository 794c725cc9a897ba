"""``numba.cuda.stubs``: the Python-side objects of the kernel language (``threadIdx``,
``shared``, ``atomic`` ...); the very module :mod:`numba_cuda.lang.stubs`."""

from numba_cuda._aliases import alias_module

alias_module(__name__, "numba_cuda.lang.stubs")

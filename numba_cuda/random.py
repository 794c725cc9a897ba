"""``numba.cuda.random``: random number generation in kernels.

This module exists so that ``from numba.cuda import random`` and
``import numba.cuda.random`` resolve.  The generator itself (xoroshiro128+
states, ``create_xoroshiro128p_states``, ``xoroshiro128p_uniform_float32`` and
friends) is not implemented yet: it is scheduled as separate work, and until
then this module deliberately defines none of those names.
"""

"""``cuda.ldca`` ... ``cuda.stwt`` in the simulator: plain element reads and writes.

A cache operator changes only where the hardware keeps the line, never the value read or
written, so the simulator checks the arguments as the compiler does and indexes the array.
"""

import numpy as np


def _check(name, array):
    dtype = getattr(array, "dtype", None)
    if dtype is None or np.ndim(array) == 0 and not hasattr(array, "shape"):
        raise TypeError(f"cuda.{name}: the first argument must be an array, not {type(array).__name__}")
    dtype = np.dtype(dtype)
    if dtype.kind not in "iuf" or dtype.itemsize not in (1, 2, 4, 8):
        raise TypeError(f"cuda.{name}: {name} requires array of integer or float type (8, 16, "
                        f"32 or 64 bits), got {dtype}")


def _load(operator):
    name = f"ld{operator}"

    def load(array, i):
        _check(name, array)
        return array[i]

    load.__name__ = load.__qualname__ = name
    load.__doc__ = f"array[i] (the GPU reads it with ld.global.{operator})."
    return load


def _store(operator):
    name = f"st{operator}"

    def store(array, i, value):
        _check(name, array)
        array[i] = value

    store.__name__ = store.__qualname__ = name
    store.__doc__ = f"array[i] = value (the GPU writes it with st.global.{operator})."
    return store


ldca, ldcg, ldcs, ldlu, ldcv = (_load(op) for op in ("ca", "cg", "cs", "lu", "cv"))
stcg, stcs, stwb, stwt = (_store(op) for op in ("cg", "cs", "wb", "wt"))

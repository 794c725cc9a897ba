"""The sizes in ``kernel[griddim, blockdim]``: one check for the GPU target's dispatcher, its
runtime and the simulator.

``normalize_dims(value, what)`` turns an int, a sequence of 1 to 3 ints or a ``dim3``-like
object (``.x``, ``.y``, ``.z``) into ``(x, y, z)``.  Integers are anything with ``__index__``
(NumPy's too) except booleans.  A missing size or a wrong count or value is a
``LaunchConfigError`` (a ``ValueError``), a size that is not an integer a
``LaunchConfigTypeError`` (also a ``TypeError``): the classes Numba raises, with the words
Numba's tests look for ("must be a sequence of 1, 2 or 3 integers", "must be a sequence of
integers").  Device limits are each target's own check.

Also the kernel options both targets check alike: ``launch_bounds=``
(:func:`normalize_launch_bounds`) and ``shared_memory_carveout=``
(:func:`normalize_shared_memory_carveout`).
"""

import numbers
import operator

from ..errors import LaunchConfigError, LaunchConfigTypeError

__all__ = ["normalize_dims"]


def _size(d):
    """``d`` as an int, or None when it is not an integer (booleans are not sizes)."""
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) and not hasattr(d, "__index__"):
        return None
    try:
        return operator.index(d)
    except TypeError:  # NumPy's bool has __index__ but refuses it
        return None


def normalize_dims(value, what):
    """``5`` -> ``(5, 1, 1)``; ``(2, 3)`` -> ``(2, 3, 1)``; ``what`` ("griddim", "blockdim")
    names the value in the errors."""
    # Fast path, taken by nearly every launch: plain positive ints (a bool is not one).
    kind = type(value)
    if kind is int:
        if value >= 1:
            return (value, 1, 1)
    elif kind is tuple and 1 <= len(value) <= 3:
        for d in value:
            if type(d) is not int or d < 1:
                break
        else:
            return value + (1,) * (3 - len(value))
    if value is None:
        raise LaunchConfigError(f"{what} is missing: launch the kernel as "
                                "kernel[griddim, blockdim](...)")
    if isinstance(value, numbers.Integral):
        dims = (value,)
    elif hasattr(value, "x") and hasattr(value, "y") and hasattr(value, "z"):
        dims = (value.x, value.y, value.z)
    else:
        try:
            dims = tuple(value)
        except TypeError:  # one size that is not an int: refused below, in Numba's words
            dims = (value,)
    if not 1 <= len(dims) <= 3:
        raise LaunchConfigError(f"{what} must be a sequence of 1, 2 or 3 integers, got "
                                f"{list(dims)}")
    out = []
    for axis, d in zip("xyz", dims):
        size = _size(d)
        if size is None:
            raise LaunchConfigTypeError(f"{what} must be a sequence of integers, got "
                                        f"{list(dims)} ({what}.{axis} is {d!r})")
        if size < 1:
            raise LaunchConfigError(
                f"{what}.{axis} must be at least 1, got {size} (a launch needs at least one "
                f"block of at least one thread)"
            )
        out.append(size)
    return tuple(out) + (1,) * (3 - len(out))


def normalize_launch_bounds(value):
    """``launch_bounds=`` as a tuple of 1 to 3 positive ints (an int is a 1-tuple), or None."""
    if value is None:
        return None
    items = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if (not items or len(items) > 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in items)):
        # (NVIDIA's numba-cuda says "Got N launch bounds: ..." of a tuple that is too long)
        count = f"Got {len(items)} launch bounds: " if items and len(items) > 3 else ""
        raise ValueError(
            f"{count}launch_bounds must be an int (the most threads per block) or a tuple of 1 "
            f"to 3 positive ints (max threads per block, min blocks per multiprocessor, max "
            f"blocks per cluster), got {value!r}")
    return tuple(int(v) for v in items)


def check_launch_bounds(launch_bounds, block):
    """A launch of ``block`` threads per block within a kernel's ``launch_bounds`` (or its
    LaunchConfigError, as the GPU refuses such a launch)."""
    if launch_bounds:
        threads = block[0] * block[1] * block[2]
        if threads > launch_bounds[0]:
            raise LaunchConfigError(
                f"blockdim {tuple(block)} has {threads} threads per block, over the kernel's "
                f"launch_bounds of {launch_bounds[0]} threads per block")


#: ``shared_memory_carveout=`` names and the percentages they stand for (case-insensitive):
#: the driver's default split, the most L1 cache (0 % shared), the most shared memory (100 %).
CARVEOUT_NAMES = {"default": -1, "maxl1": 0, "maxshared": 100}


def normalize_shared_memory_carveout(value):
    """``shared_memory_carveout=`` as the percentage the driver takes (-1: its default), or None.

    ``value``: an int from -1 to 100 (the percentage of the L1/shared memory to use as shared
    memory; -1 the driver's default) or ``"default"``, ``"MaxL1"`` (0), ``"MaxShared"`` (100),
    in any case.  A preference: the driver rounds it to a split the device supports.
    """
    if value is None:
        return None
    if isinstance(value, str):
        percent = CARVEOUT_NAMES.get(value.lower())
        if percent is None:
            raise ValueError(f"Invalid carveout value: {value!r}; shared_memory_carveout must "
                             f"be -1 to 100 or one of 'default', 'MaxL1', 'MaxShared'")
        return percent
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"shared_memory_carveout must be an int (-1 to 100) or one of "
                        f"'default', 'MaxL1', 'MaxShared', not {type(value).__name__}")
    percent = operator.index(value)
    if not -1 <= percent <= 100:
        raise ValueError(f"Carveout must be between -1 and 100 (a percentage, -1 for the "
                         f"driver's default), got {percent}")
    return percent


def normalize_kernel_dimensions(griddim, blockdim):
    """``(griddim, blockdim)`` as two ``(x, y, z)`` tuples, as both peers' function of this name
    (``numba.cuda.errors.normalize_kernel_dimensions``) gives them, by the check launches use: a
    missing one is a ``LaunchConfigError`` (a ``ValueError``) with
    ``errors.missing_launch_config_msg``, a wrong count or value a ``LaunchConfigError``, a size
    that is not an integer a ``LaunchConfigTypeError`` (a ``TypeError``)."""
    from ..errors import missing_launch_config_msg

    if griddim is None or blockdim is None:
        raise LaunchConfigError(missing_launch_config_msg)
    return normalize_dims(griddim, "griddim"), normalize_dims(blockdim, "blockdim")

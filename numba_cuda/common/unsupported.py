"""What neither target accepts, and the one error both raise for it.

Shared by the real target (:mod:`numba_cuda.compiler`, :mod:`numba_cuda.runtime`)
and the simulator, which must give the same answers; it imports neither.

* Generator functions (``yield``), coroutine functions (``async def``) and
  async generators cannot be kernels or device functions: a GPU thread runs
  its function once, to the end.
* ``try``/``except``/``finally`` is refused (:func:`no_try_message`): CUDA code has no
  exception handling.
* A kernel returns nothing (:func:`check_void_return`): its results go into array
  arguments.
* Python containers (lists, dicts, sets) cannot be kernel arguments, and
  arrays of Python objects (``dtype=object``) cannot live in device memory.
  Arrays of numbers, booleans, records and fixed-size character sequences
  (``"S12"``, ``"<U12"``) can.
"""

import inspect

import numpy as np

from numba_cuda.errors import KernelArgumentError


def no_try_message():
    """The refusal of ``try``/``except`` in CUDA code, on both targets."""
    return ("try/except is not supported in CUDA kernels and device functions (CUDA code has no "
            "exception handling to catch with); test the condition with an if statement instead. "
            "An exception raised in a kernel compiled with debug=True is reported on the host "
            "after the launch")


def check_void_return(qualname, return_type):
    """Refuse a kernel whose return type (a Numba type; None: not given) is not void, with
    the one wording both targets use (Numba's "must have void return type", which its tests
    match)."""
    from numba.core import types

    if return_type is not None and return_type not in (types.none, types.void):
        raise TypeError(
            f"a CUDA kernel must have void return type, but {qualname} returns {return_type}; "
            "write results into an array argument, or compile it as a device function "
            "(device=True)")


def function_problem(func):
    """Why ``func`` cannot be compiled for CUDA (text), or None."""
    if inspect.isasyncgenfunction(func):
        return "an async generator function (async def with yield)"
    if inspect.iscoroutinefunction(func):
        return "a coroutine function (async def)"
    if inspect.isgeneratorfunction(func):
        return "a generator function (it contains yield)"
    return None


def check_function(func, api="@cuda.jit"):
    """Raise TypeError when ``func`` cannot be a CUDA kernel or device function (``api``: what
    the message says was asked to compile it)."""
    problem = function_problem(func)
    if problem is not None:
        name = getattr(func, "__qualname__", repr(func))
        raise TypeError(
            f"{api} cannot compile {name}: it is {problem}. CUDA kernels and device "
            "functions are plain functions that run to the end; write results into an array "
            "argument instead of yielding or awaiting them."
        )


OBJECT_ARRAY = ("an array of Python objects (dtype object) cannot live in device memory; "
                "device arrays hold numbers, booleans, records and fixed-size character "
                "sequences")


def check_dtype(dtype):
    """Raise TypeError for a dtype that cannot live in device memory (Python objects)."""
    if np.dtype(dtype).hasobject:
        raise TypeError(OBJECT_ARRAY)


def argument_problem(value):
    """Why ``value`` cannot be passed to a kernel (text), or None."""
    if isinstance(value, (list, dict, set, frozenset)):
        kind = type(value).__name__
        return (f"a Python {kind} cannot be passed to a CUDA kernel; pass a NumPy array "
                f"(np.asarray(...)) or a device array (cuda.to_device(...)) instead")
    if isinstance(value, np.ndarray) and value.dtype.hasobject:
        return OBJECT_ARRAY
    if isinstance(value, tuple):
        for item in value:
            problem = argument_problem(item)
            if problem is not None:
                return problem
    return None


def argument_error(kernel_name, index, value):
    """The :class:`~numba_cuda.errors.KernelArgumentError` (a TypeError) for argument ``index``
    of a kernel launch (see :func:`argument_problem`)."""
    return KernelArgumentError(f"kernel {kernel_name}: argument {index}: {argument_problem(value)}")

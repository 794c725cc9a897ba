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
* Creating arrays in CUDA code (``np.empty``, ``np.zeros`` ..., a device function
  returning a new array) needs the device NRT, which is off unless
  ``NUMBA_CUDA_ENABLE_NRT=1`` (:func:`nrt_enabled`, :func:`no_nrt_message`).
* Python containers (lists, dicts, sets) cannot be kernel arguments, and
  arrays of Python objects (``dtype=object``) cannot live in device memory.
  Arrays of numbers, booleans, records and fixed-size character sequences
  (``"S12"``, ``"<U12"``) can.
"""

import inspect

import numpy as np

from numba_cuda.common.env_flags import env_flag
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
#: ``numba.core.config`` name -> environment variable, of the device NRT's two settings
NRT_SETTINGS = {"CUDA_ENABLE_NRT": "NUMBA_CUDA_ENABLE_NRT", "CUDA_NRT_STATS": "NUMBA_CUDA_NRT_STATS"}


#: ``numba.core.config`` names NVIDIA's package derives from its toolkit rather than reads from
#: the environment, with this package's answers: debug info describes a variable whose type
#: changes (a polymorphic variable) as a union, never as a DWARF ``variant_part``
#: (``CUDA_DEBUG_POLY``), so there is no typed-constant discriminant either.  Code and tests
#: written for NVIDIA's package read them (its debug-info tests, at class definition).
DERIVED_SETTINGS = {"CUDA_DEBUG_POLY": False, "CUDA_DEBUG_POLY_USE_TYPED_CONST": False}


def install_nrt_settings(config):
    """Give ``config`` (``numba.core.config``) the device NRT's settings ``CUDA_ENABLE_NRT``
    and ``CUDA_NRT_STATS`` from their environment variables, and ``DERIVED_SETTINGS``, unless
    it has them already (a program, or ``override_config``, may have set them)."""
    for name, env in NRT_SETTINGS.items():
        if not hasattr(config, name):
            setattr(config, name, env_flag(env))
    for name, value in DERIVED_SETTINGS.items():
        if not hasattr(config, name):
            setattr(config, name, value)


def nrt_enabled():
    """``numba.core.config.CUDA_ENABLE_NRT`` (``NUMBA_CUDA_ENABLE_NRT``), read when code is
    compiled (or, in the simulator, run)."""
    from numba.core import config

    install_nrt_settings(config)
    return bool(config.CUDA_ENABLE_NRT)


def nrt_stats_enabled():
    """``numba.core.config.CUDA_NRT_STATS`` (``NUMBA_CUDA_NRT_STATS``)."""
    from numba.core import config

    install_nrt_settings(config)
    return bool(config.CUDA_NRT_STATS)


def no_nrt_message(what="creating or returning an array"):
    """The refusal of an allocation in CUDA code while the device NRT is off, on both targets."""
    return (f"{what} in a CUDA kernel or device function needs the device memory runtime "
            "(NRT), which is off: np.empty, np.zeros, np.ones, np.arange, arr.copy() ... "
            "allocate device memory, and a device function returning an array other than its "
            "argument (a new array, a slice) needs its reference counting. Turn it on with "
            "NUMBA_CUDA_ENABLE_NRT=1 in the environment (or numba.core.config.CUDA_ENABLE_NRT = "
            "True before the code is compiled), or write into arrays passed in, cuda.local.array "
            "or cuda.shared.array instead")


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

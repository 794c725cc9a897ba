"""The CUDA driver API (``cuda.bindings.driver``), initialised once per process.

``driver()`` returns the bindings module after a successful ``cuInit``, or
raises :class:`~numba_cuda.errors.CudaSupportError` with a sentence that says
what is missing and how to fix it.  ``call()`` runs one driver function and
turns a failure into :class:`~numba_cuda.errors.DriverError`.  No binding
exception (``DynamicLibNotFoundError``, ``RuntimeError`` ...) leaks out.

Logging, as Numba's driver wrapper does it: every ``call()`` logs ``call driver api: cuXxx`` at
DEBUG level to the logger ``numba.cuda.cudadrv.driver`` (with the argument values when
``NUMBA_CUDA_LOG_API_ARGS=1``).  Unless the application configured that logger, its level is
``NUMBA_CUDA_LOG_LEVEL`` (a ``logging`` level name; default CRITICAL, i.e. silent) and, when the
variable is set, it prints to stderr as ``== CUDA [ms] LEVEL -- message``.
"""

import logging
import sys
import threading

from numba_cuda.common.env_flags import env_flag
from numba_cuda.errors import CudaSupportError, DriverError

_lock = threading.Lock()
_driver = None
_failure = None  # the CudaSupportError of a failed initialisation, raised again on each use

_FIX = ("Install the NVIDIA display driver, or set NUMBA_ENABLE_CUDASIM=1 to run "
        "kernels in the simulator")


def driver_library_name():
    """The file name of the driver library on this platform."""
    return "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def _disabled_reason():
    if env_flag("NUMBA_DISABLE_CUDA", False):
        return "CUDA is disabled: NUMBA_DISABLE_CUDA is set in the environment (unset it to use the GPU)"
    return None


def _kept(exc):
    """``exc`` without its traceback, to be kept for the life of the process: a traceback holds
    the frames of every caller of the first driver() call (and their locals: the dispatcher
    being compiled ...), which would never be freed.  The same for the exceptions it chains.
    Where it was raised stays readable, as a note (text, no frames)."""
    import traceback

    seen, link = set(), exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if link.__traceback__ is not None and hasattr(link, "add_note"):
            link.add_note("raised at:\n" + "".join(traceback.format_tb(link.__traceback__)).rstrip())
        link.with_traceback(None)
        link = link.__cause__ or link.__context__
    return exc


def _initialise():
    reason = _disabled_reason()
    if reason:
        return None, CudaSupportError(reason)
    try:
        from cuda.bindings import driver as drv
    except Exception as exc:  # noqa: BLE001 - any failure to import the binding is a support error
        err = CudaSupportError(
            f"cuda-bindings could not be imported ({exc}); "
            f"install it with: pip install \"numba-cuda[cu13]\" (or [cu12])")
        return None, err.with_cause(_kept(exc))
    try:
        (res,) = drv.cuInit(0)
    except Exception as exc:  # noqa: BLE001 - the library itself could not be loaded
        err = CudaSupportError(
            f"no NVIDIA driver found: {driver_library_name()} could not be loaded ({exc}). {_FIX}.")
        return None, err.with_cause(_kept(exc))
    if res != drv.CUresult.CUDA_SUCCESS:
        if res == drv.CUresult.CUDA_ERROR_NO_DEVICE:
            msg = ("no CUDA-capable device found: the NVIDIA driver is installed but reports no GPU "
                   "(check CUDA_VISIBLE_DEVICES and nvidia-smi)")
        else:
            msg = (f"the NVIDIA driver failed to initialise: cuInit returned {res.name} "
                   f"({describe_error(drv, res)}); check the driver installation with nvidia-smi")
        return None, CudaSupportError(msg)
    return drv, None


def driver():
    """The initialised ``cuda.bindings.driver`` module (raises CudaSupportError)."""
    global _driver, _failure
    if _driver is not None:
        return _driver
    with _lock:
        if _driver is None and _failure is None:
            _driver, _failure = _initialise()
    if _failure is not None:
        # a fresh error each time (a raised exception accumulates traceback frames), without
        # the bindings' traceback: the cause stays in .cause
        raise CudaSupportError(str(_failure)).with_cause(_failure.cause) from None
    return _driver


def is_available():
    """True when the driver initialised and reports at least one device."""
    try:
        drv = driver()
        res, count = drv.cuDeviceGetCount()
    except CudaSupportError:
        return False
    return res == drv.CUresult.CUDA_SUCCESS and count > 0


def describe_error(drv, res):
    """The driver's own description of a CUresult, or its name."""
    try:
        err, text = drv.cuGetErrorString(res)
        if err == drv.CUresult.CUDA_SUCCESS and text:
            return text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # noqa: BLE001 - describing an error must not raise another
        pass
    return getattr(res, "name", str(res))


def check(res, what):
    """Raise DriverError when ``res`` (a CUresult) is not success."""
    if res:
        drv = driver()
        name = getattr(res, "name", str(res))
        raise DriverError(f"{what} failed: {name}: {describe_error(drv, res)}", code=name)


#: The logger Numba's driver wrapper uses (applications configure it by this name).
LOGGER_NAME = "numba.cuda.cudadrv.driver"
_logger = None


def logger():
    """The driver logger, set up from ``NUMBA_CUDA_LOG_LEVEL`` on first use (see above)."""
    global _logger
    if _logger is None:
        from numba.core import config

        log = logging.getLogger(LOGGER_NAME)
        if not log.hasHandlers():
            wanted = str(getattr(config, "CUDA_LOG_LEVEL", "") or "")
            level = getattr(logging, wanted.upper(), None)
            log.setLevel(level if isinstance(level, int) else logging.CRITICAL)
            if wanted:
                handler = logging.StreamHandler(sys.stderr)
                handler.setFormatter(logging.Formatter(
                    "== CUDA [%(relativeCreated)d] %(levelname)5s -- %(message)s"))
                log.addHandler(handler)
            else:
                log.addHandler(logging.NullHandler())
        _logger = log
    return _logger


def _log_call(fn, args):
    log = _logger or logger()
    if log.isEnabledFor(logging.DEBUG):
        from numba.core import config

        name = getattr(fn, "__name__", str(fn))
        if getattr(config, "CUDA_LOG_API_ARGS", 0):
            log.debug("call driver api: %s(%s)", name, ", ".join(str(a) for a in args))
        else:
            log.debug("call driver api: %s", name)


def call(fn, *args):
    """Call a driver function; return its values (None, one value or a tuple)."""
    _log_call(fn, args)
    result = fn(*args)
    check(result[0], fn.__name__)
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def reset_for_tests():
    """Forget the initialisation result (tests that change NUMBA_DISABLE_CUDA)."""
    global _driver, _failure
    with _lock:
        _driver = None
        _failure = None

"""Test helpers for code that uses ``numba.cuda`` (Numba's ``numba.cuda.testing`` names).

``CUDATestCase`` is a ``unittest.TestCase`` base; the ``skip_*`` decorators
skip tests under the simulator, without a GPU, or below a compute capability.
"""

import contextlib
import io
import sys
import unittest

import numba_cuda


def _simulator():
    return numba_cuda.USE_SIMULATOR


def _gpu_reason():
    """None when a GPU is usable, else why not."""
    if _simulator():
        return "the simulator is in use (NUMBA_ENABLE_CUDASIM=1)"
    from numba_cuda.runtime.probe import probe_devices, probe_driver

    driver = probe_driver()
    if driver["error"]:
        return driver["error"]
    if not probe_devices():
        return "the NVIDIA driver reports no CUDA device"
    return None


def skip_on_cudasim(reason):
    """Skip under the simulator."""
    return unittest.skipIf(_simulator(), reason)


def skip_unless_cudasim(reason):
    """Run only under the simulator."""
    return unittest.skipUnless(_simulator(), reason)


def skip_if_no_gpu(fn_or_reason=None):
    """Skip without a usable GPU (the simulator counts as none)."""
    reason = _gpu_reason()
    if callable(fn_or_reason):
        return unittest.skipIf(reason is not None, f"needs a GPU: {reason}")(fn_or_reason)
    return unittest.skipIf(reason is not None, f"{fn_or_reason or 'needs a GPU'}: {reason}")


skip_unless_gpu = skip_if_no_gpu


def cc_X_or_above(major, minor):
    """True when the current device's compute capability is at least major.minor
    (always True under the simulator)."""
    if _simulator():
        return True
    if _gpu_reason() is not None:
        return False
    from numba_cuda.runtime.api import get_current_device

    return get_current_device().compute_capability >= (major, minor)


def skip_unless_cc(major, minor):
    return unittest.skipUnless(cc_X_or_above(major, minor),
                               f"needs compute capability {major}.{minor} or above")


skip_unless_cc_50 = skip_unless_cc(5, 0)
skip_unless_cc_53 = skip_unless_cc(5, 3)
skip_unless_cc_60 = skip_unless_cc(6, 0)
skip_unless_cc_75 = skip_unless_cc(7, 5)
skip_unless_cc_80 = skip_unless_cc(8, 0)
skip_unless_cc_90 = skip_unless_cc(9, 0)


def _component_found(name):
    try:
        from numba_cuda.toolkit import get_toolkit

        comp = get_toolkit().components.get(name)
        return comp is not None and comp.found
    except Exception:  # noqa: BLE001
        return False


def skip_if_cuda_includes_missing(fn):
    return unittest.skipUnless(_component_found("include"), "CUDA headers not found")(fn)


def skip_if_nvjitlink_missing(reason):
    return unittest.skipUnless(_component_found("nvjitlink"), reason)


class CUDATestCase(unittest.TestCase):
    """Base class for CUDA tests: pending frees are flushed after each test."""

    def tearDown(self):
        if _simulator():
            return
        from numba_cuda.runtime import devices

        if devices.has_current_context():
            devices.current_context().deallocations.clear()

    def assertRaisesCudaError(self, *args, **kwargs):  # noqa: N802 - unittest style
        from numba_cuda.errors import CudaError

        return self.assertRaises(CudaError, *args, **kwargs)


class ContextResettingTestCase(CUDATestCase):
    """Releases numba-cuda's contexts after each test."""

    def tearDown(self):
        super().tearDown()
        if not _simulator():
            from numba_cuda.runtime.api import close

            close()


@contextlib.contextmanager
def captured_cuda_stdout():
    """Capture what kernels print (``print`` in a kernel), synchronising first so it is flushed.

    The device's printf writes to the process's file descriptor 1, so fd 1 is
    redirected to a temporary file for the block; read ``.getvalue()`` after it.
    """
    import os
    import tempfile

    sys.stdout.flush()
    result = io.StringIO()
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            yield result
            if not _simulator():
                from numba_cuda.runtime.api import synchronize

                synchronize()
            sys.stdout.flush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        result.write(tmp.read().decode(errors="replace"))

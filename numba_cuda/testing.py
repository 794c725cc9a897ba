"""Test helpers for code that uses ``numba.cuda`` (the names of Numba's and NVIDIA's ``numba.cuda.testing``).

Both peers' test suites import their helpers from here: ``CUDATestCase``
(Numba's ``numba.tests.support.TestCase``, so ``assertPreciseEqual`` & co.,
run serially like Numba's), ``ContextResettingTestCase``, the ``skip_*``
decorators, ``cc_X_or_above``, ``xfail_unless_cudasim``, ``ForeignArray``,
``SerialMixin``, ``ensure_supported_ccs_initialized`` and ``test_data_dir``.

Nothing here touches a GPU at import: the compute-capability decorators ask
the device when they decorate, and without a usable GPU they skip (Numba's
raise at import there).
"""

import contextlib
import io
import os
import platform
import shutil
import sys
import unittest
from pathlib import Path

from numba.core import config as _numba_config
from numba.tests.support import SerialMixin
from numba.tests.support import TestCase as _NumbaTestCase

import numba_cuda

__all__ = [
    "CUDATestCase", "ContextResettingTestCase", "ForeignArray", "SerialMixin",
    "captured_cuda_stdout", "cc_X_or_above", "cudadevrt_missing",
    "ensure_supported_ccs_initialized", "skip_if_cuda_includes_missing",
    "skip_if_cudadevrt_missing", "skip_if_curand_kernel_missing", "skip_if_external_memmgr",
    "skip_if_mvc_enabled", "skip_if_mvc_libraries_unavailable", "skip_if_no_gpu",
    "skip_if_nvjitlink_missing", "skip_on_arm", "skip_on_cudasim",
    "skip_on_nvjitlink_13_1_sm_120", "skip_on_standalone_numba_cuda", "skip_on_wsl2",
    "skip_under_cuda_memcheck", "skip_unless_cc_50", "skip_unless_cc_53", "skip_unless_cc_60",
    "skip_unless_cc_75", "skip_unless_cc_80", "skip_unless_cc_90", "skip_unless_conda_cudatoolkit",
    "skip_unless_cudasim", "skip_unless_gpu", "skip_with_cuda_python", "skip_with_nvdisasm",
    "skip_without_nvdisasm", "test_data_dir", "unittest", "xfail_unless_cudasim",
]


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


def __getattr__(name):
    if name == "test_data_dir":
        return _test_data_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _test_data_dir():
    """The ``data`` folder of the ``numba.cuda.tests`` suite being run.

    numba-cuda ships no test suite of its own under ``numba.cuda.tests``; the
    peers' suites (run by ``scripts/conformance``) keep their data files next
    to their tests, so this is the imported suite's ``data`` folder.
    """
    suite = sys.modules.get("numba.cuda.tests")
    if suite is None or not getattr(suite, "__file__", None):
        raise AttributeError(
            "numba.cuda.testing.test_data_dir is the data folder of the numba.cuda.tests "
            "suite being run, and no such suite is imported (numba-cuda ships none: run a "
            "peer suite through scripts/conformance)")
    return Path(suite.__file__).parent / "data"


# ---- test cases -------------------------------------------------------------

class CUDATestCase(SerialMixin, _NumbaTestCase):
    """For tests that use a CUDA device (or the simulator).

    Numba's ``TestCase`` (``assertPreciseEqual``, ``assertRefCount`` ...), run
    serially.  Low-occupancy and implicit-copy warnings are off during each
    test, as in Numba's suite; pending frees are flushed after it.
    """

    FLOAT16_RTOL = float(__import__("numpy").finfo("float16").eps)

    def setUp(self):
        # (also called unbound on tests that are no CUDATestCase, ``CUDATestCase.setUp(self)``
        # from a cache-test mixin, as NVIDIA's suite does: no super() chain to follow there)
        if isinstance(self, CUDATestCase):
            super().setUp()
        self._saved_warning_config = {
            name: getattr(_numba_config, name, None)
            for name in ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY")
        }
        for name in self._saved_warning_config:
            setattr(_numba_config, name, 0)

    def tearDown(self):
        for name, value in getattr(self, "_saved_warning_config", {}).items():
            setattr(_numba_config, name, value)
        if not _simulator():
            from numba_cuda.runtime import devices

            if devices.has_current_context():
                devices.current_context().deallocations.clear()
        if isinstance(self, CUDATestCase):
            super().tearDown()

    def skip_if_lto(self, reason):
        """Skip when kernels are linked with link-time optimisation by default.

        Never here: numba-cuda links with LTO only the kernels compiled with
        ``lto=True`` (Numba's linker may be LTO by default, hence this check).
        """

    def assertRaisesCudaError(self, *args, **kwargs):  # noqa: N802 - unittest style
        from numba_cuda.errors import CudaError

        return self.assertRaises(CudaError, *args, **kwargs)

    # FileCheck helpers of NVIDIA's CUDATestCase (need the ``filecheck`` package)
    def assertFileCheckMatches(self, ir_content, check_patterns,  # noqa: N802
                               check_prefixes=("CHECK",), **extra_filecheck_options):
        """Assert that ``ir_content`` matches the FileCheck ``check_patterns``."""
        try:
            from filecheck.finput import FInput
            from filecheck.matcher import Matcher
            from filecheck.options import Options
            from filecheck.parser import Parser, pattern_for_opts
        except ImportError:
            self.skipTest("FileCheck assertions need the 'filecheck' package (pip install filecheck)")
        opts = Options(match_filename="-", check_prefixes=list(check_prefixes),
                       **extra_filecheck_options)
        parser = Parser(opts, io.StringIO(check_patterns), *pattern_for_opts(opts))
        matcher = Matcher(opts, FInput(fname="-", content=ir_content), parser)
        matcher.stderr = io.StringIO()
        if matcher.run() != 0:
            self.fail(f"FileCheck failed:\n{matcher.stderr.getvalue()}")

    def _filecheck_dispatcher(self, contents, dispatcher, signature, prefixes, options):
        if isinstance(contents, str):
            if signature is not None:
                raise AssertionError("the kernel was compiled for one signature only")
            contents = [contents]
        elif signature is None:
            contents = list(contents.values())
        else:
            contents = [contents[signature]]
        if not contents:
            raise AssertionError("no output for the given signature")
        if dispatcher.__doc__ is None:
            raise AssertionError("the kernel needs a docstring holding the FileCheck checks "
                                 "(or use assertFileCheckMatches)")
        for content in contents:
            self.assertFileCheckMatches(content, dispatcher.__doc__, prefixes, **options)

    def assertFileCheckAsm(self, ir_producer, signature=None,  # noqa: N802
                           check_prefixes=("ASM",), **extra_filecheck_options):
        """The PTX of ``ir_producer`` (a dispatcher) matches the checks in its docstring."""
        self._filecheck_dispatcher(ir_producer.inspect_asm(), ir_producer, signature,
                                   check_prefixes, extra_filecheck_options)

    def assertFileCheckLLVM(self, ir_producer, signature=None,  # noqa: N802
                            check_prefixes=("LLVM",), **extra_filecheck_options):
        """The LLVM IR of ``ir_producer`` (a dispatcher) matches the checks in its docstring."""
        self._filecheck_dispatcher(ir_producer.inspect_llvm(), ir_producer, signature,
                                   check_prefixes, extra_filecheck_options)


class ContextResettingTestCase(CUDATestCase):
    """For tests that inspect or change a context's state: contexts are reset after each test."""

    def tearDown(self):
        super().tearDown()
        if not _simulator():
            from numba_cuda.runtime.api import close

            close()
        else:
            from numba_cuda.simulator import api as sim

            reset = getattr(sim, "close", None)
            if reset is not None:
                reset()


def ensure_supported_ccs_initialized():
    """Load the compiler's list of supported compute capabilities now (before any fork)."""
    if _simulator():
        return
    from numba_cuda.runtime.api import is_available

    if is_available():
        from numba_cuda.compiler.capability import supported_ccs

        supported_ccs()


# ---- skip decorators ----------------------------------------------------------

def skip_on_cudasim(reason):
    """Skip under the simulator."""
    return unittest.skipIf(_simulator(), reason)


def skip_unless_cudasim(reason):
    """Run only under the simulator."""
    return unittest.skipUnless(_simulator(), reason)


def xfail_unless_cudasim(fn):
    """Expected to fail except under the simulator."""
    return fn if _simulator() else unittest.expectedFailure(fn)


def skip_if_no_gpu(fn_or_reason=None):
    """Skip without a usable GPU (the simulator counts as none)."""
    reason = _gpu_reason()
    if callable(fn_or_reason):
        return unittest.skipIf(reason is not None, f"needs a GPU: {reason}")(fn_or_reason)
    return unittest.skipIf(reason is not None, f"{fn_or_reason or 'needs a GPU'}: {reason}")


skip_unless_gpu = skip_if_no_gpu

#: numba-cuda always runs with Numba installed (it is a dependency).
skip_on_standalone_numba_cuda = unittest.skipUnless(True, "requires base numba install")


def skip_unless_conda_cudatoolkit(reason):
    """Skip unless the CUDA toolkit in use comes from a conda environment."""
    return unittest.skipUnless(_conda_toolkit(), reason)


def _conda_toolkit():
    try:
        from numba_cuda.toolkit import get_toolkit

        return get_toolkit().components["nvvm"].source in ("conda", "CONDA_PREFIX")
    except Exception:  # noqa: BLE001 - discovery problems mean "no conda toolkit"
        return False


def skip_if_external_memmgr(reason):
    """Skip when an External Memory Management plugin is selected (NUMBA_CUDA_MEMORY_MANAGER)."""
    manager = os.environ.get("NUMBA_CUDA_MEMORY_MANAGER", "default").strip() or "default"
    return unittest.skipIf(manager != "default", reason)


def skip_under_cuda_memcheck(reason):
    """Skip when run under cuda-memcheck / compute-sanitizer (CUDA_MEMCHECK set)."""
    return unittest.skipIf(os.environ.get("CUDA_MEMCHECK") is not None, reason)


def _nvdisasm():
    path = shutil.which("nvdisasm")
    if path:
        return path
    try:
        from cuda import pathfinder

        return pathfinder.find_nvidia_binary_utility("nvdisasm")
    except Exception:  # noqa: BLE001 - pathfinder absent or too old: not found
        return None


def skip_without_nvdisasm(reason):
    return unittest.skipIf(_nvdisasm() is None, reason)


def skip_with_nvdisasm(reason):
    return unittest.skipIf(_nvdisasm() is not None, reason)


def skip_on_arm(reason):
    cpu = platform.processor() or platform.machine()
    return unittest.skipIf(cpu.startswith(("arm", "aarch")), reason)


def skip_on_wsl2(reason):
    release = platform.release().lower()
    return unittest.skipIf("wsl2" in release, reason)


def skip_if_mvc_enabled(reason):
    """Skip when CUDA Minor Version Compatibility is enabled (NUMBA_CUDA_ENABLE_MINOR_VERSION_COMPATIBILITY)."""
    return unittest.skipIf(bool(getattr(_numba_config, "CUDA_ENABLE_MINOR_VERSION_COMPATIBILITY", 0)),
                           reason)


def skip_if_mvc_libraries_unavailable(fn):
    """Skip unless cubinlinker and ptxcompiler (Numba's MVC libraries) are importable."""
    try:
        import cubinlinker  # noqa: F401
        import ptxcompiler  # noqa: F401
        available = True
    except ImportError:
        available = False
    return unittest.skipUnless(available, "Requires cubinlinker and ptxcompiler")(fn)


def skip_with_cuda_python(reason):
    """Skip tests of Numba's ctypes driver binding: numba-cuda always uses cuda-python."""
    return unittest.skipIf(True, reason)


def _component_found(name):
    try:
        from numba_cuda.toolkit import get_toolkit

        comp = get_toolkit().components.get(name)
        return comp is not None and comp.found
    except Exception:  # noqa: BLE001
        return False


def _include_file(name):
    try:
        from numba_cuda.toolkit import get_toolkit

        comp = get_toolkit().components["include"]
        return comp.found and os.path.isfile(os.path.join(comp.path, name))
    except Exception:  # noqa: BLE001
        return False


def skip_if_cuda_includes_missing(fn):
    return unittest.skipUnless(_component_found("include"),
                               "CUDA include dir not available on this system")(fn)


def skip_if_curand_kernel_missing(fn):
    return unittest.skipUnless(_include_file("curand_kernel.h"),
                               "curand_kernel.h not available on this system")(fn)


def skip_if_nvjitlink_missing(reason):
    return unittest.skipUnless(_component_found("nvjitlink"), reason)


def cudadevrt_missing():
    """Always False: numba-cuda's grid synchronisation does not link libcudadevrt (see lang/cg.py)."""
    return False


def skip_if_cudadevrt_missing(fn):
    return unittest.skipIf(cudadevrt_missing(), "cudadevrt missing")(fn)


def skip_on_nvjitlink_13_1_sm_120(reason):
    """Skip on nvJitLink 13.1 with a compute capability 12.0 device (link failures there)."""
    skip = False
    if not _simulator() and _gpu_reason() is None:
        try:
            from cuda.bindings import nvjitlink

            skip = tuple(nvjitlink.version())[:2] == (13, 1) and _device_cc() == (12, 0)
        except Exception:  # noqa: BLE001 - no nvJitLink: nothing to skip
            skip = False
    return unittest.skipIf(skip, reason)


def _device_cc():
    from numba_cuda.runtime.api import get_current_device

    return tuple(get_current_device().compute_capability)


def cc_X_or_above(major, minor):  # noqa: N802 - Numba's name
    """True when the current device's compute capability is at least major.minor.

    Always True under the simulator; False without a usable GPU.
    """
    if _simulator():
        return True
    if _gpu_reason() is not None:
        return False
    return _device_cc() >= (major, minor)


def _skip_unless_cc(major, minor):
    def decorator(fn):
        return unittest.skipUnless(cc_X_or_above(major, minor),
                                   f"requires cc >= {major}.{minor}")(fn)

    decorator.__name__ = f"skip_unless_cc_{major}{minor}"
    decorator.__doc__ = f"Skip unless the device's compute capability is {major}.{minor} or above."
    return decorator


skip_unless_cc_50 = _skip_unless_cc(5, 0)
skip_unless_cc_53 = _skip_unless_cc(5, 3)
skip_unless_cc_60 = _skip_unless_cc(6, 0)
skip_unless_cc_75 = _skip_unless_cc(7, 5)
skip_unless_cc_80 = _skip_unless_cc(8, 0)
skip_unless_cc_90 = _skip_unless_cc(9, 0)


# ---- other helpers --------------------------------------------------------------

class ForeignArray:
    """An array from "another library": only ``__cuda_array_interface__`` of a device array."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@contextlib.contextmanager
def captured_cuda_stdout():
    """Capture what kernels print (``print`` in a kernel), synchronising first so it is flushed.

    The device's printf writes to the process's file descriptor 1, so fd 1 is
    redirected to a temporary file for the block; read ``.getvalue()`` after it.
    """
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

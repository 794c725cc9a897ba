"""What the import contracts mean at run time: compiling needs no runtime; the compiler learns
the device's compute capability and the target's ``jit`` only from the dispatch layer."""

import os
import subprocess
import sys
import textwrap


def _run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=180)


def test_compiling_to_ptx_imports_no_runtime_module():
    proc = _run("""
        import sys
        from numba import cuda

        def add(a, b):
            a[0] = b[0] + 1

        ptx, _ = cuda.compile_ptx(add, "void(float32[:], float32[:])")
        assert ".entry" in ptx
        loaded = sorted(m for m in sys.modules if m.startswith(("numba_cuda.runtime", "numba_cuda.cudadrv")))
        assert not loaded, loaded
        print("OK")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"


def test_the_compiler_alone_knows_no_device_and_asks_for_the_dispatch_layer():
    proc = _run("""
        import sys
        from numba_cuda.compiler import api, capability

        assert "numba_cuda.dispatch" not in sys.modules
        assert capability.current_device_cc() is None  # no query installed: no device known
        try:
            api.compile_ptx(lambda a: None, "void(float32[:])")
        except RuntimeError as exc:
            assert "numba_cuda.dispatch" in str(exc), exc
        else:
            raise AssertionError("compiled without the target registered")

        import numba_cuda.dispatch
        from numba_cuda.dispatch import device_cc

        assert capability._device_cc_query is device_cc.current_device_cc
        ptx, _ = api.compile_ptx(lambda a: None, "void(float32[:])")
        assert ".entry" in ptx
        print("OK")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"


def test_public_compile_names_are_the_compilers_objects():
    from numba import cuda
    from numba_cuda.compiler import api as compiler_api
    from numba_cuda.dispatch import api as dispatch_api

    assert cuda.compile_ptx is compiler_api.compile_ptx
    assert cuda.compile is compiler_api.compile
    assert cuda.declare_device is compiler_api.declare_device
    assert cuda.jit is dispatch_api.jit
    assert cuda.compile_ptx_for_current_device is dispatch_api.compile_ptx_for_current_device

"""What the import contracts mean at run time: compiling needs no runtime; the compiler learns
the target's ``jit`` only from the dispatch layer, and a device's compute capability only as an
argument of its callers (nothing installs a default into it)."""

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
        try:
            api.compile_ptx(lambda a: None, "void(float32[:])")
        except RuntimeError as exc:
            assert "numba_cuda.dispatch" in str(exc), exc
        else:
            raise AssertionError("compiled without the target registered")

        import numba_cuda.dispatch  # noqa: F401

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


def test_the_default_cc_does_not_depend_on_what_was_imported():
    # The compiler's default cc was once a global hook that importing numba_cuda.dispatch
    # installed: the same call answered differently before and after that import.
    proc = _run("""
        import re
        import sys

        from numba_cuda.compiler import capability

        assert "numba_cuda.dispatch" not in sys.modules
        before = capability.resolve_cc(None), capability.default_ptx_cc()
        assert before[0] == capability.lowest_supported_cc()
        assert not hasattr(capability, "set_device_cc_query")

        from numba import cuda
        import numba_cuda.dispatch  # noqa: F401

        assert (capability.resolve_cc(None), capability.default_ptx_cc()) == before
        assert capability.resolve_cc((8, 6)) == (8, 6)
        assert capability.resolve_cc(None, lambda: (8, 0)) == (8, 0)  # a caller's default
        assert capability.resolve_cc(None, lambda: None) == before[0]  # ... that has none
        ptx, _ = cuda.compile_ptx(lambda a: None, "void(float32[:])")
        target = re.search(r"\\.target sm_(\\d+)", ptx).group(1)
        assert target == "%d%d" % before[1][:2], (target, before)
        print("OK")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"

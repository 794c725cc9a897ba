"""Third-party extensions in kernels: numba.cuda.extending and numba.core.extending(target="cuda")."""

import os
import subprocess
import sys
import textwrap

import pytest
from numba import cuda, float64, int32, njit
from numba.core.errors import NumbaError, TypingError

CCS = [(7, 5), (8, 0), (9, 0)]
HERE = os.path.dirname(os.path.abspath(__file__))


def test_numba_cuda_extending_is_this_module():
    import numba.cuda.extending as public

    import numba_cuda.extending as ours

    assert public is ours
    for name in ours.__all__:
        assert hasattr(public, name), name


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_new_type_methods_attributes_and_overload(ext, assemble, cc):
    Vec2, clamp, halve = ext.Vec2, ext.clamp, ext.halve

    def kernel(xs, ys, out):
        i = cuda.grid(1)
        if i < out.size:
            v = Vec2(xs[i], ys[i])
            w = Vec2(1.0, 2)
            out[i] = clamp(v.dot(w) + v.norm1 + v.x * v.y, -10.0, halve(20.0))

    ptx, _ = cuda.compile_ptx(kernel, (float64[::1], float64[::1], float64[::1]), cc=cc)
    assemble(ptx, cc)
    assert "abs.f64" in ptx  # norm1
    assert "min.f64" in ptx or "setp" in ptx  # clamp's comparisons


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_intrinsic_with_inline_ptx(ext, assemble, cc):
    add_seven = ext.add_seven

    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = add_seven(a[i])

    ptx, _ = cuda.compile_ptx(kernel, (int32[::1],), cc=cc)
    assemble(ptx, cc)
    assert "add.s32" in ptx and ", 7;" in ptx


def _compile_in_fresh_process(code):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    return proc


def test_device_function_using_the_extension():
    # In a fresh process, so the extension registers into a clean Numba.
    proc = _compile_in_fresh_process(f"""
        import importlib.util, sys
        from numba import cuda, float64
        spec = importlib.util.spec_from_file_location("vec2_extension", {os.path.join(HERE, "vec2_extension.py")!r})
        ext = importlib.util.module_from_spec(spec); sys.modules["vec2_extension"] = ext
        spec.loader.exec_module(ext)
        Vec2 = ext.Vec2

        @cuda.jit(device=True)
        def length1(x, y):
            return Vec2(x, y).norm1

        def kernel(out):
            out[0] = length1(out[0], -3.0)

        ptx, _ = cuda.compile_ptx(kernel, (float64[::1],), cc=(8, 0))
        assert "abs.f64" in ptx
        print("ok")
    """)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_device_function_call_after_cpu_njit():
    proc = _compile_in_fresh_process("""
        from numba import cuda, float64, njit
        njit(lambda x: x + 1)(1)

        @cuda.jit(device=True)
        def dev(x):
            return x * 2

        def kernel(out):
            out[0] = dev(out[0])

        cuda.compile_ptx(kernel, (float64[::1],), cc=(8, 0))
        print("ok")
    """)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_cuda_overloads_stay_on_the_cuda_target(ext):
    clamp = ext.clamp

    @njit
    def on_cpu(x):
        return clamp(x, 0.0, 1.0)

    # The overload was registered for target="cuda" only: the CPU target does not see it.
    with pytest.raises(NumbaError, match=r"(?s)clamp.*current target.*CPU"):
        on_cpu(0.5)


def test_cpu_only_overload_is_not_used_in_kernels():
    from numba.core.extending import overload

    def cpu_only(x):
        return x

    @overload(cpu_only, target="cpu")
    def _impl(x):
        return lambda x: x

    def kernel(a):
        a[0] = cpu_only(a[0])

    with pytest.raises(NumbaError, match=r"(?s)cpu_only.*current target.*CUDA"):
        cuda.compile_ptx(kernel, (int32[::1],), cc=(8, 0))


def test_overload_without_a_match_is_a_typing_error(ext):
    clamp = ext.clamp

    def kernel(a):
        a[0] = clamp(a[0], 0, 1)  # ints: the overload declines

    with pytest.raises(TypingError, match="clamp"):
        cuda.compile_ptx(kernel, (int32[::1],), cc=(8, 0))


def test_core_extending_target_cuda_before_numba_cuda_is_imported(assemble):
    # A third-party package written against numba.core.extending, imported before anything
    # touches numba.cuda; the kernels compiled afterwards must use its CUDA implementations.
    code = """
        from llvmlite import ir
        from numba.core import types
        from numba.core.extending import intrinsic, overload
        from numba.core.typing import signature
        import sys
        assert not any(m.startswith("numba_cuda.compiler") for m in sys.modules)

        def triple(x):
            return 3 * x

        @overload(triple, target="cuda")
        def _triple(x):
            if isinstance(x, types.Integer):
                return lambda x: x + x + x

        @intrinsic(target="cuda")
        def lane(typingctx):
            sig = signature(types.int32)
            def codegen(context, builder, sig_, args):
                fnty = ir.FunctionType(ir.IntType(32), [])
                return builder.call(ir.InlineAsm(fnty, "mov.u32 $0, %laneid;", "=r"), [])
            return sig, codegen

        from numba import cuda, int32

        def kernel(a):
            a[0] = triple(a[0]) + lane()

        ptx, _ = cuda.compile_ptx(kernel, (int32[::1],), cc=(8, 0))
        assert "%laneid" in ptx, ptx
        print("PTX-BEGIN")
        print(ptx)
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assemble(proc.stdout.split("PTX-BEGIN\n", 1)[1], (8, 0))


@pytest.mark.gpu
def test_extension_kernel_runs_on_the_gpu():
    code = f"""
        import importlib.util, sys
        import numpy as np
        from numba import cuda
        spec = importlib.util.spec_from_file_location("vec2_extension", {os.path.join(HERE, "vec2_extension.py")!r})
        ext = importlib.util.module_from_spec(spec); sys.modules["vec2_extension"] = ext
        spec.loader.exec_module(ext)
        Vec2, clamp, add_seven = ext.Vec2, ext.clamp, ext.add_seven

        @cuda.jit
        def kernel(xs, ys, out, ints):
            i = cuda.grid(1)
            if i < out.size:
                v = Vec2(xs[i], ys[i])
                out[i] = clamp(v.dot(Vec2(1.0, 2.0)) + v.norm1, -5.0, 5.0)
                ints[i] = add_seven(ints[i])

        xs = np.linspace(-2, 2, 64); ys = np.linspace(1, -1, 64)
        out = np.zeros(64); ints = np.arange(64, dtype=np.int32)
        kernel[2, 32](xs, ys, out, ints)
        expected = np.clip(xs + 2 * ys + np.abs(xs) + np.abs(ys), -5, 5)
        assert np.allclose(out, expected), (out, expected)
        assert (ints == np.arange(7, 71)).all()
        print("ok")
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]

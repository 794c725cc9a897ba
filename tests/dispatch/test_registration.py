"""Registration with Numba's target registry: lazy, for the existing ``cuda`` target class."""


def test_import_does_not_register_and_first_use_does(run_python):
    proc = run_python(
        """
        import sys
        from numba import cuda
        from numba.core.target_extension import CUDA, dispatcher_registry, jit_registry

        cuda.threadIdx  # kernel-language names do not need the compiler
        assert dispatcher_registry.get(CUDA) is None, "registered at import"
        assert "numba_cuda.compiler.api" not in sys.modules
        assert "numba_cuda.compiler.target" not in sys.modules
        assert "numba_cuda.dispatch" not in sys.modules

        cuda.jit  # first use of the compiler
        from numba_cuda.dispatch.dispatcher import CUDADispatcher
        from numba_cuda.dispatch.api import overload_jit
        assert dispatcher_registry[CUDA] is CUDADispatcher
        assert jit_registry[CUDA] is overload_jit
        assert "numba.cuda.compiler" not in sys.modules or \\
            sys.modules["numba.cuda.compiler"].__name__.startswith("numba_cuda")
        print("OK")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"


def test_overload_jit_compiles_device_functions(cuda):
    from numba.core.target_extension import CUDA, jit_registry

    cuda.jit  # noqa: B018 - the first use registers (run alone, nothing has yet)

    disp = jit_registry[CUDA](no_cpython_wrapper=True, nopython=True)(lambda x: x + 1)
    assert disp.device


def test_every_compile_runs_in_the_cuda_target(cuda):
    from numba.core import types
    from numba.core.target_extension import current_target
    from numba.extending import overload

    seen = []

    def probe():
        pass

    @overload(probe, target="generic")
    def _ol_probe():
        seen.append(current_target())
        return lambda: 1

    def k(a):
        a[0] = probe()

    cuda.compile_ptx(k, (types.int64[::1],), cc=(8, 0))
    assert seen and all(t == "cuda" for t in seen)

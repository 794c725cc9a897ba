"""Behaviour behind the names code written for Numba / NVIDIA's numba-cuda uses."""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest


def _run_in_simulator(code):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "script.py")  # a file, so kernels have source
        with open(script, "w") as f:
            f.write(textwrap.dedent(code))
        proc = subprocess.run([sys.executable, script], env=env, cwd=tmp,
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_cuda_vectorize_and_guvectorize_run_in_the_simulator():
    out = _run_in_simulator(
        """
        import numpy as np
        from numba import cuda
        from numba.cuda import vectorize, guvectorize

        @vectorize(["float32(float32, float32)"])
        def add(a, b):
            return a + b

        @guvectorize(["void(float64[:], float64[:])"], "(n)->()")
        def total(x, out):
            s = 0.0
            for v in x:
                s += v
            out[0] = s

        a = np.arange(4, dtype=np.float32)
        print(add(a, a).tolist() == [0.0, 2.0, 4.0, 6.0], type(add).__name__)
        print(total(np.arange(6.0).reshape(2, 3)).tolist() == [3.0, 12.0])
        """
    )
    assert out == ["True", "CUDAUFunc", "True"]


def test_cuda_vectorize_defaults_to_the_cuda_target_but_takes_another():
    from numba import cuda

    from numba_cuda.ufuncs.vectorize import CUDAUFunc

    @cuda.vectorize(["float64(float64)"], target="cpu")
    def twice(x):
        return 2 * x

    assert not isinstance(twice, CUDAUFunc)
    assert twice(np.array([1.0, 2.0])).tolist() == [2.0, 4.0]


def test_args_wrap_arg_in_the_simulator():
    out = _run_in_simulator(
        """
        import numpy as np
        from numba import cuda
        from numba.cuda.args import ArgHint, In, InOut, wrap_arg

        a = np.zeros(3)
        hint = cuda.Out(a)
        print(wrap_arg(hint) is hint, type(wrap_arg(a)) is InOut, type(wrap_arg(a, In)) is In)
        print(In is cuda.In, issubclass(cuda.Out, ArgHint))
        """
    )
    assert out == ["True"] * 5


def test_arg_hints_are_one_set_of_classes_for_both_targets_and_pickle_by_that_path():
    import pickle

    from numba_cuda.common import args
    from numba_cuda.simulator import api as sim

    assert (sim.In, sim.Out, sim.InOut) == (args.In, args.Out, args.InOut)
    a = np.arange(3.0)
    blob = pickle.dumps(sim.Out(a))
    # A fresh process with the GPU target, where no hint was touched before: the unpickled
    # hint is cuda.Out, and Numba types it as the array it wraps (what a launch asks).
    code = textwrap.dedent(f"""
        import pickle
        from numba.core.typing.typeof import Purpose, typeof
        hint = pickle.loads({blob!r})
        from numba import cuda
        print(type(hint) is cuda.Out, isinstance(hint, cuda.args.ArgHint), hint.value.tolist())
        print(typeof(hint, Purpose.argument))
        try:
            typeof(cuda.In(3), Purpose.argument)
        except TypeError as exc:
            print("TypeError:", "wraps an array argument" in str(exc))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, NUMBA_ENABLE_CUDASIM="0"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["True True [0.0, 1.0, 2.0]",
                                           "array(float64, 1d, C)", "TypeError: True"]


def test_nrt_runtime_entry_points_import_and_get_include_has_the_header():
    from numba.cuda.memory_management import nrt, rtsys

    assert rtsys is nrt.rtsys
    for name in ("memsys_enable_stats", "memsys_disable_stats", "memsys_stats_enabled",
                 "get_allocation_stats", "memsys_get_stats_alloc", "memsys_get_stats_free",
                 "memsys_get_stats_mi_alloc", "memsys_get_stats_mi_free", "initialize"):
        assert callable(getattr(rtsys, name))
    import os

    assert os.path.isfile(os.path.join(nrt.get_include(), "nrt.cuh"))


def test_simulator_nrt_counters_switch_and_stay_zero():
    from numba_cuda.memory_management.nrt import SimulatorRuntime

    rtsys = SimulatorRuntime()
    rtsys.memsys_disable_stats()
    with pytest.raises(RuntimeError, match="NRT stats are disabled."):
        rtsys.get_allocation_stats()
    rtsys.memsys_enable_stats()
    assert rtsys.memsys_stats_enabled()
    assert tuple(rtsys.get_allocation_stats()) == (0, 0, 0, 0)


@pytest.mark.parametrize("simulator", [False, True])
def test_devicearray_layout_helpers(simulator):
    code = """
        import numpy as np
        from numba import cuda
        from numba.cuda.cudadrv import devicearray as da

        c = cuda.device_array((4, 5))
        f = cuda.device_array((4, 5), order="F")
        b = np.broadcast_to(np.arange(3.0), (4, 3))
        print(da.is_contiguous(c), da.is_contiguous(f), da.is_contiguous(c[:, ::2]))
        print(da.is_contiguous(b), da.array_core(b).shape == (3,))
        print(da.array_core(f).flags["C_CONTIGUOUS"] == da.is_contiguous(f))
        print(da.errmsg_contiguous_buffer.startswith("Array contains non-contiguous buffer"))
        """
    if simulator:
        out = _run_in_simulator(code)
    else:
        # device arrays need a context; numpy arrays show the same layout logic
        from numba_cuda.common.array_layout import array_core, is_contiguous

        c, f = np.zeros((4, 5)), np.zeros((4, 5), order="F")
        b = np.broadcast_to(np.arange(3.0), (4, 3))
        out = [str(v) for v in (
            is_contiguous(c), is_contiguous(f), is_contiguous(c[:, ::2]),
            is_contiguous(b), array_core(b).shape == (3,),
            array_core(f).flags["C_CONTIGUOUS"] == is_contiguous(f), True)]
    assert out == ["True", "False", "False", "True", "True", "True", "True"]


def triple(x):
    """A device-only function typed and lowered through cudadecl/cudaimpl below (a module
    global: Numba's registry keys globals by their module attribute)."""
    raise NotImplementedError("device only")


def test_cudadecl_and_cudaimpl_extend_kernels_even_after_the_target_was_used():
    from numba import cuda, types
    from numba.core.typing.templates import ConcreteTemplate, signature

    from numba.cuda.cudadecl import registry
    from numba.cuda.cudaimpl import lower

    def first(a):
        a[0] = 1

    cuda.compile_ptx(first, (types.int32[:],))  # contexts built before the registration

    @registry.register_global(triple)
    class TripleTemplate(ConcreteTemplate):
        cases = [signature(types.int32, types.int32)]

    @lower(triple, types.int32)
    def lower_triple(context, builder, sig, args):
        return builder.mul(args[0], context.get_constant(types.int32, 3))

    def kernel(a):
        a[0] = triple(a[0])

    ptx, _ = cuda.compile_ptx(kernel, (types.int32[:],))
    assert "mul.lo.s32" in ptx


def test_the_extension_registries_are_not_the_cpu_targets():
    from numba.core.typing.templates import builtin_registry

    from numba.cuda.cudadecl import registry

    assert registry is not builtin_registry


def test_have_nvjitlink_answers_a_bool():
    from numba.cuda.cudadrv import driver

    from numba_cuda.errors import ToolkitError
    from numba_cuda.linking.nvjitlink import nvjitlink_version

    try:
        nvjitlink_version()
        expected = True
    except ToolkitError:
        expected = False
    assert driver._have_nvjitlink() is expected

"""launch_bounds= (CUDA C++'s __launch_bounds__, NVIDIA's numba-cuda option) and forceinline= on the
compile functions: the PTX directives at every cc, refusals, and launches over the bound
refused on both targets."""

import numpy as np
import pytest
from numba import cuda, float32

from numba_cuda.errors import LaunchConfigError, UnsupportedCompileOption
from tests.support.ptx_helpers import assemble


def k(a):
    a[0] = 1


def _ccs():
    from numba_cuda.compiler import capability

    supported = set(capability.supported_ccs())
    return [cc for cc in ((5, 0), (7, 5), (8, 0), (9, 0), (10, 0), (12, 0)) if cc in supported]


def _directives(ptx):
    return [line.strip() for line in ptx.splitlines()
            if line.strip().startswith((".maxntid", ".minnctapersm", ".maxclusterrank"))]


@pytest.mark.parametrize("bounds, expected", [
    (128, [".maxntid 128"]),
    ((256,), [".maxntid 256"]),
    ((256, 2), [".maxntid 256", ".minnctapersm 2"]),
    ((512, 1, 4), [".maxntid 512", ".minnctapersm 1", ".maxclusterrank 4"]),
])
def test_directives_in_the_ptx(bounds, expected):
    for cc in _ccs():
        ptx, _ = cuda.compile_ptx(k, (float32[:],), cc=cc, launch_bounds=bounds)
        got = [d.split(",")[0] for d in _directives(ptx)]  # ".maxntid 128, 1, 1" below sm_100
        want = expected if cc >= (9, 0) else [d for d in expected if "cluster" not in d]
        assert got == want, (cc, got)  # clusters exist from 9.0: the bound is moot below
        assemble(ptx, cc)


def test_jit_option_reaches_the_kernel_and_its_options():
    kernel = cuda.jit("void(float32[:])", launch_bounds=(64, 3))(k)
    ptx = kernel.inspect_asm(kernel.signatures[0], cc=(8, 0))
    assert [d.split(",")[0] for d in _directives(ptx)] == [".maxntid 64", ".minnctapersm 3"]
    assert kernel._user_options()["launch_bounds"] == (64, 3)
    plain = cuda.jit("void(float32[:])")(k)
    assert _directives(plain.inspect_asm(plain.signatures[0], cc=(8, 0))) == []


@pytest.mark.parametrize("bad", [0, -1, (), (1, 2, 3, 4), (128, 0), True, "128", 2.5, (128, 2.0)])
def test_bad_bounds_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="launch_bounds must be an int"):
        cuda.compile_ptx(k, (float32[:],), cc=(7, 5), launch_bounds=bad)
    with pytest.raises(ValueError, match="launch_bounds must be an int"):
        cuda.jit(launch_bounds=bad)(k)


def test_device_functions_take_no_launch_bounds():
    with pytest.raises(UnsupportedCompileOption, match="launch_bounds applies to kernels"):
        cuda.compile_ptx(lambda x: x, (float32,), device=True, cc=(7, 5), launch_bounds=32)


def test_forceinline_on_the_compile_functions(monkeypatch):
    from numba_cuda.compiler import api

    seen = []
    original = api.compile_to_library

    def recording(*args, **kwargs):
        library, resty = original(*args, **kwargs)
        seen.append("alwaysinline" in library.get_llvm_str())
        return library, resty

    monkeypatch.setattr(api, "compile_to_library", recording)

    def helper(x):
        return x + 1

    cuda.compile(helper, (float32,), device=True, cc=(7, 5), forceinline=True, output="ltoir")
    cuda.compile_all(helper, (float32,), device=True, cc=(7, 5), forceinline=True)
    ptx, _ = cuda.compile_ptx(helper, (float32,), device=True, cc=(7, 5))
    assemble(ptx, (7, 5))
    assert seen == [True, True, False]
    # PTX is linked without inlining: forcing it there is refused, as in NVIDIA's numba-cuda
    for compile_ptx in (cuda.compile_ptx, lambda *a, **k: cuda.compile(*a, **k, output="ptx")):
        with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
            compile_ptx(helper, (float32,), device=True, cc=(7, 5), forceinline=True)


def test_launches_over_the_bound_are_refused_in_the_simulator():
    from numba_cuda.simulator import api as sim

    kernel = sim.jit(launch_bounds=64)(k)
    a = np.zeros(1, np.float32)
    kernel[1, 64](a)
    assert a[0] == 1
    with pytest.raises(LaunchConfigError, match="over the kernel's launch_bounds of 64"):
        kernel[1, 65]
    with pytest.raises(ValueError, match="launch_bounds must be an int"):
        sim.jit(launch_bounds=0)(k)


def test_launches_over_the_bound_are_refused_on_the_gpu_target(monkeypatch):
    from tests.support.fake_driver import installed_for_launches

    gen = installed_for_launches(monkeypatch)
    fake = next(gen)
    try:
        kernel = cuda.jit(launch_bounds=(32,))(k)
        d = cuda.to_device(np.zeros(1, np.float32))
        kernel[1, 32](d)
        assert fake.launches[-1]["block"] == (32, 1, 1)
        with pytest.raises(LaunchConfigError, match=r"blockdim \(33, 1, 1\) has 33 threads .*launch_bounds of 32"):
            kernel[1, 33](d)
    finally:
        gen.close()


def test_too_many_bounds_are_counted_as_nvidias_message_does():
    with pytest.raises(ValueError, match=r"^Got 4 launch bounds: launch_bounds must be an int"):
        cuda.jit(launch_bounds=(128, 2, 4, 8))(k)

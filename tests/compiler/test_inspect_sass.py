"""``inspect_sass()`` / ``inspect_sass_cfg()``: the kernel linked to a cubin by nvJitLink (no GPU)
and disassembled by the toolkit's nvdisasm; device functions refused as Numba refuses them; a
missing nvdisasm is a ToolkitError (a RuntimeError, as Numba's) naming it and the fix."""

import re

import pytest


@pytest.fixture(scope="module")
def nvdisasm():
    from numba_cuda import toolkit

    path = toolkit.nvdisasm_path()
    if path is None:
        pytest.skip("nvdisasm is not installed (optional toolkit component: pip install "
                    "nvidia-cuda-nvdisasm for CUDA 13, conda cuda-nvdisasm for CUDA 12)")
    return path


SIG = "void(float32[::1], float32[::1])"


def _kernel(cuda):
    @cuda.jit([SIG, "void(float64[::1], float64[::1])"])
    def scale(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i] * 3.0

    return scale


def test_sass_per_signature_and_for_one(cuda, nvdisasm):
    scale = _kernel(cuda)
    every = scale.inspect_sass()
    assert set(every) == set(scale.overloads)
    one = scale.inspect_sass(signature=SIG)
    assert isinstance(one, str)
    assert re.search(r"\.target\s+sm_75\b", one)  # no GPU: the lowest cc libNVVM accepts
    assert "FMUL" in one and "EXIT" in one
    assert "scale" in one  # the kernel's (mangled) name
    doubles = next(v for k, v in every.items() if "float64" in str(k))
    assert "DMUL" in doubles


def test_sass_for_a_chosen_cc(cuda, nvdisasm):
    scale = _kernel(cuda)
    for cc in ((8, 0), (9, 0)):
        sass = scale.inspect_sass(signature=SIG, cc=cc)
        assert re.search(rf"\.target\s+sm_{cc[0]}{cc[1]}\b", sass), cc


def test_lazily_compiled_kernel_and_lineinfo(cuda, nvdisasm):
    from numba import float32

    @cuda.jit(lineinfo=True)
    def add_one(a):
        a[0] += 1

    add_one.compile((float32[::1],))
    (sass,) = add_one.inspect_sass().values()
    assert "test_inspect_sass.py" in sass  # -gi: source line information


def test_cfg_is_a_dot_graph(cuda, nvdisasm):
    cfg = _kernel(cuda).inspect_sass_cfg(signature=SIG)
    assert cfg.lstrip().startswith("digraph")
    assert "->" in cfg or "label" in cfg


def test_device_functions_are_refused_like_numba(cuda):
    @cuda.jit("float32(float32)", device=True)
    def twice(x):
        return 2 * x

    for method in (twice.inspect_sass, twice.inspect_sass_cfg):
        with pytest.raises(RuntimeError, match="device function"):
            method()


def test_missing_nvdisasm_names_the_component_and_fix(cuda, monkeypatch):
    from numba_cuda import toolkit
    from numba_cuda.errors import ToolkitError

    monkeypatch.setattr(toolkit, "nvdisasm_path", lambda: None)
    with pytest.raises(ToolkitError, match="nvdisasm") as info:
        _kernel(cuda).inspect_sass(signature=SIG)
    assert isinstance(info.value, RuntimeError)
    assert info.value.component == "nvdisasm"
    assert "inspect_sass()" in str(info.value)


def test_simulator_says_it_cannot():
    from numba_cuda.simulator import api as sim
    from numba_cuda.simulator.dispatcher import NotAvailableInSimulator

    @sim.jit
    def k(a):
        a[0] = 1

    for method in (k.inspect_sass, k.inspect_sass_cfg):
        with pytest.raises(NotAvailableInSimulator):
            method()

"""``cuda.jit(lto=True)``: the kernel is LTO-IR, linked with its ``link=`` files by nvJitLink with
link-time optimisation when loaded -- checked offline (no GPU) for sm_75/80/90 through the
runtime's own link step and load path (fake driver), plus a GPU-marked launch."""

import contextlib
import json
import os
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from numba import cuda, int32

from numba_cuda.errors import LinkerError
from numba_cuda.linking import LTOIR, CUSource, Linker, compile_source, cubin_arch
from numba_cuda.runtime import launch

ARCHES = [(7, 5), (8, 0), (9, 0)]

ADDONE_CU = r'''
extern "C" __device__ int addone(int* result, int x)
{
    *result = x + 1;
    return 0;
}
'''

TIMES3_CU = r'''
extern "C" __device__ int times3(int* result, int x)
{
    *result = 3 * x;
    return 0;
}
'''


@pytest.fixture
def addone_cu(tmp_path):
    path = tmp_path / "addone.cu"
    path.write_text(ADDONE_CU)
    return str(path)


def _kernel(addone_link, **options):
    addone = cuda.declare_device("addone", int32(int32))

    @cuda.jit(link=[addone_link], **options)
    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = addone(a[i])

    return kernel


def _sm(cc):
    return f"sm_{cc[0]}{cc[1]}"


@pytest.mark.parametrize("cc", ARCHES, ids=_sm)
def test_lto_kernel_links_a_cu_file_and_inlines_it(addone_cu, cc):
    compiled = _kernel(addone_cu, lto=True).compile((int32[::1],))
    assert compiled.options.lto
    image = compiled.image(cc)
    assert image.lto and image.ptx is None
    assert isinstance(image.ltoir, bytes) and len(image.ltoir) > 100
    assert image.link_files == (addone_cu,)

    cubin = launch.link_lto_cubin(image.ltoir, _sm(cc), image.link_files, name=image.entry_name)
    assert cubin_arch(cubin) == cc
    assert image.entry_name.encode() in cubin
    assert b"addone" not in cubin  # inlined into the kernel, nothing left to call

    # without LTO the same kernel links addone as a separate function
    plain = launch.link_cubin(compiled.get_ptx(cc).encode(), _sm(cc), image.link_files,
                              name=image.entry_name)
    assert b"addone" in plain

    # the optimised PTX of the whole link: the kernel, no call, the +1 folded in
    linker = Linker(cc, lto=True)
    linker.add(LTOIR(image.ltoir, name="kernel.ltoir"))
    linker.add_file(addone_cu)
    ptx = linker.link_ptx()
    assert f".entry {image.entry_name}(" in ptx
    assert "call" not in ptx and "addone" not in ptx


@pytest.mark.parametrize("cc", ARCHES, ids=_sm)
def test_lto_kernel_links_an_ltoir_file(tmp_path, cc):
    ltoir = compile_source(CUSource(TIMES3_CU, name="times3.cu"), cc, output="ltoir")
    path = tmp_path / "times3.ltoir"
    path.write_bytes(ltoir.data)
    times3 = cuda.declare_device("times3", int32(int32), link=str(path))

    @cuda.jit(lto=True)
    def kernel(a):
        a[0] = times3(a[0])

    image = kernel.compile((int32[::1],)).image(cc)
    assert image.link_files == (str(path),)
    cubin = launch.link_lto_cubin(image.ltoir, _sm(cc), image.link_files, name=image.entry_name)
    assert cubin_arch(cubin) == cc
    assert b"times3" not in cubin


def test_ltoir_of_an_older_cc_links_for_a_newer_device(addone_cu):
    image = _kernel(addone_cu, lto=True).compile((int32[::1],)).image((7, 5))
    cubin = launch.link_lto_cubin(image.ltoir, "sm_90", image.link_files, name=image.entry_name)
    assert cubin_arch(cubin) == (9, 0)


def test_lto_arch_is_the_device_arch_and_refuses_newer_code():
    device = SimpleNamespace(compute_capability=(8, 6), id=0, name="Fake")
    assert launch.lto_arch((8, 0), device) == "sm_86"
    with pytest.raises(LinkerError, match=r"compiled for compute capability 9\.0, newer than device 0"):
        launch.lto_arch((9, 0), device)


def test_inspecting_an_lto_kernel(addone_cu):
    kernel = _kernel(addone_cu, lto=True)
    compiled = kernel.compile((int32[::1],))
    ptx = compiled.get_ptx((8, 0))  # before link-time optimisation: addone is still called
    assert re.search(r"call\.uni[^;]*addone|addone", ptx)
    assert kernel.inspect_asm((int32[::1],), cc=(8, 0)) == ptx
    assert compiled.get_ltoir((8, 0)) == compiled.image((8, 0)).ltoir


def test_lto_with_debug_keeps_the_error_record(addone_cu):
    compiled = _kernel(addone_cu, lto=True, debug=True, opt=False).compile((int32[::1],))
    image = compiled.image((8, 0))
    assert image.lto and image.error_global
    linker = Linker((8, 0), lto=True)
    linker.add(LTOIR(image.ltoir))
    linker.add_file(addone_cu)
    ptx = linker.link_ptx()
    assert re.search(rf"\.visible \.global .*{re.escape(image.error_global)}\[28\]", ptx)


# ---- the runtime's load path, with a fake driver (real nvJitLink link) ------------------------
class _LoadDriver:
    def __init__(self, cuda_major):
        from cuda.bindings import driver

        self.ok = driver.CUresult.CUDA_SUCCESS
        self.CUfunction_attribute = driver.CUfunction_attribute
        self.version = cuda_major * 1000
        self.loaded = []
        self.globals = []

    def cuDriverGetVersion(self):
        return (self.ok, self.version)

    def cuModuleLoadData(self, image):
        self.loaded.append(image)
        return (self.ok, "MODULE")

    def cuModuleGetFunction(self, module, name):
        return (self.ok, ("FUNCTION", name))

    def cuFuncGetAttribute(self, which, function):
        return (self.ok, 1024 if "MAX_THREADS" in which.name else 0)

    def cuModuleGetGlobal(self, module, name):
        self.globals.append(name)
        return (self.ok, 0xD000, 28)


def _fake_load(monkeypatch, image, cuda_major, cc=(8, 0)):
    from numba_cuda.runtime import cudriver

    fake = _LoadDriver(cuda_major)
    monkeypatch.setattr(cudriver, "driver", lambda: fake)
    device = SimpleNamespace(compute_capability=cc, id=0, name="Fake GPU")
    context = SimpleNamespace(device=device, active=contextlib.nullcontext)
    return launch.LoadedKernel(image, context), fake


def test_load_path_links_lto_kernels_with_nvjitlink(monkeypatch, addone_cu):
    from numba_cuda.linking import nvjitlink_version

    major = nvjitlink_version()[0]
    image = _kernel(addone_cu, lto=True, debug=True, opt=False).compile((int32[::1],)).image((8, 0))
    loaded, fake = _fake_load(monkeypatch, image, major, cc=(8, 6))
    (cubin,) = fake.loaded
    assert cubin_arch(cubin) == (8, 6)  # linked for the device (debug: addone named in DWARF)
    assert loaded.function == ("FUNCTION", image.entry_name.encode())
    assert fake.globals == [image.error_global.encode()]  # the debug report is wired up
    assert loaded.error_record is not None and loaded.exceptions is image.exceptions


def test_load_path_refuses_an_nvjitlink_newer_than_the_driver(monkeypatch, addone_cu):
    from numba_cuda.linking import nvjitlink_version

    major, minor = nvjitlink_version()
    image = _kernel(addone_cu, lto=True).compile((int32[::1],)).image((8, 0))
    with pytest.raises(LinkerError, match=rf"nvJitLink found \(CUDA {major}\.{minor}\) is newer "
                                          rf"than the driver \(CUDA {major - 1}\.0\)"):
        _fake_load(monkeypatch, image, major - 1)


# ---- lto not given: LTO exactly when a link input is LTO-IR ------------------------------------
# (cuda.cooperative's and nvmath-python's device APIs link LTO-IR files without passing lto=,
# which the reference accepts: its lto defaults to "when nvJitLink is there")
@pytest.fixture
def addone_ltoir(tmp_path):
    path = tmp_path / "addone.ltoir"
    path.write_bytes(compile_source(ADDONE_CU, (8, 0), output="ltoir", name="addone.cu").data)
    return str(path)


def test_a_kernel_linking_ltoir_uses_lto_when_lto_is_not_given(addone_ltoir, addone_cu):
    kernel = _kernel(addone_ltoir).compile((int32[::1],))
    assert kernel.lto is True
    image = kernel.image((8, 0))
    assert image.lto and image.ptx is None and image.ltoir
    # a kernel linking no LTO-IR keeps the PTX path, and lto=False is kept as given
    assert _kernel(addone_cu).compile((int32[::1],)).lto is False
    assert _kernel(addone_ltoir, lto=False).compile((int32[::1],)).lto is False


def test_ltoir_linked_without_lto_given_loads_through_nvjitlink(monkeypatch, addone_ltoir):
    from numba_cuda.linking import nvjitlink_version

    image = _kernel(addone_ltoir).compile((int32[::1],)).image((8, 0))
    _loaded, fake = _fake_load(monkeypatch, image, nvjitlink_version()[0], cc=(8, 6))
    (cubin,) = fake.loaded
    assert cubin_arch(cubin) == (8, 6)


def test_ltoir_with_lto_false_is_refused_naming_the_fix(monkeypatch, addone_ltoir):
    from numba_cuda.linking import nvjitlink_version

    image = _kernel(addone_ltoir, lto=False).compile((int32[::1],)).image((8, 0))
    with pytest.raises(LinkerError, match=r"can only be linked with lto=True; pass lto=True "
                                          r"\(or leave lto unset"):
        _fake_load(monkeypatch, image, nvjitlink_version()[0])


def test_ltoir_an_extension_links_while_lowering_makes_the_kernel_lto(addone_ltoir):
    """nvmath-python's pattern: a lowering adds ``LTOIR`` code to the library being compiled."""
    from numba import types
    from numba.cuda.extending import intrinsic

    with open(addone_ltoir, "rb") as f:
        code = LTOIR(f.read(), name="addone.ltoir")
    addone = cuda.declare_device("addone", int32(int32))

    @intrinsic
    def link_addone(typingctx):
        def codegen(context, builder, sig, args):
            context.active_code_library.add_linking_file(code)
            return context.get_dummy_value()
        return types.none(), codegen

    @cuda.jit
    def kernel(a):
        link_addone()
        a[0] = addone(a[0])

    compiled = kernel.compile((int32[::1],))
    assert compiled.lto is True
    assert code in compiled.link_files
    assert compiled.image((8, 0)).ltoir


# ---- nvJitLink missing ------------------------------------------------------------------------
def test_missing_nvjitlink_is_a_toolkit_error_naming_it(tmp_path):
    path = tmp_path / "addone.cu"
    path.write_text(ADDONE_CU)
    code = f"""
        import os, warnings
        warnings.simplefilter("ignore")
        from numba import cuda, int32
        addone = cuda.declare_device("addone", int32(int32))

        @cuda.jit(link=[{str(path)!r}], lto=True)
        def kernel(a):
            a[0] = addone(a[0])

        image = kernel.compile((int32[::1],)).image((8, 0))   # needs only NVVM
        os.environ["NUMBA_CUDA_DISABLE_SOURCES"] = "all"
        from numba_cuda import toolkit
        toolkit.get_toolkit(refresh=True)
        from numba_cuda.errors import ToolkitError
        from numba_cuda.runtime import launch
        print("LINKER", launch._linker_version())
        try:
            launch.link_lto_cubin(image.ltoir, "sm_80", image.link_files)
        except ToolkitError as exc:
            print("COMPONENT", exc.component)
            print(exc)
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "LINKER None" in proc.stdout
    assert "COMPONENT nvjitlink" in proc.stdout
    assert "lto=True (link-time optimisation) needs nvJitLink" in proc.stdout
    assert "Fix" in proc.stdout


# ---- cache ------------------------------------------------------------------------------------
CACHED_MODULE = '''
from numba import cuda, int32

addone = cuda.declare_device("addone", int32(int32))


@cuda.jit(link=[{link!r}], lto=True, cache=True)
def kernel(a):
    a[0] = addone(a[0])
'''

CACHE_SCRIPT = '''
import hashlib, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("cached_lto_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from numba import int32
compiled = module.kernel.compile((int32[::1],))
image = compiled.image()
print(json.dumps({"kind": type(compiled).__name__, "lto": image.lto, "ptx": image.ptx,
                  "ltoir": hashlib.sha256(image.ltoir).hexdigest()}))
'''


def test_cached_lto_kernel_keeps_its_ltoir(tmp_path, addone_cu):
    path = tmp_path / "cached_lto_module.py"
    path.write_text(CACHED_MODULE.format(link=addone_cu))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", CACHE_SCRIPT, str(path)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert (first["kind"], second["kind"]) == ("LaunchableKernel", "CachedKernel")
    assert second["lto"] and second["ptx"] is None
    assert second["ltoir"] == first["ltoir"]


# ---- GPU ----------------------------------------------------------------------------------------
@pytest.mark.gpu
def test_lto_kernel_runs(addone_cu):
    kernel = _kernel(addone_cu, lto=True)
    a = cuda.to_device(np.arange(100, dtype=np.int32))
    kernel[4, 32](a)
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(100) + 1)


@pytest.mark.gpu
def test_lto_debug_kernel_reports_exceptions(addone_cu):
    addone = cuda.declare_device("addone", int32(int32))

    @cuda.jit(link=[addone_cu], lto=True, debug=True, opt=False)
    def kernel(a):
        i = cuda.grid(1)
        a[i] = addone(a[i])  # one block of 32 threads over 16 elements

    a = cuda.to_device(np.zeros(16, dtype=np.int32))
    with pytest.raises(IndexError, match=r"in kernel 'kernel' at thread \(\d+, 0, 0\) of block "
                                         r"\(0, 0, 0\)"):
        kernel[1, 32](a)


@pytest.mark.parametrize("options", [dict(debug=True, opt=False), dict(lineinfo=True)],
                         ids=["debug", "lineinfo"])
def test_debug_info_module_flags_link_with_nvrtc_ltoir(addone_cu, options):
    # NVRTC's LTO-IR marks "Debug Info Version" with the Error merge behaviour; ours must too,
    # or nvJitLink refuses the link ("IDs have conflicting behaviors").
    compiled = _kernel(addone_cu, lto=True, **options).compile((int32[::1],))
    assert '!{ i32 1, !"Debug Info Version", i32 3 }' in compiled.inspect_llvm()
    image = compiled.image((8, 0))
    cubin = launch.link_lto_cubin(image.ltoir, "sm_80", image.link_files,
                                  debug=bool(options.get("debug")),
                                  lineinfo=bool(options.get("lineinfo")), name=image.entry_name)
    assert cubin_arch(cubin) == (8, 0)

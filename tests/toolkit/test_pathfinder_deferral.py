"""cuda.bindings.nvvm is imported without cuda-pathfinder (``toolkit.nvvm_bindings``): the
bindings' NVVM layer imports its searcher but finds every function of the libNVVM that
``load_library`` loaded with RTLD_GLOBAL without calling it.  Each case runs in a fresh
process, since what matters is what a process imports."""

import ctypes
import json
import os
import subprocess
import sys

import pytest

from numba_cuda import toolkit
from numba_cuda.toolkit import nvvm_bindings


@pytest.fixture(scope="module")
def searcher_needed():
    """True when the bindings' NVVM layer looks up a function this libNVVM does not export
    (the newer cuda-bindings 12.9 releases ask for nvvmLLVMVersion, which CUDA 12's libNVVM
    lacks): it then calls its searcher at the first call, which the stand-in answers."""
    path = toolkit.load_library("nvvm")
    import cuda.bindings._internal.nvvm as layer

    names = [key[2:] for key in layer._inspect_function_pointers()]  # "__nvvmVersion" ...
    assert "nvvmCompileProgram" in names, names
    lib = ctypes.CDLL(path)
    return not all(hasattr(lib, name) for name in names)

_COMPILE = """
import json, sys
from numba import cuda, float32, void

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

ptx, _ = cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(7, 5))
out = {"kernel": ".entry" in ptx, "pathfinder": "cuda.pathfinder" in sys.modules}
"""


def _run(code, env):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_first_compile_does_not_import_pathfinder(subprocess_env, searcher_needed):
    out = _run(_COMPILE + """
from numba_cuda.toolkit import nvvm_bindings
out["answered"] = nvvm_bindings.answered
import cuda.pathfinder as pf
out["real_file"] = pf.__file__
out["real"] = not hasattr(pf, "_numba_cuda_stand_in") and sys.modules["cuda.pathfinder"] is pf
out["finds"] = callable(pf.find_nvidia_header_directory)
import cuda
out["package_attribute"] = getattr(cuda, "pathfinder", None) is pf
print(json.dumps(out))
""", subprocess_env)
    assert out["kernel"]
    assert out["pathfinder"] is False
    # the bindings asked the searcher (for what they did not find) exactly when expected
    assert out["answered"] == (["nvvm"] if searcher_needed else [])
    # imported afterwards, the real package, also as the attribute of the cuda package
    assert out["real"] and out["real_file"].endswith("__init__.py") and out["finds"]
    assert out["package_attribute"]


def test_the_bindings_searcher_answers_with_the_loaded_library(subprocess_env):
    """The name the NVVM layer bound answers with the handle of the libNVVM load_library
    loaded, without importing cuda-pathfinder; any other field of the answer is
    cuda-pathfinder's own (imported then), for the same library."""
    out = _run(_COMPILE + """
import ctypes
import cuda.bindings._internal.nvvm as layer
from numba_cuda import toolkit
from numba_cuda.toolkit import loading
found = layer.load_nvidia_dynamic_lib("nvvm")
out["handle"] = found._handle_uint
out["ours"] = loading._loaded["nvvm"][1]._handle
out["abs_path"] = found.abs_path
out["chosen"] = toolkit.get_toolkit().components["nvvm"].path
out["before"] = "cuda.pathfinder" in sys.modules
out["found_via"] = found.found_via            # not ours: cuda-pathfinder answers it
out["after"] = "cuda.pathfinder" in sys.modules
real = sys.modules["cuda.pathfinder"].load_nvidia_dynamic_lib("nvvm")
out["real_path"] = real.abs_path
out["real_handle"] = real._handle_uint
print(json.dumps(out))
""", subprocess_env)
    assert out["handle"] == out["ours"] and out["handle"]
    assert out["abs_path"] == out["chosen"]
    assert out["before"] is False and out["after"] is True
    assert isinstance(out["found_via"], str)
    # cuda-pathfinder itself finds the very library (already loaded) behind the same handle
    assert os.path.realpath(out["real_path"]) == os.path.realpath(out["chosen"])
    assert out["real_handle"] == out["handle"]


def test_a_copy_loaded_without_rtld_global_is_looked_up_through_pathfinder(subprocess_env,
                                                                           tmp_path):
    """Another package loaded its own copy of libNVVM privately (RTLD_LOCAL): numba-cuda adopts
    it, RTLD_DEFAULT cannot see its functions, and the bindings must search -- through the real
    cuda-pathfinder, imported at that moment."""
    out = _run(f"""
import ctypes, os, shutil, warnings
warnings.simplefilter("ignore")
from numba_cuda import toolkit
chosen = toolkit.get_toolkit().components["nvvm"].path
copy = os.path.join({str(tmp_path)!r}, os.path.basename(chosen))
shutil.copyfile(chosen, copy)
ctypes.CDLL(copy, mode=os.RTLD_LOCAL)
""" + _COMPILE + """
out["version"] = list(__import__("cuda.bindings.nvvm", fromlist=["x"]).version())
out["used"] = toolkit.get_toolkit().components["nvvm"].path
out["copy"] = copy
print(json.dumps(out))
""", subprocess_env)
    assert out["used"] == out["copy"]  # adopted, not loaded globally by numba-cuda
    assert out["kernel"] and out["version"][0] >= 2
    assert out["pathfinder"] is True  # no handle of numba-cuda's: pathfinder's search


def test_an_imported_pathfinder_is_left_alone(subprocess_env):
    out = _run("import cuda.pathfinder as before\n" + _COMPILE + """
out["same"] = sys.modules["cuda.pathfinder"] is before
import cuda.bindings._internal.nvvm as layer
out["bound"] = layer.load_nvidia_dynamic_lib is before.load_nvidia_dynamic_lib
print(json.dumps(out))
""", subprocess_env)
    assert out["kernel"] and out["same"] and out["bound"]


def test_the_switch_turns_it_off(subprocess_env):
    env = dict(subprocess_env, NUMBA_CUDA_DEFER_PATHFINDER="0")
    out = _run(_COMPILE + "print(json.dumps(out))", env)
    assert out["kernel"] and out["pathfinder"] is True


def test_loaded_handle_is_for_libraries_load_library_loaded(monkeypatch):
    from numba_cuda.toolkit import loading

    monkeypatch.setattr(loading, "_loaded", {"nvvm": ("/a/libnvvm.so.4", None)})
    assert loading.loaded_handle("nvvm") is None  # adopted: another package's copy
    assert loading.loaded_handle("nvrtc") is None

    class Handle:
        _handle = 0xABC

    loading._loaded["nvvm"] = ("/a/libnvvm.so.4", Handle())
    assert loading.loaded_handle("nvvm") == ("/a/libnvvm.so.4", 0xABC)


@pytest.mark.parametrize("value, expected", [("", True), ("1", True), ("0", False),
                                             ("false", False), (" Off ", False), ("no", False)])
def test_deferring_reads_the_variable(monkeypatch, value, expected):
    monkeypatch.setenv("NUMBA_CUDA_DEFER_PATHFINDER", value)
    assert nvvm_bindings.deferring() is expected


def test_the_searchers_answer_refuses_protocol_questions(monkeypatch):
    imported = []
    monkeypatch.setattr(nvvm_bindings, "_real_pathfinder", lambda: imported.append(1))
    loaded = nvvm_bindings.LoadedLibrary("nvvm", "/x/libnvvm.so.4", 0x1234)
    assert not hasattr(loaded, "__wrapped__") and not hasattr(loaded, "__dataclass_fields__")
    assert "0x1234" in repr(loaded) and loaded._handle_uint == 0x1234
    assert imported == []
    stand_in = nvvm_bindings._stand_in()
    assert stand_in.load_nvidia_dynamic_lib is nvvm_bindings.load_nvidia_dynamic_lib


def test_a_submodule_import_meanwhile_gets_the_real_package(subprocess_env):
    """Another thread importing a cuda.pathfinder submodule while the stand-in is in
    sys.modules: the import asks the stand-in for ``__path__``, which brings the real package
    (for the thread importing the bindings the stand-in is no package: no ``__path__``)."""
    out = _run("""
import json, sys, threading
from numba_cuda.toolkit import nvvm_bindings
sys.modules["cuda.pathfinder"] = stand_in = nvvm_bindings._stand_in()
out = {"own_thread_path": hasattr(stand_in, "__path__"),
       "still_stand_in": sys.modules["cuda.pathfinder"] is stand_in}
def other():
    import cuda.pathfinder._dynamic_libs.load_dl_common as sub
    out["sub"] = sub.__name__
thread = threading.Thread(target=other)
thread.start()
thread.join()
real = sys.modules["cuda.pathfinder"]
out["real"] = real is not stand_in and not hasattr(real, "_numba_cuda_stand_in")
out["version"] = stand_in.__version__ == real.__version__
print(json.dumps(out))
""", subprocess_env)
    assert out == {"own_thread_path": False, "still_stand_in": True, "real": True,
                   "sub": "cuda.pathfinder._dynamic_libs.load_dl_common", "version": True}


def test_the_stand_in_leaves_sys_modules_before_the_real_import(monkeypatch):
    """_real_pathfinder removes a stand-in still in sys.modules, so the import finds the
    real package instead of the stand-in again."""
    import cuda
    import cuda.pathfinder as real

    monkeypatch.setattr(cuda, "pathfinder", real)  # the re-import below sets it
    stand_in = nvvm_bindings._stand_in()
    monkeypatch.setitem(sys.modules, "cuda.pathfinder", stand_in)
    got = nvvm_bindings._real_pathfinder()
    assert got is not stand_in and not hasattr(got, nvvm_bindings.STAND_IN_MARK)
    assert sys.modules["cuda.pathfinder"] is got
    assert got.load_nvidia_dynamic_lib is real.load_nvidia_dynamic_lib
    # other names the bindings of another version might import come from the real package
    assert stand_in.find_nvidia_header_directory is real.find_nvidia_header_directory

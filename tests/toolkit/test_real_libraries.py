"""Discovery against the real NVIDIA wheels of the running venv (cu12 or cu13),
and proof that cuda-bindings uses exactly the libraries that are reported."""

import json
import os
import subprocess
import sys

import pytest

from numba_cuda.toolkit import COMPONENTS
from numba_cuda.toolkit.layouts import OPTIONAL_COMPONENTS
from numba_cuda.toolkit.discovery import current_environment, discover


def _clean_environment():
    env = current_environment()
    for var in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "NUMBA_CUDA_DISABLE_SOURCES"):
        env.environ.pop(var, None)
    return env


def test_running_venv_uses_its_pip_wheels(fakes):
    major = fakes.venv_major()
    tk = discover(_clean_environment())
    assert tk.source == "pip"
    assert tk.cuda_major == major
    site = os.path.realpath(fakes.site_packages())
    for name in COMPONENTS:
        comp = tk.components[name]
        if name in OPTIONAL_COMPONENTS and not comp.found:
            continue  # in no extra (nvdisasm: pip install nvidia-cuda-nvdisasm, CUDA 13 only)
        assert comp.found, (name, comp.error)
        assert comp.source == "pip"
        assert comp.major == major
        assert os.path.realpath(comp.path).startswith(site + os.sep), comp.path
        assert comp.version and comp.version.startswith(f"{major}."), comp.version
    if major == 13:
        assert tk.components["nvvm"].path.endswith("nvidia/cu13/lib/libnvvm.so.4")
        assert tk.components["nvrtc"].path.endswith("nvidia/cu13/lib/libnvrtc.so.13")
    else:
        assert tk.components["nvvm"].path.endswith("nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so")
        assert tk.components["nvrtc"].path.endswith("nvidia/cuda_nvrtc/lib/libnvrtc.so.12")


_PROOF = r"""
import json, os, re
from numba_cuda import toolkit
from numba_cuda.toolkit.loading import mapped_files
tk = toolkit.get_toolkit()
out = {"reported": {}, "loaded_version": {}}
for name in ("nvvm", "nvrtc", "nvjitlink"):
    if tk.components[name].found:
        out["reported"][name] = toolkit.load_library(name)
# now let cuda-bindings (through cuda-pathfinder) load and call them
from cuda.bindings import nvvm
out["nvvm_version"] = list(nvvm.version())
if "nvrtc" in out["reported"]:
    from cuda.bindings import nvrtc
    out["nvrtc_version"] = list(nvrtc.nvrtcVersion()[1:])
if "nvjitlink" in out["reported"]:
    from cuda.bindings import nvjitlink
    out["nvjitlink_version"] = list(nvjitlink.version())
out["mapped"] = {
    name: mapped_files(re.compile(pat))
    for name, pat in (("nvvm", r"^libnvvm\.so"), ("nvrtc", r"^libnvrtc\.so"),
                      ("nvjitlink", r"^libnvJitLink\.so"))
}
out["loaded_version"] = {n: c.loaded_version for n, c in tk.components.items()}
out["source"] = tk.source
out["major"] = tk.cuda_major
print(json.dumps(out))
"""


def _prove(env):
    proc = subprocess.run([sys.executable, "-c", _PROOF], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_bindings_use_the_reported_libraries(fakes, subprocess_env):
    out = _prove(subprocess_env)
    major = fakes.venv_major()
    assert out["source"] == "pip" and out["major"] == major
    assert set(out["reported"]) == {"nvvm", "nvrtc", "nvjitlink"}
    for name, path in out["reported"].items():
        # exactly one copy of each library is mapped, and it is the reported file
        assert [os.path.realpath(p) for p in out["mapped"][name]] == [os.path.realpath(path)], name
    assert out["nvrtc_version"][0] == major
    assert out["nvjitlink_version"][0] == major
    assert out["loaded_version"]["nvrtc"].startswith(f"{major}.")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
@pytest.mark.skipif(not os.path.isfile("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"),
                    reason="needs a system CUDA toolkit in /usr/local/cuda")
def test_bindings_follow_discovery_not_their_own_search(fakes, subprocess_env):
    """With the wheels hidden from discovery, the system libNVVM is chosen.  On
    its own, cuda-pathfinder would load the wheel's copy (site-packages come
    first in its search): the bindings must use the system one anyway."""
    env = dict(subprocess_env, NUMBA_CUDA_DISABLE_SOURCES="pip")
    out = _prove(env)
    assert out["source"] == "system"
    nvvm = os.path.realpath(out["reported"]["nvvm"])
    assert nvvm.startswith(os.path.realpath("/usr/local/cuda") + os.sep)
    assert [os.path.realpath(p) for p in out["mapped"]["nvvm"]] == [nvvm]
    site = os.path.realpath(fakes.site_packages())
    assert not any(os.path.realpath(p).startswith(site) for p in out["mapped"]["nvvm"])


def test_pathfinder_alone_would_pick_the_wheel(fakes, subprocess_env):
    """The control for the test above: without load_library, the bindings'
    own search picks the pip wheel's libNVVM."""
    code = ("import os\nfrom cuda.bindings import nvvm\nnvvm.version()\n"
            "from numba_cuda.toolkit.loading import mapped_files\nimport re\n"
            "print('\\n'.join(mapped_files(re.compile(r'^libnvvm'))))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=subprocess_env)
    assert proc.returncode == 0, proc.stderr
    site = os.path.realpath(fakes.site_packages())
    mapped = proc.stdout.split()
    assert mapped and all(os.path.realpath(p).startswith(site) for p in mapped)


def test_already_loaded_copy_of_the_same_major_is_adopted_and_reported(fakes, subprocess_env):
    """Another package loaded NVRTC before numba-cuda: the copy in the process
    is what the bindings use, so that is what gets reported (with a warning)."""
    if not os.path.isfile("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"):
        pytest.skip("needs a system CUDA toolkit in /usr/local/cuda")
    code = r"""
import ctypes, json, os, warnings
from numba_cuda import toolkit
wheel = toolkit.get_toolkit().components["nvvm"].path   # pip (the default)
ctypes.CDLL(wheel, mode=os.RTLD_GLOBAL)                    # "another package" loads it
os.environ["NUMBA_CUDA_DISABLE_SOURCES"] = "pip"
tk = toolkit.get_toolkit(refresh=True)                     # now the system copy is chosen
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    used = toolkit.load_library("nvvm")
print(json.dumps({"wheel": wheel, "used": used, "reported": tk.components["nvvm"].path,
                  "warn": [str(x.message) for x in w]}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=subprocess_env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert os.path.realpath(out["used"]) == os.path.realpath(out["wheel"])
    assert out["reported"] == out["used"]
    assert any("already loaded" in w for w in out["warn"])

"""What toolkit discovery costs a fresh process: finding NVIDIA's pip wheels reads file names and
metadata records only.  It imports neither ``subprocess`` (needed only to read the loader cache
when the search reaches the system source) nor ``email`` (the parser behind
``importlib.metadata``; the cuda-bindings major comes from the package's own version)."""

import re
import subprocess
import sys
from importlib.metadata import version

from numba_cuda.toolkit import discovery, loading
from numba_cuda.toolkit.metadata import major_of

_CHECK = """
import sys
from numba_cuda import toolkit
tk = toolkit.get_toolkit()
assert tk.source == "pip", tk.explain()
assert tk.components["nvvm"].found and tk.components["libdevice"].found, tk.explain()
loaded = [m for m in ("subprocess", "email", "email.parser") if m in sys.modules]
print("LOADED", loaded)
"""


def test_pip_wheel_discovery_imports_no_subprocess_or_email(subprocess_env):
    proc = subprocess.run([sys.executable, "-P", "-c", _CHECK], capture_output=True, text=True,
                          env=subprocess_env)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stdout, proc.stdout


def test_bindings_major_matches_the_distribution_metadata():
    assert discovery._bindings_major() == major_of(version("cuda-bindings"))


def test_bindings_major_falls_back_to_metadata_when_the_package_cannot_be_imported(monkeypatch):
    # sys.modules[name] = None makes ``import name`` raise ImportError
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    assert discovery._bindings_major() == major_of(version("cuda-bindings"))


def test_mapped_files_text_hint_does_not_change_the_answer():
    everything = loading.mapped_files()
    assert everything, "a Linux process maps at least its interpreter"
    name = sorted(p for p in everything if ".so" in p)[0].rsplit("/", 1)[-1]
    pattern = re.compile(re.escape(name))
    assert loading.mapped_files(pattern, contains=name) == loading.mapped_files(pattern)
    assert loading.mapped_files(pattern, contains=name)
    assert loading.mapped_files(re.compile("no-such-library"), contains="no-such-library") == []


def test_bindings_major_is_read_without_importing_cuda_bindings(subprocess_env):
    # cuda.bindings' __init__ imports cuda.bindings.utils (a few ms of every first compile)
    code = ("import sys\nfrom numba_cuda.toolkit import discovery\n"
            "print(discovery._bindings_version_file(), discovery._bindings_major(), "
            "'cuda.bindings' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          env=subprocess_env)
    assert proc.returncode == 0, proc.stderr
    file_version, major, imported = proc.stdout.split()
    assert file_version == version("cuda-bindings")
    assert int(major) == major_of(version("cuda-bindings"))
    assert imported == "False"


def test_bindings_version_file_is_the_imported_version():
    import cuda.bindings

    assert discovery._bindings_version_file() == cuda.bindings.__version__

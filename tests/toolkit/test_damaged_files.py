"""Damaged toolkit files are refused by name before anything loads them: a truncated
libNVVM (SIGBUS when loaded), another library renamed libnvvm, an empty, truncated or
garbage libdevice (libNVVM aborts or fails without naming it).  Compilation raises a
ToolkitError naming the file; ``numba-cuda sysinfo`` reports it and exits 0, also for a
library that crashes the process loading it (loaded first in a child process)."""

import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap

import pytest

from numba_cuda.toolkit import get_toolkit, validation

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the damaged-file trees use the Linux toolkit layout")


@pytest.fixture(scope="module")
def real():
    tk = get_toolkit()
    if not all(tk.components[n].found for n in ("nvvm", "libdevice", "nvrtc", "include")):
        pytest.skip("no complete CUDA toolkit in this environment")
    return tk


def _read(path):
    with open(path, "rb") as fh:
        return fh.read()


def make_home(root, real, nvvm=None, libdevice=None):
    """A CUDA_HOME-style toolkit linking to the real files, with the given ones replaced."""
    target = "sbsa-linux" if platform.machine() == "aarch64" else "x86_64-linux"
    comps = real.components
    files = {
        "nvvm/lib64/libnvvm.so.4": (comps["nvvm"].path, nvvm),
        "nvvm/libdevice/libdevice.10.bc": (comps["libdevice"].path, libdevice),
    }
    for name in ("nvrtc", "nvjitlink", "cudart"):
        if comps[name].found:
            files[f"targets/{target}/lib/{os.path.basename(comps[name].path)}"] = (
                comps[name].path, None)
    for rel, (src, data) in files.items():
        dest = os.path.join(root, *rel.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if data is None:
            os.symlink(os.path.realpath(src), dest)
        else:
            with open(dest, "wb") as fh:
                fh.write(data)
    os.symlink(os.path.realpath(comps["include"].path),
               os.path.join(root, "targets", target, "include"))
    with open(os.path.join(root, "version.json"), "w") as fh:
        json.dump({"cuda": {"version": f"{real.cuda_major}.0.1"}}, fh)
    return str(root)


def _env(home):
    env = dict(os.environ, CUDA_HOME=home, NUMBA_CUDA_DISABLE_SOURCES="conda,pip,system,CUDA_PATH")
    for var in ("CONDA_PREFIX", "NUMBA_ENABLE_CUDASIM", "CUDA_PATH"):
        env.pop(var, None)
    return env


def compile_in_child(home):
    code = textwrap.dedent("""
        import json, math
        from numba import cuda
        def k(a):
            a[0] = math.sin(a[0])
        try:
            cuda.compile_ptx(k, "void(float32[:])")
            print(json.dumps(["compiled"]))
        except Exception as exc:
            print(json.dumps([type(exc).__name__, str(exc)]))
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(home), timeout=300)
    assert proc.returncode == 0, f"the process died (status {proc.returncode}): {proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def sysinfo_in_child(home):
    proc = subprocess.run([sys.executable, "-m", "numba_cuda", "sysinfo", "--json"],
                          capture_output=True, text=True, env=_env(home), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    return json.loads(proc.stdout)["toolkit"]["components"]


def _damaged(real):
    nvvm = _read(real.components["nvvm"].path)
    ld = _read(real.components["libdevice"].path)
    return {
        "truncated libnvvm": ("nvvm", {"nvvm": nvvm[: len(nvvm) // 2]}, "is truncated or damaged"),
        "libnvrtc renamed libnvvm": ("nvvm", {"nvvm": _read(real.components["nvrtc"].path)},
                                     "does not export nvvmVersion"),
        "empty libdevice": ("libdevice", {"libdevice": b""}, "is empty (0 bytes)"),
        "truncated libdevice": ("libdevice", {"libdevice": ld[: len(ld) // 2]},
                                "is truncated or damaged"),
        "garbage libdevice": ("libdevice", {"libdevice": bytes(range(256)) * 64},
                              "is not LLVM bitcode"),
    }


CASES = ["truncated libnvvm", "libnvrtc renamed libnvvm", "empty libdevice",
         "truncated libdevice", "garbage libdevice"]


@pytest.mark.parametrize("case", CASES)
def test_compiling_with_a_damaged_file_names_it(real, tmp_path, case):
    comp, files, problem = _damaged(real)[case]
    home = make_home(tmp_path / "cuda", real, **files)
    got = compile_in_child(home)
    assert got[0] == "ToolkitError", got
    bad = "nvvm/lib64/libnvvm.so.4" if comp == "nvvm" else "nvvm/libdevice/libdevice.10.bc"
    assert os.path.join(home, *bad.split("/")) in got[1] and problem in got[1], got


@pytest.mark.parametrize("case", CASES)
def test_sysinfo_reports_a_damaged_file_and_exits_0(real, tmp_path, case):
    comp, files, problem = _damaged(real)[case]
    comps = sysinfo_in_child(make_home(tmp_path / "cuda", real, **files))
    assert comps[comp]["error"] and problem in comps[comp]["error"], comps[comp]
    other = "libdevice" if comp == "nvvm" else "nvvm"
    assert comps[other]["error"] is None, comps[other]


def test_sysinfo_survives_a_library_that_crashes_the_process_loading_it(real, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a C compiler to build a library that crashes when loaded")
    src = tmp_path / "crash.c"
    src.write_text(textwrap.dedent("""
        #include <signal.h>
        int nvvmVersion(int *a, int *b) { return 0; }
        int nvvmCreateProgram(void *p) { return 0; }
        int nvvmCompileProgram(void *p, int n, const char **o) { return 0; }
        __attribute__((constructor)) static void boom(void) { raise(SIGBUS); }
        """))
    lib = tmp_path / "crash.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    assert validation.library_problem("nvvm", str(lib)) is None  # it looks like libNVVM
    comps = sysinfo_in_child(make_home(tmp_path / "cuda", real, nvvm=_read(lib)))
    assert "crashed the process that loaded it (SIGBUS)" in comps["nvvm"]["error"], comps["nvvm"]


def test_the_real_files_pass_quickly_and_answers_are_kept(real, monkeypatch):
    import time

    for name in ("nvvm", "nvrtc", "nvjitlink", "cudart"):
        comp = real.components[name]
        if comp.found:
            t0 = time.perf_counter()
            assert validation.library_problem(name, comp.path) is None, name
            assert time.perf_counter() - t0 < 0.5
    assert validation.bitcode_problem(real.components["libdevice"].path) is None

    def no_reads(*args, **kwargs):
        raise AssertionError("a kept answer was checked again")

    monkeypatch.setattr(validation, "_elf_problem", no_reads)
    monkeypatch.setattr(validation, "_bitcode_problem", no_reads)
    assert validation.library_problem("nvvm", real.components["nvvm"].path) is None
    assert validation.bitcode_problem(real.components["libdevice"].path) is None


def test_bitcode_wrapper_declaring_more_than_the_file(tmp_path):
    import struct

    body = b"BC\xc0\xde" + b"\0" * 60
    wrapped = b"\xde\xc0\x17\x0b" + struct.pack("<IIII", 0, 20, len(body) + 100, 0) + body
    assert "bitcode wrapper declares" in validation.bitcode_data_problem(wrapped)
    assert validation.bitcode_data_problem(b"BC\xc0\xde") == (
        "is not an LLVM module (its bitcode holds no module block)")


def test_a_damaged_nvrtc_builtins_library_is_named_before_nvrtc_loads_it(real, tmp_path):
    nvrtc = real.components["nvrtc"]
    folder = os.path.dirname(os.path.realpath(nvrtc.path))
    builtins = [n for n in os.listdir(folder) if n.startswith("libnvrtc-builtins.so.")]
    if not builtins:
        pytest.skip("this NVRTC has no separate builtins library")
    home = make_home(tmp_path / "cuda", real)
    lib_dir = os.path.dirname(os.path.join(home, os.path.relpath(
        next(p for p in _links(home) if os.path.basename(p) == os.path.basename(nvrtc.path)),
        home)))
    data = _read(os.path.join(folder, builtins[0]))
    with open(os.path.join(lib_dir, builtins[0]), "wb") as fh:
        fh.write(data[: len(data) // 3])
    code = textwrap.dedent("""
        import json
        from numba_cuda import toolkit
        try:
            toolkit.load_library("nvrtc")
            print(json.dumps(["loaded"]))
        except Exception as exc:
            print(json.dumps([type(exc).__name__, str(exc)]))
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(home), timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got[0] == "ToolkitError" and "builtins library" in got[1], got
    assert builtins[0] in got[1] and "is truncated or damaged" in got[1], got


def _links(root):
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            yield os.path.join(dirpath, f)


def test_nvrtc_builtins_are_loaded_from_nvrtcs_own_folder(real):
    folder = os.path.dirname(os.path.realpath(real.components["nvrtc"].path))
    if not any(n.startswith("libnvrtc-builtins.so.") for n in os.listdir(folder)):
        pytest.skip("this NVRTC has no separate builtins library")
    code = textwrap.dedent("""
        import json
        from numba_cuda import toolkit
        from numba_cuda.toolkit.loading import mapped_files
        toolkit.load_library("nvrtc")   # before any NVRTC call
        print(json.dumps([p for p in mapped_files() if "nvrtc-builtins" in p]))
        """)
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    mapped = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [os.path.dirname(os.path.realpath(p)) for p in mapped] == [folder], mapped

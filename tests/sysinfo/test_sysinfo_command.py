"""`numba-cuda sysinfo` run as users run it, in subprocesses: the JSON schema,
the sources it reports in each situation, and that it always exits 0 with no
traceback."""

import glob
import json
import os
import re
import subprocess
import sys
import sysconfig
import venv

import pytest

COMPONENTS = ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas")
SOURCES = (None, "conda", "pip", "CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "system")


@pytest.fixture
def clean_env():
    env = dict(os.environ)
    for var in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "NUMBA_CUDA_DISABLE_SOURCES",
                "LD_LIBRARY_PATH", "NUMBA_ENABLE_CUDASIM", "NUMBA_CUDA_REDIRECT"):
        env.pop(var, None)
    return env


def bindings_major():
    from importlib.metadata import version

    return int(version("cuda-bindings").split(".")[0])


def sysinfo(env, *extra, python=None, script=False):
    if script:
        cmd = [os.path.join(os.path.dirname(sys.executable), "numba-cuda"), "sysinfo", *extra]
    else:
        cmd = [python or sys.executable, "-m", "numba_cuda", "sysinfo", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc


def sysinfo_json(env, **kw):
    report = json.loads(sysinfo(env, "--json", **kw).stdout)
    check_schema(report)
    return report


def check_schema(report):
    assert report["target"] in ("numba-cuda", "numba-builtin")
    assert isinstance(report["version"], str)
    assert isinstance(report["redirected"], bool)
    tk = report["toolkit"]
    assert tk["cuda_major"] is None or isinstance(tk["cuda_major"], int)
    assert set(COMPONENTS) <= set(tk["components"])
    for comp in tk["components"].values():
        for key in ("path", "source", "version", "error"):
            assert key in comp
            assert comp[key] is None or isinstance(comp[key], str)
        assert comp["source"] in SOURCES
    assert set(report["driver"]) >= {"version", "error"}
    assert isinstance(report["devices"], list)
    for name in ("numba", "llvmlite", "numpy", "cuda-bindings"):
        assert name in report["packages"]


def test_json_in_the_running_venv(clean_env):
    report = sysinfo_json(clean_env)
    major = bindings_major()
    assert report["target"] == "numba-cuda" and report["redirected"] is True
    from numba_cuda import __version__

    assert report["version"] == __version__
    tk = report["toolkit"]
    assert tk["source"] == "pip" and tk["cuda_major"] == major
    for name in COMPONENTS:
        comp = tk["components"][name]
        assert comp["error"] is None, (name, comp)
        assert comp["source"] == "pip"
        assert comp["path"] and os.path.exists(comp["path"])
        assert comp["version"].startswith(f"{major}.")
    # NVRTC and nvJitLink were loaded and asked for their version
    assert tk["components"]["nvrtc"]["loaded_version"].startswith(f"{major}.")
    assert tk["components"]["nvjitlink"]["loaded_version"].startswith(f"{major}.")
    assert report["packages"]["cuda-bindings"].startswith(f"{major}.")
    # no driver on the build machines: reported, not raised
    if report["driver"]["version"] is None:
        assert report["driver"]["error"]


def test_console_script_and_table(clean_env):
    proc = sysinfo(clean_env, script=True)
    out = proc.stdout
    assert "CUDA target" in out and "numba-cuda" in out
    assert f"CUDA toolkit: CUDA {bindings_major()} from pip" in out
    for name in COMPONENTS:
        assert f"\n  {name} " in out
    assert "Driver:" in out and ("GPUs:" in out)


def test_explain_lists_the_search(clean_env):
    out = sysinfo(clean_env, "--explain").stdout
    assert "Search order:" in out and "CONDA_PREFIX [not set]" in out


def test_redirect_off_reports_the_builtin_target(clean_env):
    report = sysinfo_json(dict(clean_env, NUMBA_CUDA_REDIRECT="0"))
    assert report["target"] == "numba-builtin" and report["redirected"] is False
    import numba

    assert report["version"] == numba.__version__


def test_everything_hidden_reports_all_missing_and_exits_0(clean_env):
    env = dict(clean_env, NUMBA_CUDA_DISABLE_SOURCES="all")
    report = sysinfo_json(env)
    tk = report["toolkit"]
    assert tk["source"] is None and tk["cuda_major"] is None
    for name in COMPONENTS:
        comp = tk["components"][name]
        assert comp["path"] is None and comp["source"] is None
        assert comp["error"] and "not found" in comp["error"]
    assert tk["fix"] == f'pip install "numba-cuda[cu{bindings_major()}]"'
    table = sysinfo(env).stdout
    assert "CUDA toolkit: not found" in table and "MISSING" in table
    required = ", ".join(n for n in COMPONENTS if n != "nvdisasm")
    assert f"fix ({required}): {tk['fix']}" in table
    # nvdisasm is in no extra: its own line names what provides it
    assert f"fix (nvdisasm): {tk['components']['nvdisasm']['fix']}" in table
    assert "nvdisasm" in tk["components"]["nvdisasm"]["fix"]


@pytest.mark.skipif(not os.path.isfile("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"),
                    reason="needs a system CUDA toolkit in /usr/local/cuda")
def test_without_wheels_the_system_toolkit_is_found(clean_env):
    env = dict(clean_env, NUMBA_CUDA_DISABLE_SOURCES="pip")
    report = sysinfo_json(env)
    tk = report["toolkit"]
    assert tk["source"] == "system"
    comps = tk["components"]
    for name in ("nvvm", "libdevice"):
        assert comps[name]["error"] is None, comps[name]
        assert comps[name]["source"] == "system"
    real = os.path.realpath("/usr/local/cuda")
    assert os.path.realpath(comps["nvvm"]["path"]).startswith(real + os.sep)
    assert comps["libdevice"]["path"].startswith("/usr/local/cuda")
    no_nvrtc = not (glob.glob("/usr/local/cuda/lib*/libnvrtc.so*")
                    or glob.glob("/usr/local/cuda/targets/*/lib/libnvrtc.so*"))
    if no_nvrtc:  # this machine's odd layout
        assert comps["nvrtc"]["path"] is None
        assert "NVRTC not found for CUDA" in comps["nvrtc"]["error"]
        assert tk["fix"] == f'pip install "numba-cuda[cu{tk["cuda_major"]}]"'
        table = sysinfo(env).stdout
        assert "MISSING: NVRTC not found" in table
        assert re.search(r"fix \([^)]*\bnvrtc\b[^)]*\): " + re.escape(tk["fix"]), table), table


def _fake_conda_prefix(prefix):
    """A real interpreter (a venv) whose prefix is laid out like an unactivated
    conda environment: conda-meta records and the conda layout, made of links
    to this venv's real wheel files."""
    from numba_cuda.toolkit.discovery import current_environment, discover

    tk = discover(current_environment())
    assert tk.source == "pip"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(prefix)
    purelib = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})["purelib"]
    os.makedirs(purelib, exist_ok=True)
    with open(os.path.join(purelib, "use_test_venv.pth"), "w") as fh:
        # the packages of the running venv (numba, cuda-bindings, numba-cuda ...)
        fh.write(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    c = tk.components
    links = {
        f"nvvm/lib64/{os.path.basename(c['nvvm'].path)}": c["nvvm"].path,
        "nvvm/libdevice/libdevice.10.bc": c["libdevice"].path,
        f"lib/{os.path.basename(c['nvrtc'].path)}": c["nvrtc"].path,
        f"lib/{os.path.basename(c['cudart'].path)}": c["cudart"].path,
        f"lib/{os.path.basename(c['nvjitlink'].path)}": c["nvjitlink"].path,
        "targets/x86_64-linux/include": c["include"].path,
        "bin/ptxas": c["ptxas"].path,
    }
    for builtins in glob.glob(os.path.join(os.path.dirname(c["nvrtc"].path), "libnvrtc-builtins.so*")):
        links[f"lib/{os.path.basename(builtins)}"] = builtins
    for rel, target in links.items():
        dest = os.path.join(prefix, *rel.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        os.symlink(target, dest)
    meta = os.path.join(prefix, "conda-meta")
    os.makedirs(meta)
    packages = {"cuda-nvvm-impl": ["nvvm"], "cuda-nvvm-tools": ["libdevice"],
                "cuda-nvrtc": ["nvrtc"], "cuda-cudart": ["cudart"], "libnvjitlink": ["nvjitlink"],
                "cuda-cudart-dev": ["include"], "cuda-nvcc-tools": ["ptxas"]}
    for pkg, comps in packages.items():
        version = c[comps[0]].version
        files = [rel if not rel.endswith("include") else rel + "/cuda_runtime.h"
                 for rel, target in links.items()
                 if any(target == c[n].path for n in comps)]
        with open(os.path.join(meta, f"{pkg}-{version}-h0_0.json"), "w") as fh:
            json.dump({"name": pkg, "version": version, "files": files}, fh)
    return os.path.join(prefix, "bin", "python")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds a linux conda layout")
def test_unactivated_conda_prefix_reports_conda(tmp_path, clean_env):
    python = _fake_conda_prefix(str(tmp_path / "env"))
    # sanity: it is a different interpreter prefix, and CONDA_PREFIX is unset
    proc = subprocess.run([python, "-c", "import sys; print(sys.prefix)"], capture_output=True,
                          text=True, env=clean_env)
    assert proc.stdout.strip() == str(tmp_path / "env")
    report = sysinfo_json(clean_env, python=python)
    tk = report["toolkit"]
    major = bindings_major()
    assert tk["source"] == "conda" and tk["cuda_major"] == major
    assert tk["root"] == str(tmp_path / "env")
    assert tk["environment"] == "conda"
    for name in COMPONENTS:
        comp = tk["components"][name]
        assert comp["error"] is None, (name, comp)
        assert comp["source"] == "conda"
        assert comp["path"].startswith(str(tmp_path / "env") + os.sep)
        assert comp["version"].startswith(f"{major}.")
    # the prefix's libraries are the ones loaded (through the links)
    assert tk["components"]["nvrtc"]["loaded_version"].startswith(f"{major}.")
    # the pip wheels are on that interpreter's sys.path too: the conda env still wins
    explained = sysinfo(clean_env, "--explain", python=python).stdout
    order = next(line for line in explained.splitlines() if line.startswith("Search order:"))
    assert order.index("(this interpreter's)") < order.index(f"pip wheels for CUDA {major} in")


def test_unloadable_nvvm_is_reported_in_the_component(tmp_path, clean_env):
    """A libNVVM whose header looks right but that cannot be loaded: sysinfo
    reports it in the component's error, exits 0, prints no traceback."""
    home = tmp_path / "cuda"
    for rel in ("nvvm/lib64/libnvvm.so.4", "targets/x86_64-linux/lib/libnvrtc.so.13"):
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        head = bytearray(64)
        head[:6] = b"\x7fELF\x02\x01"
        head[18:20] = (62).to_bytes(2, "little")
        p.write_bytes(bytes(head))
    (home / "nvvm" / "libdevice").mkdir()
    (home / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
    (home / "version.json").write_text('{"cuda": {"version": "13.0.1"}}')
    env = dict(clean_env, CUDA_HOME=str(home), NUMBA_CUDA_DISABLE_SOURCES="conda,pip,system")
    report = sysinfo_json(env)
    comps = report["toolkit"]["components"]
    assert report["toolkit"]["source"] == "CUDA_HOME"
    assert comps["nvvm"]["path"] == str(home / "nvvm" / "lib64" / "libnvvm.so.4")
    assert comps["nvvm"]["error"].startswith("found, but could not be used:")
    # refused by the check that reads the file before loading it (a 64-byte ELF header only)
    assert "is not a shared library" in comps["nvvm"]["error"]
    assert "it was not loaded" in comps["nvvm"]["error"]
    assert comps["nvrtc"]["error"].startswith("found, but could not be used:")
    # an empty libdevice is not reported as fine (libNVVM cannot use it)
    assert comps["libdevice"]["error"] == "found, but is empty (0 bytes); reinstall it"


def test_collect_never_raises_when_a_section_fails(monkeypatch):
    from numba_cuda import sysinfo as si
    from numba_cuda.runtime import probe

    def boom():
        raise RuntimeError("driver exploded\nsecond line")

    monkeypatch.setattr(probe, "probe_driver", boom)
    report = si.collect(load=False)
    assert any(e == "driver: RuntimeError: driver exploded" for e in report["errors"])
    assert report["toolkit"]["components"]
    assert "Errors while collecting" in si.render(report)


def test_simulator_off_is_reported(clean_env):
    report = sysinfo_json(clean_env)
    assert report["simulator"] is False
    assert report["implementation"] == "numba-cuda"
    table = sysinfo(clean_env).stdout
    (row,) = [line for line in table.splitlines() if line.strip().startswith("Simulator")]
    assert row.split()[-1] == "off"


def test_simulator_active_is_reported_in_json_and_table(clean_env):
    env = dict(clean_env, NUMBA_ENABLE_CUDASIM="1")
    report = sysinfo_json(env)
    assert report["simulator"] is True
    assert report["implementation"] == "numba-cuda (simulator)"
    table = sysinfo(env).stdout
    (row,) = [line for line in table.splitlines() if line.strip().startswith("Simulator")]
    assert "ACTIVE" in row and "NUMBA_ENABLE_CUDASIM=1" in row


def test_simulator_of_the_builtin_target_is_reported(clean_env):
    env = dict(clean_env, NUMBA_ENABLE_CUDASIM="1", NUMBA_CUDA_REDIRECT="0")
    report = sysinfo_json(env)
    assert report["target"] == "numba-builtin"
    assert report["simulator"] is True

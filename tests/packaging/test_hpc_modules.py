"""HPC modulefiles (scripts/modulefiles): load without activating, and discovery still works.

The situation: a site made a conda environment with numba-cuda and exposes it
through a modulefile that only prepends ``$prefix/bin`` to PATH.  After
``module load``, ``python`` and ``numba-cuda`` from that bin/ run with
CONDA_PREFIX and CUDA_HOME unset, and must still find the environment's own
toolkit (source "conda").

Lmod (Debian package ``lmod``) evaluates both the Lua and the Tcl file when it
is installed; without it the Tcl file is evaluated by tclsh with the few
module commands it uses defined, and the Lua file is parse-checked by luac.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

MODULEFILES = Path(__file__).resolve().parents[2] / "scripts" / "modulefiles"
PLACEHOLDER = "@NUMBA_CUDA_PREFIX@"
LMOD_CANDIDATES = [os.environ.get("LMOD_CMD", ""), "/usr/share/lmod/lmod/libexec/lmod",
                   "/usr/lib/lmod/lmod/libexec/lmod", "/opt/apps/lmod/lmod/libexec/lmod"]


def _lmod():
    for candidate in LMOD_CANDIDATES:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


needs_lmod = pytest.mark.skipif(_lmod() is None, reason="Lmod is not installed (apt-get install lmod)")


def _install_modulefiles(tmp_path, prefix):
    """Fill the templates in as a site would: MODULEPATH/numba-cuda/{lua.lua,tcl}."""
    modulepath = tmp_path / "modulefiles"
    (modulepath / "numba-cuda").mkdir(parents=True)
    for template, name in (("numba-cuda.lua", "lua.lua"), ("numba-cuda.tcl", "tcl")):
        text = (MODULEFILES / template).read_text()
        assert PLACEHOLDER in text
        (modulepath / "numba-cuda" / name).write_text(text.replace(PLACEHOLDER, str(prefix)))
    return modulepath


def _load_and_run(fake_conda, modulepath, module, command):
    """bash: eval "$(lmod bash load module)" then ``command``; returns CompletedProcess."""
    env = fake_conda.clean_environ()
    env["MODULEPATH"] = str(modulepath)
    env["HOME"] = str(modulepath.parent)
    script = f'eval "$("{_lmod()}" bash load {module})" || exit 97\n{command}\n'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300)


def test_templates_never_activate_or_point_at_a_toolkit():
    for name in ("numba-cuda.lua", "numba-cuda.tcl"):
        code = [line for line in (MODULEFILES / name).read_text().splitlines()
                if not line.lstrip().startswith(("--", "#"))]
        text = "\n".join(code)
        for forbidden in ("CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "activate"):
            assert forbidden not in text, (name, forbidden)
        assert "PATH" in text and "bin" in text


@needs_lmod
@pytest.mark.parametrize("module", ["numba-cuda/lua", "numba-cuda/tcl"])
def test_lmod_load_prepends_bin_only(fake_conda, tmp_path, module):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    modulepath = _install_modulefiles(tmp_path, prefix)
    proc = _load_and_run(fake_conda, modulepath, module, "env")
    assert proc.returncode == 0, proc.stderr
    env = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    assert env["PATH"].split(os.pathsep)[0] == str(prefix / "bin")
    for unset in ("CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH"):
        assert unset not in env, unset


@needs_lmod
@pytest.mark.parametrize("module", ["numba-cuda/lua", "numba-cuda/tcl"])
def test_lmod_refuses_a_prefix_that_is_not_a_conda_env(fake_conda, tmp_path, module):
    prefix = tmp_path / "not-an-env"
    prefix.mkdir()
    modulepath = _install_modulefiles(tmp_path, prefix)
    proc = _load_and_run(fake_conda, modulepath, module, "echo loaded")
    assert "loaded" not in proc.stdout
    message = " ".join(proc.stderr.split())  # Lmod wraps its messages
    assert "is not a conda environment" in message
    assert "conda-meta" in message


TCL_HARNESS = r"""
# The module commands numba-cuda.tcl uses, recording what they do.
proc module-whatis {text} { puts "whatis $text" }
proc prepend-path {var value} { puts "prepend-path $var $value" }
proc append-path {var value} { puts "append-path $var $value" }
proc setenv {var value} { puts "setenv $var $value" }
proc module-info {what args} {
    if {$what eq "mode"} { return [expr {[lindex $args 0] eq $::mode}] }
    return ""
}
set mode [lindex $argv 0]
if {[catch {source [lindex $argv 1]} message]} { puts "error $message"; exit 3 }
ModulesHelp
"""


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="tclsh is not installed")
def test_tcl_modulefile_evaluates_in_tclsh(tmp_path):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    harness = tmp_path / "harness.tcl"
    harness.write_text(TCL_HARNESS)
    modulefile = tmp_path / "numba-cuda"
    modulefile.write_text((MODULEFILES / "numba-cuda.tcl").read_text().replace(PLACEHOLDER, str(prefix)))
    proc = subprocess.run(["tclsh", str(harness), "load", str(modulefile)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    actions = [line for line in proc.stdout.splitlines() if not line.startswith("whatis")]
    assert actions == [f"prepend-path PATH {prefix / 'bin'}"]
    assert "numba-cuda sysinfo" in proc.stderr  # the help text

    (prefix / "conda-meta").rmdir()
    proc = subprocess.run(["tclsh", str(harness), "load", str(modulefile)], capture_output=True, text=True)
    assert proc.returncode == 3 and "is not a conda environment" in proc.stdout


@pytest.mark.skipif(shutil.which("luac") is None, reason="luac is not installed")
def test_lua_modulefile_parses():
    proc = subprocess.run(["luac", "-p", str(MODULEFILES / "numba-cuda.lua")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _check_sysinfo(proc, prefix, major):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    info = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert info["executable"].startswith(str(prefix))
    toolkit = info["toolkit"]
    assert toolkit["cuda_major"] == major
    for name, comp in toolkit["components"].items():
        if name == "nvdisasm":
            continue  # optional (inspect_sass), in no extra: the fake prefix mirrors the extras
        assert comp["error"] is None, (name, comp)
        assert comp["source"] == "conda", (name, comp)
        assert comp["path"].startswith(str(prefix) + os.sep), (name, comp)
    assert set(toolkit["components"]) >= {"nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas"}


@pytest.mark.slow
def test_discovery_in_an_unactivated_prefix(fake_conda, conda_prefix):
    """$prefix/bin first on PATH (what the modulefiles do), nothing activated: source is conda."""
    prefix, major = conda_prefix
    env = fake_conda.clean_environ(extra_path=str(prefix / "bin"))
    proc = subprocess.run(["python", "-c", "import sys; print(sys.prefix)"], env=env, capture_output=True, text=True)
    assert proc.stdout.strip() == str(prefix)
    proc = subprocess.run(["numba-cuda", "sysinfo", "--json"], env=env, capture_output=True, text=True, timeout=300)
    _check_sysinfo(proc, prefix, major)


@needs_lmod
@pytest.mark.slow
@pytest.mark.parametrize("module", ["numba-cuda/lua", "numba-cuda/tcl"])
def test_discovery_after_module_load(fake_conda, conda_prefix, tmp_path, module):
    """The full HPC path: module load, then the console script, CONDA_PREFIX and CUDA_HOME unset."""
    prefix, major = conda_prefix
    modulepath = _install_modulefiles(tmp_path, prefix)
    proc = _load_and_run(fake_conda, modulepath, module,
                         'test -z "$CONDA_PREFIX$CUDA_HOME$CUDA_PATH" || exit 98\nnumba-cuda sysinfo --json')
    _check_sysinfo(proc, prefix, major)

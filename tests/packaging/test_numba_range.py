"""The Numba range: pyproject.toml declares the releases the compiler's shadowing of Numba is
tested against (``numba>=0.68,<0.69``), the CI jobs test both ends of it, and importing
numba_cuda with a Numba outside it is an error (a warning with NUMBA_CUDA_ALLOW_UNTESTED_NUMBA=1).
The recipe and the environment files repeat the range; test_recipe_consistency.py and
test_environment_consistency.py compare them with pyproject.toml."""

import os
import subprocess
import sys
import warnings

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import numba_cuda
from numba_cuda.errors import NumbaVersionError

LOW, BELOW = numba_cuda._TESTED_NUMBA
SWITCH = "NUMBA_CUDA_ALLOW_UNTESTED_NUMBA"


def _numba_requirement(deps):
    (req,) = [r for r in deps.requirements("run") if r.name == "numba"]
    return req


def test_pyproject_declares_the_range_the_import_check_enforces(deps):
    req = _numba_requirement(deps)
    assert req.specifier == SpecifierSet(f">={LOW[0]}.{LOW[1]},<{BELOW[0]}.{BELOW[1]}"), req


def test_the_install_page_states_the_range(deps):
    text = " ".join((deps.ROOT / "docs" / "install" / "index.rst").read_text().split())
    assert f"``numba >={LOW[0]}.{LOW[1]},<{BELOW[0]}.{BELOW[1]}``" in text
    assert "NumbaVersionError" in text and SWITCH in text


def test_the_range_is_at_most_two_minor_releases():
    """The jobs test the bottom and the top minor release; the shadowed steps change between
    minors, so a minor between the two would be one that no job tests."""
    assert LOW < BELOW, (LOW, BELOW)
    assert BELOW in ((LOW[0], LOW[1] + 1), (LOW[0], LOW[1] + 2)), (LOW, BELOW)


def test_this_job_runs_an_end_of_the_range():
    """The lowest-versions job has the floor (scripts/floors.py --check asserts the exact pin);
    the normal jobs have the top: a release of the last minor the range allows, the newest one
    pip resolves in their fresh venvs.  Raising the bound without the normal job getting the new
    Numba fails here."""
    from importlib.metadata import version

    installed = Version(version("numba"))
    if os.environ.get("NUMBA_CUDA_LOWEST") == "1":
        assert installed.release[:2] == LOW, installed
    else:
        top = (BELOW[0], BELOW[1] - 1) if BELOW[1] > 0 else None
        assert installed.release[:2] == top, (
            f"the normal job installed numba {installed}, not the top of the range "
            f"<{BELOW[0]}.{BELOW[1]}: pin the newest allowed Numba in scripts/run-tests")


@pytest.mark.parametrize("version", ["0.68.0", "0.68.1", "0.68.9rc1", "0.68"])
def test_a_numba_inside_the_range_is_silent(version, monkeypatch):
    monkeypatch.delenv(SWITCH, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numba_cuda._check_numba_version(version)


@pytest.mark.parametrize("version", ["0.67.1", "0.57.0", "0.69.0", "0.69.0rc1", "0.70.2", "1.0.0",
                                     "0+unknown"])
def test_a_numba_outside_the_range_is_refused_naming_the_range_and_the_fix(version, monkeypatch):
    monkeypatch.delenv(SWITCH, raising=False)
    with pytest.raises(NumbaVersionError) as info:
        numba_cuda._check_numba_version(version)
    message = str(info.value)
    assert f"Numba {version} is installed" in message
    assert "tested with Numba >=0.68,<0.69" in message
    assert 'pip install "numba>=0.68,<0.69"' in message and f"{SWITCH}=1" in message
    assert isinstance(info.value, ImportError)  # so the redirector falls back to the built-in


@pytest.mark.parametrize("version", ["0.67.1", "0.69.0"])
def test_the_switch_turns_the_error_into_a_warning(version, monkeypatch):
    monkeypatch.setenv(SWITCH, "1")
    with pytest.warns(RuntimeWarning, match=rf"Numba {version} is installed.*{SWITCH} is set"):
        numba_cuda._check_numba_version(version)


def test_no_numba_installed_is_left_to_the_import_of_numba():
    numba_cuda._check_numba_version(None)


def _python(code, **env):
    full_env = {k: v for k, v in os.environ.items() if k != SWITCH}
    full_env.update(env)
    return subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                          capture_output=True, text=True, env=full_env, timeout=120)


def test_importing_with_an_imported_numba_outside_the_range_fails():
    proc = _python("import numba; numba.__version__ = '0.69.0'; import numba_cuda")
    assert proc.returncode != 0
    assert "NumbaVersionError" in proc.stderr and "Numba 0.69.0 is installed" in proc.stderr


def test_importing_before_numba_reads_the_installed_version_without_importing_numba():
    ok = _python("import sys, numba_cuda; assert 'numba' not in sys.modules, 'numba imported'")
    assert ok.returncode == 0, ok.stderr
    # the version is read from Numba's _version.py (no importlib.metadata: its email parser)
    old = _python("import numba_cuda as n; n._check_numba_version('0.67.0')")
    assert old.returncode != 0 and "Numba 0.67.0 is installed" in old.stderr, old.stderr
    ok = _python("import sys, numba_cuda as n; assert 'email' not in sys.modules; "
                 "from importlib.metadata import version; "
                 "assert n._numba_version_file() == version('numba')")
    assert ok.returncode == 0, ok.stderr
    fallback = _python("import numba_cuda as n, importlib.metadata as m; "
                       "n._numba_version_file = lambda: None; m.version = lambda name: '0.67.0'; "
                       "n._check_numba_version(n._numba_version())")
    assert fallback.returncode != 0 and "Numba 0.67.0 is installed" in fallback.stderr, \
        fallback.stderr


def test_switch_imports_with_a_warning():
    proc = _python("import warnings, numba; numba.__version__ = '0.69.0'\n"
                   "with warnings.catch_warnings(record=True) as seen:\n"
                   "    warnings.simplefilter('always')\n"
                   "    import numba_cuda\n"
                   "print([str(w.message) for w in seen if w.category is RuntimeWarning])",
                   **{SWITCH: "1"})
    assert proc.returncode == 0, proc.stderr
    assert "Numba 0.69.0 is installed" in proc.stdout and f"{SWITCH} is set" in proc.stdout


def test_numba_cuda_through_the_redirector_falls_back_to_the_built_in_target_saying_why():
    proc = subprocess.run(
        [sys.executable, "-c", "import numba; numba.__version__ = '0.69.0'\n"
                               "from numba import cuda; print(cuda.implementation)"],
        capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k not in (SWITCH, "NUMBA_CUDA_REDIRECT")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Built-in"
    assert "NumbaVersionError" in proc.stderr and "Numba 0.69.0 is installed" in proc.stderr

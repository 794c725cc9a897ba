"""The numba.cuda -> numba_cuda redirector, exercised in fresh interpreters."""

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import _numba_cuda_redirector as redirector

REPO = Path(__file__).resolve().parents[2]


def run_python(code, *args, env_extra=None, env_drop=(), cwd=None):
    env = dict(os.environ)
    for name in ("NUMBA_CUDA_REDIRECT", "NUMBA_ENABLE_CUDASIM", *env_drop):
        env.pop(name, None)
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or Path(__file__).parent,
        timeout=120,
    )
    return proc


def run_json(code, *args, **kwargs):
    proc = run_python(code, *args, **kwargs)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "name, expected",
    [
        ("numba.cuda", "numba_cuda"),
        ("numba.cuda.errors", "numba_cuda.errors"),
        ("numba.cuda.cudadrv.driver", "numba_cuda.cudadrv.driver"),
        ("numba.cudax", None),
        ("numba.cuda_extra", None),
        ("foo.numba.cuda", None),
        ("numba", None),
        ("numba.core", None),
    ],
)
def test_only_the_exact_prefix_is_mapped(name, expected):
    assert redirector._target_name(name) == expected


@pytest.mark.parametrize("value, enabled", [("0", False), ("off", False), ("False", False), ("1", True), ("", True)])
def test_off_switch_values(monkeypatch, value, enabled):
    monkeypatch.setenv("NUMBA_CUDA_REDIRECT", value)
    assert redirector.enabled() is enabled


def test_numba_cuda_is_numba_cuda_and_submodules_are_shared():
    out = run_json(
        """
        import json, sys
        import numba.cuda
        import numba_cuda
        from numba import cuda
        import numba.cuda.lang.stubs as a
        import numba_cuda.lang.stubs as b
        from numba.cuda import errors
        builtin = sorted(
            n for n, m in sys.modules.items()
            if getattr(m, "__file__", None) and "numba/cuda/" in m.__file__.replace("\\\\", "/")
            and "site-packages/numba/" in m.__file__.replace("\\\\", "/")
        )
        print(json.dumps({
            "same": numba.cuda is numba_cuda and cuda is numba_cuda,
            "attr": sys.modules["numba"].cuda is numba_cuda,
            "sub": a is b and sys.modules["numba.cuda.lang.stubs"] is b,
            "errors": errors is sys.modules["numba_cuda.errors"],
            "builtin_loaded": builtin,
        }))
        """
    )
    assert out == {"same": True, "attr": True, "sub": True, "errors": True, "builtin_loaded": []}


def test_submodule_imported_first_via_numba_cuda_is_the_same_object():
    out = run_json(
        """
        import json, sys
        import numba_cuda.lang.stubs as first
        import numba.cuda.lang.stubs as second
        print(json.dumps(first is second))
        """
    )
    assert out is True


def test_missing_submodule_gives_the_usual_error():
    proc = run_python("import numba.cuda.does_not_exist")
    assert proc.returncode != 0
    assert "No module named 'numba.cuda.does_not_exist'" in proc.stderr
    assert "numba_cuda.does_not_exist" not in proc.stderr


def test_off_switch_uses_numbas_builtin():
    out = run_json(
        """
        import json, sys
        import numba.cuda
        print(json.dumps({
            "file": numba.cuda.__file__,
            "ours_loaded": "numba_cuda" in sys.modules,
        }))
        """,
        env_extra={"NUMBA_CUDA_REDIRECT": "0"},
    )
    assert "numba_cuda" not in out["file"]
    assert Path(out["file"]).parent.name == "cuda"
    assert out["ours_loaded"] is False


def test_off_switch_respected_when_numba_cuda_is_imported_directly():
    out = run_json(
        """
        import json, sys
        import numba_cuda
        import numba.cuda
        print(json.dumps(numba.cuda is numba_cuda))
        """,
        env_extra={"NUMBA_CUDA_REDIRECT": "0"},
    )
    assert out is False


def test_broken_numba_cuda_falls_back_with_a_warning(tmp_path):
    broken = tmp_path / "numba_cuda"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('simulated breakage in numba_cuda')\n")
    proc = run_python(
        """
        import warnings, json
        warnings.simplefilter("always")
        import numba
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import numba.cuda
        print(json.dumps({
            "file": numba.cuda.__file__,
            "warnings": [str(w.message) for w in caught],
            "numba_ok": hasattr(numba, "njit"),
        }))
        """,
        env_extra={"PYTHONPATH": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["numba_ok"]
    assert "numba_cuda" not in out["file"]
    assert any("simulated breakage in numba_cuda" in w and "built-in" in w for w in out["warnings"])


def test_foreign_numba_cuda_package_is_not_redirected(tmp_path):
    pkg = tmp_path / "foo" / "numba" / "cuda"
    pkg.mkdir(parents=True)
    for d in (tmp_path / "foo", tmp_path / "foo" / "numba"):
        (d / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("MARK = 'foreign'\n")
    out = run_json(
        """
        import json
        import foo.numba.cuda as m
        print(json.dumps(getattr(m, "MARK", None)))
        """,
        env_extra={"PYTHONPATH": str(tmp_path)},
    )
    assert out == "foreign"


def test_without_pth_processing_importing_numba_cuda_installs_the_alias():
    # python -S skips site and therefore every .pth file; put the site
    # directory and the checkout on sys.path by hand instead.
    site_dir = sysconfig.get_paths()["purelib"]
    out = run_json(
        f"""
        import sys, json
        sys.path[:0] = [{str(REPO)!r}, {site_dir!r}]
        import numba
        pth_ran = any(type(f).__name__ == "NumbaCudaRedirector" for f in sys.meta_path)
        import numba_cuda
        import numba.cuda
        import numba.cuda.errors
        from numba import cuda
        print(json.dumps({{
            "pth_ran": pth_ran,
            "same": numba.cuda is numba_cuda and cuda is numba_cuda,
            "sub": numba.cuda.errors is sys.modules["numba_cuda.errors"],
        }}))
        """,
        "-S",
    )
    assert out == {"pth_ran": False, "same": True, "sub": True}


@pytest.mark.parametrize("which", ["numba.cuda", "numba_cuda", "numba.cuda.errors"])
def test_reload_keeps_the_alias_and_re_executes_the_module(which):
    # The checkout's redirector, installed as the .pth would (python -S: no .pth
    # of the venv runs, so the file under test is this checkout's).
    site_dir = sysconfig.get_paths()["purelib"]
    out = run_json(
        f"""
        import sys, json, importlib
        sys.path[:0] = [{str(REPO)!r}, {site_dir!r}]
        import _numba_cuda_redirector
        assert _numba_cuda_redirector.__file__.startswith({str(REPO)!r})
        _numba_cuda_redirector.install()
        import numba.cuda, numba_cuda, numba.cuda.errors
        mod = sys.modules[{which!r}]
        mod._reload_marker = 1
        again = importlib.reload(mod)
        print(json.dumps({{
            "same": again is mod,
            "re_executed": hasattr(numba_cuda, "jit") and "numba.cuda" in sys.modules,
            "aliases": sys.modules["numba.cuda"] is sys.modules["numba_cuda"]
                and sys.modules["numba.cuda.errors"] is sys.modules["numba_cuda.errors"],
            "spec": numba_cuda.__spec__.name,
        }}))
        """,
        "-S",
    )
    assert out == {"same": True, "re_executed": True, "aliases": True, "spec": "numba_cuda"}


@pytest.mark.slow
def test_pip_install_target_without_pth(tmp_path):
    """``pip install --target`` puts the .pth in a directory that is not a site
    directory, so it never runs; importing numba_cuda must still alias it."""
    target = tmp_path / "target"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert (target / "numba_cuda_redirector.pth").exists()
    assert (target / "_numba_cuda_redirector.py").exists()
    out = run_json(
        """
        import sys, json
        import numba_cuda, numba.cuda, numba.cuda.errors
        print(json.dumps({
            "file": numba_cuda.__file__,
            "redirector": sys.modules["_numba_cuda_redirector"].__file__,
            "same": numba.cuda is numba_cuda,
            "sub": numba.cuda.errors is sys.modules["numba_cuda.errors"],
        }))
        """,
        env_extra={"PYTHONPATH": str(target)},
        cwd=tmp_path,
    )
    assert out["file"].startswith(str(target))
    assert out["same"] is True and out["sub"] is True

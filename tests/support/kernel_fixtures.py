"""Fixtures shared by the test packages that compile generated kernels (tests/cg, tests/ufuncs):
the kernel-language helpers of ``tests/lang/conftest.py`` (PTX for every target cc, checked by
ptxas) and ``run_script`` for code that must run in a fresh interpreter.

A conftest re-exports what it needs: ``from tests.support.kernel_fixtures import ccs, run_script``.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

_spec = importlib.util.spec_from_file_location(
    "_lang_ptx_helpers", os.path.join(os.path.dirname(os.path.dirname(__file__)), "lang", "conftest.py"))
_lang = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lang)

assemble = _lang.assemble
available_ccs = _lang.available_ccs
code = _lang.code
ccs = _lang.ccs
ptx_for = _lang.ptx_for


@pytest.fixture
def run_script():
    """``run_script(code, env=None, cwd=None)``: run ``code`` as a file (so kernels have source)
    in a fresh interpreter; returns the completed process."""

    def run(source, env=None, cwd=None, timeout=300):
        full_env = dict(os.environ)
        full_env.pop("NUMBA_ENABLE_CUDASIM", None)
        full_env.update(env or {})
        with tempfile.TemporaryDirectory() as tmp:
            workdir = cwd or tmp
            path = os.path.join(workdir, "kernel_script.py")
            with open(path, "w") as f:
                f.write(textwrap.dedent(source))
            return subprocess.run([sys.executable, path], env=full_env, cwd=workdir,
                                  capture_output=True, text=True, timeout=timeout)

    return run

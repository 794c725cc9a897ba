"""The compiler reads kernel source as Python does: debug line information for a UTF-8 source
with non-ASCII text under a non-UTF-8 locale, and compiling with the working directory deleted
(both failed inside Numba's helpers: ``UnicodeDecodeError``, ``FileNotFoundError``)."""

import re

import pytest

from numba_cuda.compiler import source_files

KERNEL_SOURCE = '''\
# -*- coding: utf-8 -*-
import math


def kernel(out, a):  # LINE-DEF
    """Größe: ünïcödé in the docstring."""
    # π and — in a comment
    out[0] = a.size + math.sin(a[0])  # LINE-BODY


def typo(out, a):  # LINE-DEF-TYPO
    out[0] = a.sizee  # LINE-TYPO
'''


def _line(marker):
    return next(i for i, text in enumerate(KERNEL_SOURCE.splitlines(), start=1) if marker in text)


@pytest.fixture
def kernel_module(tmp_path):
    path = tmp_path / "kernel_with_unicode.py"
    path.write_text(KERNEL_SOURCE, encoding="utf-8")
    return path


def _run(run_python, code, env):
    proc = run_python(code, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("options", ["lineinfo=True", "debug=True, opt=False"])
def test_debug_line_info_of_a_utf8_source_under_an_ascii_locale(options, kernel_module, run_python):
    # LC_ALL=C alone turns on Python's UTF-8 mode; PYTHONUTF8=0 keeps the locale's ASCII.
    code = f"""
        import locale, sys
        sys.path.insert(0, {str(kernel_module.parent)!r})
        assert locale.getpreferredencoding(False).lower() in ("ascii", "ansi_x3.4-1968"), \\
            locale.getpreferredencoding(False)
        from numba import cuda
        import kernel_with_unicode as m
        ptx, _ = cuda.compile_ptx(m.kernel, "void(float64[:], float64[:])", cc=(7, 5), {options})
        print(ptx)
    """
    ptx = _run(run_python, code, {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "utf-8"})
    lines = {int(n) for n in re.findall(r"^\s*\.loc\s+\d+\s+(\d+)", ptx, re.M)}
    assert _line("LINE-BODY") in lines, sorted(lines)


def test_def_line_reads_utf8(kernel_module, monkeypatch):
    import importlib

    monkeypatch.syspath_prepend(str(kernel_module.parent))
    module = importlib.import_module("kernel_with_unicode")
    assert source_files.def_line(module.kernel) == _line("LINE-DEF")
    assert source_files.def_line(module.typo) == _line("LINE-DEF-TYPO")


def test_def_line_of_decorated_and_nested_functions():
    def outer():
        @staticmethod
        def inner(x):  # inner-def
            return x

        return inner

    inner = outer().__func__
    import inspect

    lines, start = inspect.getsourcelines(test_def_line_of_decorated_and_nested_functions)
    expected = start + next(i for i, t in enumerate(lines) if "# inner-def" in t)
    assert source_files.def_line(inner) == expected
    assert source_files.def_line(lambda x: x) is None  # as Numba: no def line
    assert source_files.def_line(len) is None


def test_compiling_with_the_working_directory_deleted(kernel_module, run_python, tmp_path):
    gone = tmp_path / "cwd"
    code = f"""
        import os, sys
        sys.path.insert(0, {str(kernel_module.parent)!r})
        # (imported first: NumPy 2.5 on Python 3.13 fails to import without a working directory)
        from numba import cuda
        from numba.core.errors import TypingError
        os.mkdir({str(gone)!r}); os.chdir({str(gone)!r}); os.rmdir({str(gone)!r})
        import kernel_with_unicode as m
        cuda.compile_ptx(m.kernel, "void(float64[:], float64[:])", cc=(7, 5))
        cuda.compile_ptx(m.kernel, "void(float64[:], float64[:])", cc=(7, 5), lineinfo=True)
        try:
            cuda.compile_ptx(m.typo, "void(float64[:], float64[:])", cc=(7, 5))
        except TypingError as e:
            print("TYPING-ERROR", e)
        from numba.core import ir
        print("RESTORED", ir.Loc._get_path.__module__)
    """
    out = _run(run_python, code, {})
    assert "TYPING-ERROR" in out and "sizee" in out
    assert f"line {_line('LINE-TYPO')}" in out and str(kernel_module) in out
    assert "RESTORED numba.core.ir" in out  # the workaround lasts only as long as a compile


def test_with_a_working_directory_numbas_locations_are_untouched():
    from numba.core import ir

    original = ir.Loc._get_path
    with source_files.tolerating_a_missing_cwd():
        assert ir.Loc._get_path is original

"""``except`` clauses written for Numba's built-in target catch our errors: for every misuse in
``misuse_cases``, the exception we raise is an instance of the built-in class Numba raises for
the same misuse, measured by running the cases under Numba's target (``NUMBA_CUDA_REDIRECT=0``)
in the same run; real target and simulator alike (no GPU needed: every case fails before any
driver call)."""

import builtins
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES_FILE = Path(__file__).with_name("misuse_cases.py")


def _results(redirect, simulator):
    env = dict(os.environ, NUMBA_CUDA_REDIRECT="1" if redirect else "0",
               NUMBA_ENABLE_CUDASIM="1" if simulator else "0")
    proc = subprocess.run([sys.executable, str(CASES_FILE)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=str(CASES_FILE.parent))
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout + proc.stderr
    return json.loads(lines[-1][len("RESULT "):])


def _builtin_class(mro):
    name = next(n for n in mro if n.startswith("builtins."))
    return getattr(builtins, name.split(".", 1)[1])


@pytest.mark.parametrize("simulator", [False, True], ids=["target", "simulator"])
def test_ours_are_instances_of_what_numba_raises(simulator):
    numba = _results(redirect=False, simulator=simulator)
    ours = _results(redirect=True, simulator=simulator)
    assert any("numba_cuda" in n for mro in ours.values() if mro for n in mro), ours  # really ours
    compared = 0
    for case, numba_mro in numba.items():
        if numba_mro is None or not any(n.startswith("builtins.") for n in numba_mro[:1]):
            continue  # Numba raised nothing, or its own class (not part of the promise)
        if simulator and case.startswith("cuda.compile"):
            continue  # Numba's simulator has compile_ptx = None (calling it is a TypeError)
        expected = _builtin_class(numba_mro)
        got = ours[case]
        assert got is not None, f"{case}: Numba raises {expected.__name__}, ours raises nothing"
        assert f"builtins.{expected.__name__}" in got, (
            f"{case}: Numba raises {expected.__name__}; ours raises {got[0]} ({got})")
        compared += 1
    assert compared >= (6 if simulator else 10), (compared, numba)


@pytest.mark.parametrize("call, numba_words", [
    ("cuda.compile_ptx(f, '(float32,)', abi='fastcall')", "Unsupported ABI: fastcall"),
    ("cuda.compile(f, '(float32,)', output='illegal')", "Unsupported output type: illegal"),
    ("cuda.compile_ptx(f, '(float32,)', abi='c')", "The C ABI is not supported for kernels"),
])
def test_compile_option_messages_start_with_numbas_words(cuda, call, numba_words):
    """Code (and Numba's own tests) match these messages; ours add what to do instead."""
    def f(x):
        return x + 1

    with pytest.raises(NotImplementedError, match=numba_words):
        eval(call, {"cuda": cuda, "f": f})

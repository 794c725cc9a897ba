"""One rule for on/off environment variables (numba_cuda.common.env_flags, documented on
docs/user/environment-variables.rst): unset or empty means the default; 0/false/no/off (any
case) off; anything else on.  The redirector, which may not import the package at start-up,
keeps its own copy of the rule: both must answer alike."""

import os
import subprocess
import sys

import pytest

import _numba_cuda_redirector as redirector
from numba_cuda.common.env_flags import env_flag, flag_value

VALUES = {
    None: "default", "": "default", "   ": "default",
    "0": False, "false": False, "False": False, "FALSE": False, "no": False, "No": False,
    "off": False, " off ": False, "OFF": False,
    "1": True, "true": True, "True": True, "yes": True, "on": True, "2": True, " 1 ": True,
}


@pytest.mark.parametrize("raw", list(VALUES), ids=repr)
@pytest.mark.parametrize("default", [False, True])
def test_the_rule(raw, default):
    expected = default if VALUES[raw] == "default" else VALUES[raw]
    assert flag_value(raw, default) is expected
    environ = {} if raw is None else {"SOME_FLAG": raw}
    assert env_flag("SOME_FLAG", default, environ=environ) is expected


@pytest.mark.parametrize("raw", list(VALUES), ids=repr)
def test_the_redirector_follows_the_same_rule(monkeypatch, raw):
    if raw is None:
        monkeypatch.delenv(redirector.ENV_SWITCH, raising=False)
    else:
        monkeypatch.setenv(redirector.ENV_SWITCH, raw)
    # NUMBA_CUDA_REDIRECT defaults to on
    assert redirector.enabled() is flag_value(raw, True)
    assert redirector.enabled() is env_flag(redirector.ENV_SWITCH, True)


def test_an_empty_simulator_switch_means_its_default_off():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="", NUMBA_CUDA_REDIRECT="")
    proc = subprocess.run(
        [sys.executable, "-c", "from numba import cuda; import numba_cuda; "
         "print(numba_cuda.USE_SIMULATOR, cuda is numba_cuda)"],
        capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]  # simulator off, redirect on: both defaults

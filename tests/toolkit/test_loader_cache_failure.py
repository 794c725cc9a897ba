"""A loader cache that cannot be read (``ldconfig`` missing or failing) is reported with its
reason, and the system search goes on with the standard locations."""

import subprocess

import pytest

from numba_cuda.toolkit import discovery
from numba_cuda.toolkit.discovery import discover
from numba_cuda.toolkit.layouts import COMPONENTS

CACHE_LABEL = "system loader cache (ldconfig -p)"
REASON = "ldconfig -p exited with status 1: permission denied (fake)"


def _failing_loader(calls):
    def loader_dirs():
        calls.append("called")
        raise OSError(REASON)

    return loader_dirs


def test_failing_loader_cache_is_reported_and_the_system_toolkit_still_found(fake_env, fakes,
                                                                             tmp_path):
    root = tmp_path / "usr" / "local" / "cuda"
    fakes.make_toolkit_install(root, 12)
    calls = []
    tk = discover(fake_env(loader_dirs=_failing_loader(calls), system_roots=[str(root)]))
    assert calls == ["called"]
    # the toolkit at the standard location is still found ...
    assert tk.source == "system" and tk.cuda_major == 12
    assert tk.root == str(root)
    for name in COMPONENTS:
        assert tk.components[name].found, name
    # ... and the failed read is part of the story, with its reason
    expected = f"loader cache not read: {REASON}"
    assert f"{CACHE_LABEL} [{expected}]" in tk.searched
    assert CACHE_LABEL in tk.skipped
    for name in COMPONENTS:
        assert (CACHE_LABEL, expected) in tk.components[name].tried, name
    assert expected in tk.explain()
    assert f"{CACHE_LABEL}: {expected}" in tk.components["nvvm"].to_dict()["tried"]


def test_failing_loader_cache_with_no_toolkit_names_the_reason_in_the_error(fake_env):
    calls = []
    tk = discover(fake_env(loader_dirs=_failing_loader(calls), system_roots=["/nonexistent/cuda"]))
    assert calls == ["called"]
    assert tk.source is None
    nvvm = tk.components["nvvm"]
    assert not nvvm.found
    reasons = dict(nvvm.tried)
    assert reasons[CACHE_LABEL] == f"loader cache not read: {REASON}"
    # the remaining system entry does not claim the loader cache was looked at
    assert reasons["system (/nonexistent/cuda, loader cache)"] == "no CUDA toolkit at /nonexistent/cuda"
    assert REASON in nvvm.message


def test_read_loader_cache_raises_with_every_failure(monkeypatch):
    monkeypatch.setattr(discovery.sys, "platform", "linux")
    attempts = []

    def fake_run(cmd, **kw):
        attempts.append(cmd[0])
        if cmd[0] == "ldconfig":
            raise FileNotFoundError(2, "No such file or directory", "ldconfig")
        return subprocess.CompletedProcess(cmd, 1, stdout="", stderr="cache is corrupt")

    monkeypatch.setattr(subprocess, "run", fake_run)  # discovery imports it when needed
    with pytest.raises(OSError) as info:
        discovery._read_loader_cache()
    assert attempts == ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
    message = str(info.value)
    assert "No such file or directory" in message
    assert "/sbin/ldconfig -p exited with status 1: cache is corrupt" in message


def test_read_loader_cache_uses_the_first_ldconfig_that_works(monkeypatch):
    monkeypatch.setattr(discovery.sys, "platform", "linux")

    def fake_run(cmd, **kw):
        if cmd[0] == "ldconfig":
            raise FileNotFoundError(2, "No such file or directory", "ldconfig")
        out = "\tlibnvrtc.so.12 (libc6,x86-64) => /opt/cuda/lib64/libnvrtc.so.12\n"
        return subprocess.CompletedProcess(cmd, 0, stdout=out, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)  # discovery imports it when needed
    assert discovery._read_loader_cache() == ["/opt/cuda/lib64"]

"""The system source reads the loader cache (``ldconfig -p``, a subprocess)
only when the search reaches it, and at most once per process."""

import pytest

from numba_cuda import toolkit
from numba_cuda.toolkit import discovery
from numba_cuda.toolkit.discovery import NOT_REACHED, discover
from numba_cuda.toolkit.layouts import COMPONENTS
from numba_cuda.toolkit.model import Toolkit

SYSTEM_LABEL = "system (LD_LIBRARY_PATH, loader cache, /nonexistent/cuda)"


def _forbidden_loader(calls):
    def loader_dirs():
        calls.append("called")
        # pytest.fail is not an Exception, so discovery cannot swallow it
        pytest.fail("the loader cache was read although an earlier source had every component")

    return loader_dirs


@pytest.mark.parametrize("where", ("pip", "conda"))
def test_loader_cache_not_read_when_an_earlier_source_has_everything(fake_env, fakes, tmp_path,
                                                                     where):
    calls = []
    env = fake_env(loader_dirs=_forbidden_loader(calls), system_roots=["/nonexistent/cuda"])
    if where == "pip":
        site = tmp_path / "site"
        fakes.make_wheels(site, 13)
        env.path = [str(site)]
    else:
        fakes.make_conda_env(env.prefix, 12)
    tk = discover(env)
    assert calls == []
    assert tk.source == where
    for name in COMPONENTS:
        comp = tk.components[name]
        assert comp.found and comp.source == where, name
        # the system source is still part of the story, honestly labelled
        assert comp.tried[-1] == (SYSTEM_LABEL, NOT_REACHED)
    assert tk.searched[-1] == f"{SYSTEM_LABEL} [{NOT_REACHED}]"
    assert SYSTEM_LABEL in tk.skipped
    text = tk.explain()
    assert f"{SYSTEM_LABEL} [not searched (earlier sources provided every component)]" in text
    assert tk.components["nvrtc"].to_dict()["tried"][-1] == f"{SYSTEM_LABEL}: {NOT_REACHED}"


def test_loader_cache_read_once_when_a_component_is_missing_earlier(fake_env, fakes, tmp_path):
    site = tmp_path / "site"
    fakes.make_wheels(site, 13, skip=("nvjitlink",))
    root = tmp_path / "opt" / "cuda-13.0"
    tree = fakes.make_toolkit_install(root, 13)
    libdir = tree.path("targets/x86_64-linux/lib")
    calls = []

    def loader_dirs():
        calls.append("called")
        return [libdir]

    tk = discover(fake_env(path=[str(site)], loader_dirs=loader_dirs))
    assert calls == ["called"]
    assert tk.source == "pip" and tk.cuda_major == 13
    nvj = tk.components["nvjitlink"]
    assert nvj.found and nvj.source == "system"
    assert nvj.path == tree.path("targets/x86_64-linux/lib/libnvJitLink.so.13")
    # the system source was searched: no "not searched" entry anywhere
    assert all(NOT_REACHED not in s for s in tk.searched)
    for comp in tk.components.values():
        assert all(reason != NOT_REACHED for _place, reason in comp.tried)
    assert f"system toolkit {root}".replace("\\", "/") in "; ".join(tk.searched).replace("\\", "/")


def test_loader_cache_read_when_only_the_system_has_a_toolkit(fake_env, fakes, tmp_path):
    tree = fakes.make_toolkit_install(tmp_path / "opt" / "cuda-12.8", 12)
    calls = []

    def loader_dirs():
        calls.append("called")
        return [tree.path("targets/x86_64-linux/lib")]

    tk = discover(fake_env(loader_dirs=loader_dirs))
    assert calls == ["called"]
    assert tk.source == "system" and tk.cuda_major == 12
    assert all(c.found for c in tk.components.values())


def test_missing_everywhere_reaches_the_system_source(fake_env, fakes, tmp_path):
    """Nothing anywhere: the system source is searched (and reported as
    searched, not as skipped) and the error lists it."""
    calls = []

    def loader_dirs():
        calls.append("called")
        return []

    tk = discover(fake_env(loader_dirs=loader_dirs, system_roots=["/nonexistent/cuda"]))
    assert calls == ["called"]
    assert tk.source is None
    places = [place for place, _reason in tk.components["nvvm"].tried]
    assert places[-1] == "system (/nonexistent/cuda, loader cache)"
    assert NOT_REACHED not in tk.components["nvvm"].message


def test_disabled_system_source_never_reads_the_loader_cache(fake_env):
    calls = []
    tk = discover(fake_env(loader_dirs=_forbidden_loader(calls),
                           environ={"NUMBA_CUDA_DISABLE_SOURCES": "system"}))
    assert calls == []
    assert tk.components["nvvm"].tried[-1][1] == "disabled by NUMBA_CUDA_DISABLE_SOURCES"


def test_loader_cache_dirs_is_read_once_per_process(monkeypatch):
    reads = []

    def fake_read():
        reads.append(1)
        return [f"/fake/lib{len(reads)}"]

    monkeypatch.setattr(discovery, "_loader_cache", None)
    monkeypatch.setattr(discovery, "_read_loader_cache", fake_read)
    assert discovery.loader_cache_dirs() == ["/fake/lib1"]
    assert discovery.loader_cache_dirs() == ["/fake/lib1"]
    assert len(reads) == 1
    # callers get a copy: mutating it does not change the cache
    discovery.loader_cache_dirs().append("/elsewhere")
    assert discovery.loader_cache_dirs() == ["/fake/lib1"]
    assert discovery.loader_cache_dirs(refresh=True) == ["/fake/lib2"]
    assert len(reads) == 2
    # a plain environment reuses the cache; a refreshing one reads again
    assert list(discovery.current_environment().loader_dirs()) == ["/fake/lib2"]
    assert len(reads) == 2
    assert list(discovery.current_environment(refresh=True).loader_dirs()) == ["/fake/lib3"]
    assert len(reads) == 3


def test_get_toolkit_refresh_rereads_the_loader_cache(monkeypatch):
    reads = []

    def fake_read():
        reads.append(1)
        return []

    def fake_discover(env):
        env.loader_dirs()  # as if the search reached the system source
        return Toolkit()

    monkeypatch.setattr(discovery, "_loader_cache", None)
    monkeypatch.setattr(discovery, "_read_loader_cache", fake_read)
    monkeypatch.setattr(discovery, "discover", fake_discover)
    monkeypatch.setattr(toolkit, "_cached", None)
    toolkit.get_toolkit()
    assert len(reads) == 1
    toolkit.get_toolkit()  # cached toolkit: no search at all
    assert len(reads) == 1
    toolkit.get_toolkit(refresh=True)
    assert len(reads) == 2
    toolkit.get_toolkit(refresh=True)
    assert len(reads) == 3

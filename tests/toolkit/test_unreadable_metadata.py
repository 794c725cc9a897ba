"""One unreadable metadata file (not UTF-8, not JSON, JSON of another shape) anywhere
discovery looks never makes discovery raise: the file is skipped and named."""

import json
import os

import pytest

from numba_cuda.errors import ToolkitError
from numba_cuda.toolkit.discovery import discover

NOT_UTF8 = b"CUDA Version 12.4.1\n\xff\xfe\x80 broken\n"


def _names_file(tk, path):
    return any(str(path) in w and "skipped" in w for w in tk.warnings) and str(path) in tk.explain()


def test_non_utf8_version_txt(fake_env, fakes, tmp_path):
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 12, version_json=False)
    (home / "version.txt").write_bytes(NOT_UTF8)
    tk = discover(fake_env(environ={"CUDA_HOME": str(home)}))
    assert tk.source == "CUDA_HOME"
    assert _names_file(tk, home / "version.txt")
    assert any("not UTF-8" in w for w in tk.warnings)


@pytest.mark.parametrize("content", [NOT_UTF8, b"[1, 2", b"[1, 2]", b'"text"'])
def test_bad_version_json(fake_env, fakes, tmp_path, content):
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 13, version_json=False)
    (home / "version.json").write_bytes(content)
    tk = discover(fake_env(environ={"CUDA_HOME": str(home)}))
    assert tk.source == "CUDA_HOME"
    assert _names_file(tk, home / "version.json")


@pytest.mark.parametrize("major", [12, 13])
def test_non_utf8_record_of_another_nvidia_wheel(fake_env, fakes, tmp_path, major):
    site = tmp_path / "site"
    fakes.make_wheels(site, major)
    record = site / "nvidia_cublas-13.0.0.dist-info" / "RECORD"
    record.parent.mkdir(parents=True)
    record.write_bytes(b"nvidia/cu13/lib/libcublas.so.13,sha256=\xff\xff,1\n")
    tk = discover(fake_env(path=[str(site)]))
    assert tk.source == "pip" and tk.cuda_major == major
    assert _names_file(tk, record)


def test_non_utf8_record_inside_a_toolkit_tree(fake_env, fakes, tmp_path):
    home = tmp_path / "cuda"
    fakes.make_toolkit_install(home, 13)
    record = home / "dist-info" / "nvidia_nvvm-13.0.88.dist-info" / "RECORD"
    record.parent.mkdir(parents=True)
    record.write_bytes(b"\xff\xfe")
    tk = discover(fake_env(environ={"CUDA_HOME": str(home)}))
    assert tk.source == "CUDA_HOME"
    assert _names_file(tk, record)


@pytest.mark.parametrize("record", [
    [1, 2, 3],
    "just a string",
    {"name": "cuda-nvrtc", "version": "13.0.88", "files": 7},
    {"name": "cuda-nvrtc", "version": "13.0.88", "files": [None, 3]},
    {"name": ["cuda-nvrtc"], "version": {"v": 1}, "files": []},
    None,
])
def test_odd_shaped_conda_meta_record(fake_env, fakes, record):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 13)
    bad = os.path.join(env.prefix, "conda-meta", "cuda-odd-1.0-h0_0.json")
    with open(bad, "w") as fh:
        json.dump(record, fh)
    tk = discover(env)
    assert tk.source == "conda" and tk.cuda_major == 13
    assert _names_file(tk, bad)


def test_non_utf8_conda_meta_record(fake_env, fakes):
    env = fake_env()
    fakes.make_conda_env(env.prefix, 12)
    bad = os.path.join(env.prefix, "conda-meta", "cuda-odd-1.0-h0_0.json")
    with open(bad, "wb") as fh:
        fh.write(b'{"name": "cuda-odd\xff"}')
    tk = discover(env)
    assert tk.source == "conda"
    assert _names_file(tk, bad)


def test_an_unexpected_failure_of_the_search_is_a_toolkit_error(fake_env, monkeypatch):
    from numba_cuda.toolkit import discovery

    def broken(*args, **kwargs):
        raise AttributeError("'list' object has no attribute 'get'")

    monkeypatch.setattr(discovery, "build_sources", broken)
    with pytest.raises(ToolkitError, match="discovery failed: AttributeError") as info:
        discover(fake_env())
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert isinstance(info.value.cause, AttributeError)


def test_loader_cache_with_undecodable_paths(tmp_path, monkeypatch):
    from numba_cuda.toolkit import discovery

    fake = tmp_path / "bin" / "ldconfig"
    fake.parent.mkdir()
    fake.write_bytes(b"#!/bin/sh\nprintf '\\tlibnvvm.so.4 (libc6,x86-64) => /opt/cu\\377da/lib/libnvvm.so.4\\n"
                     b"\\tlibnvrtc.so.13 (libc6,x86-64) => /opt/cuda/lib/libnvrtc.so.13\\n'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    dirs = discovery._read_loader_cache()
    assert dirs == [os.fsdecode(b"/opt/cu\xffda/lib"), "/opt/cuda/lib"]

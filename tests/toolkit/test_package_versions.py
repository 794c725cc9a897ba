"""The one reader of installed packages' ``_version.py`` (numba_cuda.common.package_versions)."""

import importlib.metadata

import pytest

from numba_cuda.common import package_versions


@pytest.mark.parametrize("package, dist", [("numba", "numba"), ("cuda.bindings", "cuda-bindings")])
def test_reads_the_installed_version(package, dist):
    assert package_versions.version_in_file(package) == importlib.metadata.version(dist)


@pytest.mark.parametrize("text, expected", [
    ("__version__ = version = '13.5.0'\n__version_tuple__ = (13, 5, 0)\n", "13.5.0"),
    ('version_json = \'\'\'\n{\n "date": "2025",\n "version": "0.68.1"\n}\n\'\'\'\n', "0.68.1"),
    ("# no version here\n", None),
    ('__version__ = x\n "version": ""\n', None),
])
def test_literal_forms(text, expected):
    assert package_versions._version_literal(text) == expected


def test_missing_package_and_layout(tmp_path, monkeypatch):
    assert package_versions.version_in_file("no_such_package_xyz") is None
    (tmp_path / "pkg_without_version_file").mkdir()
    (tmp_path / "pkg_without_version_file" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert package_versions.version_in_file("pkg_without_version_file") is None

"""README and docs/install say how to install THIS build, how to tell it apart, and warn about the index.

The names ``numba-cuda`` (PyPI, conda-forge) and ``numba_cuda`` are also
NVIDIA's package.  Until this build is published, an install from an index
gets NVIDIA's package, so the install instructions must install from the
source, the wheel built from it or a locally built conda package.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "docs" / "install"


def _flat(path):
    return " ".join(path.read_text().split())


def _version():
    return re.search(r'__version__\s*=\s*"([^"]+)"', (ROOT / "numba_cuda" / "_version.py").read_text()).group(1)


@pytest.mark.parametrize("path, upgrade", [
    (ROOT / "README.md", "pip install -U numba-cuda"), (INSTALL / "index.rst", "pip install -U numba-cuda"),
    (INSTALL / "pip.rst", "pip install -U numba-cuda"), (INSTALL / "source.rst", "pip install -U numba-cuda"),
    (INSTALL / "conda.rst", "conda update numba-cuda")])
def test_pages_warn_that_the_index_installs_nvidias_package(path, upgrade):
    text = _flat(path).replace("``", "`")
    assert "NVIDIA" in text, path
    assert upgrade in text, path


def test_readme_install_table_installs_this_build():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) >= 5
    for row in rows:
        command = row.split(" | ")[1]
        # No install from an index: every pip/conda install names a local source.
        for install in re.findall(r"(?:pip|conda) install [^`]*", command):
            assert re.search(r'"\.\[|"dist/|-c \./output|-e|-f ', install), row
    assert "conda install -c conda-forge numba-cuda" not in text


def test_readme_and_install_pages_name_the_current_version():
    version = _version()
    for path in (ROOT / "README.md",):
        for found in re.findall(r"numba_cuda-(\d+\.\d+\.\d+)-py3|numba-cuda=(\d+\.\d+\.\d+)", path.read_text()):
            assert version in found, (path, found)


def test_how_to_tell_which_package_is_installed():
    import numba_cuda

    for path in (ROOT / "README.md", INSTALL / "index.rst"):
        text = _flat(path)
        assert "numba-cuda sysinfo" in text and "numba.cuda.implementation" in text, path
        assert f'"{numba_cuda.implementation}"' in text, path


def test_source_page_has_no_placeholder_url():
    text = (INSTALL / "source.rst").read_text()
    assert not re.search(r"<[^>]*repository[^>]*>", text), "placeholder repository URL"
    assert "No public repository URL is known" in text

"""Fixtures for the packaging tests (``_deps.py``: shared facts; ``_fake_conda.py``: a fake conda prefix)."""

import functools
import importlib.util
from pathlib import Path

import pytest


@functools.lru_cache(maxsize=None)
def _load(name):
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_numba_cuda_packaging{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def deps():
    return _load("_deps")


@pytest.fixture(scope="session")
def fake_conda():
    """The helpers of ``_fake_conda.py`` (an unactivated conda prefix built from the pip wheels)."""
    return _load("_fake_conda")


@pytest.fixture(scope="session")
def conda_prefix(fake_conda, tmp_path_factory):
    """(prefix, major): a fake unactivated conda environment with this venv's CUDA major."""
    return fake_conda.build(tmp_path_factory.mktemp("conda") / "numba-cuda-env")


@pytest.fixture(scope="session")
def rendered(deps):
    """{platform: [variant dict, ...]} from rendering the recipe with py-rattler-build."""
    render = deps.load_script("render_recipe").render
    return {platform: render(platform) for platform in deps.PLATFORMS}

"""Fixtures for the packaging tests (see ``_deps.py`` for the shared facts)."""

import functools
import importlib.util
from pathlib import Path

import pytest


@functools.lru_cache(maxsize=None)
def _load_deps():
    path = Path(__file__).with_name("_deps.py")
    spec = importlib.util.spec_from_file_location("_numba_cuda_packaging_deps", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def deps():
    return _load_deps()


@pytest.fixture(scope="session")
def rendered(deps):
    """{platform: [variant dict, ...]} from rendering the recipe with py-rattler-build."""
    render = deps.load_script("render_recipe").render
    return {platform: render(platform) for platform in deps.PLATFORMS}

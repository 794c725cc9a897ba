"""Fixtures for the extension-API tests: the sample extension module and PTX assembly."""

import importlib.util
import os
import sys

import pytest

from tests.support import ptx_helpers

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="session")
def ext():
    """The sample third-party extension (tests/extending/vec2_extension.py), imported once."""
    name = "vec2_extension"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "vec2_extension.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def assemble():
    """``assemble(ptx, cc)``: ptxas must accept the PTX for ``sm_XY`` (tests/support/ptx_helpers.py)."""
    return ptx_helpers.assemble

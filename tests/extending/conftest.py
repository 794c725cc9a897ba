"""Fixtures for the extension-API tests: the sample extension module and PTX assembly."""

import importlib.util
import os
import subprocess
import sys
import tempfile

import pytest

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
    def run(ptx, cc):
        from numba_cuda import toolkit

        ptxas = toolkit.ptxas_path()
        assert ptxas, "ptxas was not found by toolkit discovery"
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "k.ptx")
            with open(src, "w") as f:
                f.write(ptx)
            proc = subprocess.run([ptxas, f"-arch=sm_{cc[0]}{cc[1]}", src, "-o",
                                   os.path.join(tmp, "k.cubin")], capture_output=True, text=True)
        assert proc.returncode == 0, f"ptxas rejected the PTX for sm_{cc[0]}{cc[1]}:\n{proc.stderr}"

    return run

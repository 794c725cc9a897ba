"""Sphinx configuration for the numba-cuda documentation.

Build:   sphinx-build -W -b html docs docs/_build/html
Examples (run in the simulator when there is no GPU):
         NUMBA_ENABLE_CUDASIM=1 sphinx-build -b doctest docs docs/_build/doctest

tests/docs/test_docs.py runs both.  Nothing here needs a GPU: the API
reference is generated from numba_cuda/_exports.py by _ext/cuda_api.py, which
imports only the modules that provide public names (no driver, no toolkit).
"""

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))  # examples the pages run (user/multi-gpu)

_version = re.search(r'__version__\s*=\s*"([^"]+)"', (ROOT / "numba_cuda" / "_version.py").read_text()).group(1)

project = "numba-cuda"
author = "numba-cuda developers"
copyright = "numba-cuda developers"
version = release = _version

extensions = [
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "cuda_api",
]

# Links into the Python, NumPy, Numba and cuda-python documentation.  The
# inventories are fetched over the network, which CI and the test machines do
# not have, and a failed fetch is a warning (an error under -W).  So they are
# used only where the network is known to be there: on Read the Docs (which
# sets READTHEDOCS=True) or when NUMBA_CUDA_DOCS_INTERSPHINX=1.  Elsewhere the
# mapping is empty and cross-references such as :class:`numpy.ndarray` render
# as plain text; NUMBA_CUDA_DOCS_INTERSPHINX=0 turns the links off on Read the
# Docs too.  tests/docs/test_docs.py checks both settings.
INTERSPHINX_TARGETS = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "numba": ("https://numba.readthedocs.io/en/stable", None),
    "cuda-bindings": ("https://nvidia.github.io/cuda-python/cuda-bindings/latest", None),
}


def _intersphinx_enabled(environ=os.environ):
    switch = environ.get("NUMBA_CUDA_DOCS_INTERSPHINX", "").strip()
    if switch:
        return switch.lower() not in ("0", "false", "no", "off")  # the rule of the package's flags
    return environ.get("READTHEDOCS", "") == "True"


intersphinx_mapping = dict(INTERSPHINX_TARGETS) if _intersphinx_enabled() else {}
intersphinx_timeout = 10

root_doc = "index"
exclude_patterns = ["_build"]
templates_path = []
html_theme = "alabaster"
html_static_path = []
html_title = f"numba-cuda {release}"
pygments_style = "sphinx"

# Examples: executed by `sphinx-build -b doctest`.  Without a GPU the test
# sets NUMBA_ENABLE_CUDASIM=1, so they run in the simulator.
doctest_global_setup = """
import numpy as np
from numba import cuda
"""
doctest_test_doctest_blocks = ""  # only explicit testcode/doctest blocks are run

os.environ.setdefault("NUMBA_CUDA_DOCS_BUILD", "1")

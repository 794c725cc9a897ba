"""Loading a script of the repository (``benchmarks/compile.py``, ``scripts/conformance``, which
has no ``.py``) as a module, to test its functions without running it."""

import importlib.machinery
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def load_script(relative_path, name):
    """The module made by running ``REPO/relative_path`` under the module name ``name`` (a
    fresh module each call; not put in ``sys.modules``)."""
    loader = importlib.machinery.SourceFileLoader(name, str(REPO / relative_path))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module

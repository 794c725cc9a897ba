"""The test corpus: every ``corpus_*.py`` file under ``tests/`` defines ``CORPUS``, a list of
``(name, python_function, signature, device)`` (see ``tests/compiler/corpus_compiler.py``)."""

import importlib.util
import pathlib
import sys

TESTS_ROOT = pathlib.Path(__file__).resolve().parents[1]


def entries(prefix="corpus"):
    """``(id, fn, sig, device)`` of every corpus entry, ``id`` being ``"<file stem>::<name>"``,
    in file then definition order.  Each file is executed afresh as the module
    ``<prefix>_<path>`` (registered in ``sys.modules``), so callers with different prefixes get
    their own function objects."""
    out = []
    for path in sorted(TESTS_ROOT.rglob("corpus_*.py")):
        modname = prefix + "_" + "_".join(path.relative_to(TESTS_ROOT).with_suffix("").parts)
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        spec.loader.exec_module(module)
        out += [(f"{path.stem}::{name}", fn, sig, device)
                for name, fn, sig, device in module.CORPUS]
    return out

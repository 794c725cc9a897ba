"""Installed packages' versions, read from their generated ``_version.py`` without importing them.

Importing a package to ask for ``__version__`` runs its ``__init__`` (``numba``'s is the whole
CPU target, ``cuda.bindings``' imports ``cuda.bindings.utils``), and ``importlib.metadata`` loads
``email``'s parser (~20 ms).  Both release tools in use here write a literal version into a
``_version.py`` beside the package's ``__init__``: versioneer (Numba: ``"version": "0.68.1"``
inside its JSON block) and setuptools-scm (cuda-bindings: ``__version__ = version = '13.5.0'``).
"""

import importlib.util
import os


def version_in_file(package):
    """The version literal in ``package``'s ``_version.py``, or None (not installed, another
    layout, no literal found).  ``package`` is a dotted module name; it is located with
    ``importlib.util.find_spec`` (which imports its parent packages, not the package)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        try:
            with open(os.path.join(folder, "_version.py"), encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        version = _version_literal(text)
        if version:
            return version
    return None


def _version_literal(text):
    """The version in a ``_version.py``'s text: a ``__version__ = ...'X'`` line (setuptools-scm)
    or versioneer's ``"version": "X"`` entry; None when neither is there."""
    for line in text.splitlines():
        if line.startswith("__version__ = "):
            value = line.rsplit("=", 1)[1].strip()
            if len(value) > 2 and value[0] == value[-1] and value[0] in "'\"":
                return value[1:-1]
    key = '"version": "'
    start = text.find(key)
    if start >= 0:
        end = text.find('"', start + len(key))
        if end > start + len(key):
            return text[start + len(key):end]
    return None
